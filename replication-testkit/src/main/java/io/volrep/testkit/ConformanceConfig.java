package io.volrep.testkit;

import io.grpc.BindableService;
import io.grpc.ServerInterceptor;
import io.volrep.api.internal.Arguments;
import io.volrep.api.Secrets;
import io.volrep.api.SpecDialect;
import io.volrep.spi.HealerDriver;
import io.volrep.spi.ReplicationDriver;
import io.volrep.spi.VolumeGroupDriver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What the conformance suite runs against and with which fixtures. Immutable; built with {@link #builder()}.
 *
 * <p>Exactly one target: an {@linkplain Builder#endpoint(String) endpoint} (any plugin in any language), a
 * {@linkplain Builder#driver(ReplicationDriver) driver} (served in-process by the real SPI runtime), or a raw
 * {@linkplain Builder#service(BindableService) gRPC service} (served in-process as is).
 *
 * <p>Fixtures: the suite creates nothing. It needs at least one existing volume whose replication is
 * <em>disabled</em> when the run starts; every check returns each volume it touched to that state
 * (replication disabled, primary). Volume groups, secrets and node volume paths are optional: the checks
 * that need them are skipped, with the reason, when they are missing.
 *
 * <p>{@linkplain Builder#dialect(SpecDialect) The dialect} says which revision of the replication spec the plugin
 * speaks: the suite then sends that revision's messages and checks that revision's error rows (v0.1.0 has no
 * GetVolumeReplicationInfo and no groups). NodeHealer checks run when {@linkplain Builder#healerVolume node
 * volumes} are configured, against {@linkplain Builder#healerEndpoint the healer endpoint} (by default the
 * target itself; for a driver target, the {@linkplain Builder#healerDriver healer driver} served beside it).
 * <pre>{@code
 * ConformanceConfig config = ConformanceConfig.builder()
 *         .endpoint("unix:///csi/csi-addons.sock")
 *         .volumes("pvc-1", "pvc-2")
 *         .volumeGroups("vg-1")
 *         .secrets(Map.of("user", "admin"))
 *         .resyncTimeout(Duration.ofMinutes(2))
 *         .build();
 * }</pre>
 */
public final class ConformanceConfig {
    /** Default bound for a resync to report {@code ready}. */
    public static final Duration DEFAULT_RESYNC_TIMEOUT = Duration.ofSeconds(30);
    /** Default deadline of each call. */
    public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(10);

    private final String endpoint;
    private final ReplicationDriver driver;
    private final BindableService service;
    private final List<ServerInterceptor> interceptors;
    private final List<String> volumes;
    private final List<String> volumeGroups;
    private final Secrets secrets;
    private final Map<String, String> enableParameters;
    private final String healerEndpoint;
    private final HealerDriver healerDriver;
    private final VolumeGroupDriver volumeGroupDriver;
    private final Map<String, String> healerVolumes;
    private final Map<String, String> healerBlockVolumes;
    private final String healerStagingPath;
    private final Map<String, String> healerVolumeContext;
    private final SpecDialect dialect;
    private final Duration resyncTimeout;
    private final Duration callTimeout;
    private final List<String> skipChecks;

    private ConformanceConfig(Builder b) {
        int targets = (b.endpoint != null ? 1 : 0) + (b.driver != null ? 1 : 0) + (b.service != null ? 1 : 0);
        if (targets != 1) {
            throw new IllegalArgumentException("configure exactly one target: endpoint, driver or service (got "
                    + targets + ")");
        }
        if (b.volumes.isEmpty()) {
            throw new IllegalArgumentException("configure at least one fixture volume (an existing volume with"
                    + " replication disabled)");
        }
        if (!b.interceptors.isEmpty() && b.endpoint != null) {
            throw new IllegalArgumentException("server interceptors apply to in-process targets only");
        }
        this.endpoint = b.endpoint;
        this.driver = b.driver;
        this.service = b.service;
        this.interceptors = List.copyOf(b.interceptors);
        this.volumes = List.copyOf(b.volumes);
        this.volumeGroups = List.copyOf(b.volumeGroups);
        this.secrets = Secrets.of(b.secrets);
        this.enableParameters = Map.copyOf(b.enableParameters);
        if (b.volumeGroupDriver != null && b.driver == null) {
            throw new IllegalArgumentException("volumeGroupDriver is served beside an in-process driver: configure"
                    + " driver(...) too");
        }
        if (b.healerDriver != null && b.driver == null) {
            throw new IllegalArgumentException("healerDriver is served beside an in-process driver: configure"
                    + " driver(...) too, or point healerEndpoint at a running node plugin");
        }
        if (!b.dialect.speaksCurrentMessages() && b.service != null) {
            throw new IllegalArgumentException("a raw service target speaks the current messages only (dialect current"
                    + " or upstream-2026)");
        }
        this.healerEndpoint = b.healerEndpoint;
        this.healerDriver = b.healerDriver;
        this.volumeGroupDriver = b.volumeGroupDriver;
        this.dialect = b.dialect;
        this.healerVolumes = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(b.healerVolumes));
        this.healerBlockVolumes = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(b.healerBlockVolumes));
        if ((b.healerStagingPath != null || !b.healerVolumeContext.isEmpty()) && b.healerVolumes.isEmpty()) {
            throw new IllegalArgumentException("healerStagingPath and healerVolumeContext describe the first"
                    + " healerVolume: configure one");
        }
        this.healerStagingPath = b.healerStagingPath;
        this.healerVolumeContext = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(b.healerVolumeContext));
        this.resyncTimeout = b.resyncTimeout;
        this.callTimeout = b.callTimeout;
        this.skipChecks = List.copyOf(b.skipChecks);
    }

    /** A new builder. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this configuration's values. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.endpoint = endpoint;
        b.driver = driver;
        b.service = service;
        b.interceptors.addAll(interceptors);
        b.volumes.addAll(volumes);
        b.volumeGroups.addAll(volumeGroups);
        b.secrets.putAll(secrets.asMap());
        b.enableParameters.putAll(enableParameters);
        b.healerEndpoint = healerEndpoint;
        b.healerDriver = healerDriver;
        b.volumeGroupDriver = volumeGroupDriver;
        b.dialect = dialect;
        b.healerVolumes.putAll(healerVolumes);
        b.healerBlockVolumes.putAll(healerBlockVolumes);
        b.healerStagingPath = healerStagingPath;
        b.healerVolumeContext.putAll(healerVolumeContext);
        b.resyncTimeout = resyncTimeout;
        b.callTimeout = callTimeout;
        b.skipChecks.addAll(skipChecks);
        return b;
    }

    /** The plugin's address ({@code unix:///path}, {@code host:port}, {@code inprocess:NAME}), if that is the target. */
    public Optional<String> endpoint() {
        return Optional.ofNullable(endpoint);
    }

    /** The driver served in-process through the SPI runtime, if that is the target. */
    public Optional<ReplicationDriver> driver() {
        return Optional.ofNullable(driver);
    }

    /** The raw gRPC service served in-process, if that is the target. */
    public Optional<BindableService> service() {
        return Optional.ofNullable(service);
    }

    /** Interceptors wrapped around an in-process target (fault injection below the SPI runtime). */
    public List<ServerInterceptor> interceptors() {
        return interceptors;
    }

    /** Existing volumes with replication disabled; the first is the main fixture. */
    public List<String> volumes() {
        return volumes;
    }

    /** Existing volume groups with replication disabled; group checks are skipped when empty. */
    public List<String> volumeGroups() {
        return volumeGroups;
    }

    /** Valid secrets; the secret checks are skipped when empty. */
    public Secrets secrets() {
        return secrets;
    }

    /** Plugin-specific parameters sent with every request that has a {@code parameters} field. */
    public Map<String, String> enableParameters() {
        return enableParameters;
    }

    /** The node plugin's healer endpoint, if NodeHealer checks should run. */
    public Optional<String> healerEndpoint() {
        return Optional.ofNullable(healerEndpoint);
    }

    /** The healer driver served in-process beside {@link #driver()}, if any. */
    public Optional<HealerDriver> healerDriver() {
        return Optional.ofNullable(healerDriver);
    }

    /** The volume group driver served in-process beside {@link #driver()}, if any. */
    public Optional<VolumeGroupDriver> volumeGroupDriver() {
        return Optional.ofNullable(volumeGroupDriver);
    }

    /** Volume id to node volume path, for NodeHealer checks; they are skipped when empty. */
    public Map<String, String> healerVolumes() {
        return healerVolumes;
    }

    /** Volume id to the device path of a block volume on the node, for the NodeHealer block-capability check. */
    public Map<String, String> healerBlockVolumes() {
        return healerBlockVolumes;
    }

    /** Where the first node volume ({@link #healerVolumes()}) is staged, if its plugin stages volumes. */
    public Optional<String> healerStagingPath() {
        return Optional.ofNullable(healerStagingPath);
    }

    /** The first node volume's volume context (as CreateVolume answered it); empty when not configured. */
    public Map<String, String> healerVolumeContext() {
        return healerVolumeContext;
    }

    /** The revision of the replication spec the plugin speaks (default {@link SpecDialect#CURRENT}). */
    public SpecDialect dialect() {
        return dialect;
    }

    /** How long a resync may take to report {@code ready}. */
    public Duration resyncTimeout() {
        return resyncTimeout;
    }

    /** The deadline of each call. */
    public Duration callTimeout() {
        return callTimeout;
    }

    /** The check ids (or id patterns with {@code *}) skipped on request. */
    public List<String> skipChecks() {
        return skipChecks;
    }

    /** True when {@code check} is skipped on request: an entry matches its id, or is one of its former ids. */
    public boolean skipped(Check check) {
        return skipChecks.stream().anyMatch(check::selectedBy);
    }

    /** A short description of the target for reports: never secrets. */
    public String targetDescription() {
        if (endpoint != null) {
            return endpoint;
        }
        if (driver != null) {
            return "in-process driver " + driver.getClass().getName();
        }
        return "in-process service " + service.getClass().getName();
    }

    @Override
    public String toString() {
        return "ConformanceConfig[target=" + targetDescription() + ", volumes=" + volumes + ", volumeGroups="
                + volumeGroups + ", secrets=" + secrets + ", dialect=" + dialect + ", healerEndpoint=" + healerEndpoint + ", healerVolumes="
                + healerVolumes + (healerBlockVolumes.isEmpty() ? "" : ", healerBlockVolumes=" + healerBlockVolumes)
                + (healerStagingPath == null ? "" : ", healerStagingPath=" + healerStagingPath)
                + (healerVolumeContext.isEmpty() ? "" : ", healerVolumeContext=" + healerVolumeContext)
                + ", resyncTimeout=" + resyncTimeout + ", callTimeout=" + callTimeout
                + (skipChecks.isEmpty() ? "" : ", skipChecks=" + skipChecks) + "]";
    }

    /** Builds a {@link ConformanceConfig}. */
    public static final class Builder {
        private String endpoint;
        private ReplicationDriver driver;
        private BindableService service;
        private final List<ServerInterceptor> interceptors = new ArrayList<>();
        private final List<String> volumes = new ArrayList<>();
        private final List<String> volumeGroups = new ArrayList<>();
        private final Map<String, String> secrets = new LinkedHashMap<>();
        private final Map<String, String> enableParameters = new LinkedHashMap<>();
        private String healerEndpoint;
        private HealerDriver healerDriver;
        private VolumeGroupDriver volumeGroupDriver;
        private SpecDialect dialect = SpecDialect.CURRENT;
        private final Map<String, String> healerVolumes = new LinkedHashMap<>();
        private final Map<String, String> healerBlockVolumes = new LinkedHashMap<>();
        private String healerStagingPath;
        private final Map<String, String> healerVolumeContext = new LinkedHashMap<>();
        private Duration resyncTimeout = DEFAULT_RESYNC_TIMEOUT;
        private Duration callTimeout = DEFAULT_CALL_TIMEOUT;
        private final List<String> skipChecks = new ArrayList<>();

        private Builder() {
        }

        /** Target a running plugin: {@code unix:///path}, {@code host:port}, {@code dns:///host:port}, {@code inprocess:NAME}. */
        public Builder endpoint(String endpoint) {
            this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
            return this;
        }

        /** Target a driver, served in-process by the real SPI runtime ({@code ReplicationServer}). */
        public Builder driver(ReplicationDriver driver) {
            this.driver = Objects.requireNonNull(driver, "driver");
            return this;
        }

        /** Target a raw gRPC {@code replication.Controller} implementation, served in-process as is. */
        public Builder service(BindableService service) {
            this.service = Objects.requireNonNull(service, "service");
            return this;
        }

        /** Wrap an in-process target with a server interceptor (applied in the order added, first outermost). */
        public Builder interceptor(ServerInterceptor interceptor) {
            this.interceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
            return this;
        }

        /** Add fixture volumes: existing, with replication disabled. */
        public Builder volumes(String... ids) {
            return volumes(List.of(ids));
        }

        /** Add fixture volumes: existing, with replication disabled. */
        public Builder volumes(List<String> ids) {
            ids.forEach(id -> volumes.add(requireNonBlank("volume id", id)));
            return this;
        }

        /** Add fixture volume groups: existing, with replication disabled. */
        public Builder volumeGroups(String... ids) {
            return volumeGroups(List.of(ids));
        }

        /** Add fixture volume groups: existing, with replication disabled. */
        public Builder volumeGroups(List<String> ids) {
            ids.forEach(id -> volumeGroups.add(requireNonBlank("volume group id", id)));
            return this;
        }

        /** Valid secrets, sent with every call (except the checks that send wrong or no secrets). */
        public Builder secrets(Map<String, String> secrets) {
            this.secrets.putAll(secrets);
            return this;
        }

        /** Plugin-specific parameters sent in {@code parameters} (e.g. {@code mirroringMode=snapshot}). */
        public Builder enableParameters(Map<String, String> parameters) {
            this.enableParameters.putAll(parameters);
            return this;
        }

        /** The node plugin's endpoint for NodeHealer checks. */
        public Builder healerEndpoint(String endpoint) {
            this.healerEndpoint = Objects.requireNonNull(endpoint, "endpoint");
            return this;
        }

        /**
         * A healer driver served in-process beside {@link #driver} (same server), for NodeHealer checks.
         *
         * <pre>{@code
         * ConformanceConfig.builder().driver(myDriver).healerDriver(myHealer)
         *         .volumes("vol-a").healerVolume("vol-a", "/mnt/vol-a").build();
         * }</pre>
         */
        public Builder healerDriver(HealerDriver healer) {
            this.healerDriver = Objects.requireNonNull(healer, "healer");
            return this;
        }

        /**
         * A volume group driver served in-process beside {@link #driver} (same server), for the volume group checks:
         * the groups it creates should be sources of {@link #driver}'s replication.
         *
         * <pre>{@code
         * ReferenceDriver reference = ReferenceDriver.builder().volumes(2).build();
         * ConformanceConfig.builder().driver(reference).volumeGroupDriver(reference).volumes("vol-0", "vol-1").build();
         * }</pre>
         */
        public Builder volumeGroupDriver(VolumeGroupDriver groups) {
            this.volumeGroupDriver = Objects.requireNonNull(groups, "groups");
            return this;
        }

        /**
         * The revision of the replication spec the plugin speaks (default current): requests use that revision's
         * messages, expectations its error tables. An in-process driver is served in that dialect.
         */
        public Builder dialect(SpecDialect dialect) {
            this.dialect = Objects.requireNonNull(dialect, "dialect");
            return this;
        }

        /** A node volume for NodeHealer checks: volume id and its path on the node. */
        public Builder healerVolume(String volumeId, String path) {
            this.healerVolumes.put(requireNonBlank("volume id", volumeId), requireNonBlank("path", path));
            return this;
        }

        /**
         * A block volume on the node: its id and device path, for the NodeHealer check that sends a block
         * {@code volume_capability} (skipped without one). {@link #healerVolume} is a mounted one.
         *
         * <pre>{@code
         * ConformanceConfig.builder().endpoint("unix:///csi/csi-addons.sock").volumes("pvc-a")
         *         .healerVolume("pvc-a", "/var/lib/kubelet/pods/1234/volumes/kubernetes.io~csi/pvc-a/mount")
         *         .healerBlockVolume("pvc-b", "/var/lib/kubelet/plugins/kubernetes.io/csi/volumeDevices/publish/pvc-b/1234")
         *         .build();
         * }</pre>
         */
        public Builder healerBlockVolume(String volumeId, String devicePath) {
            this.healerBlockVolumes.put(requireNonBlank("volume id", volumeId), requireNonBlank("path", devicePath));
            return this;
        }

        /**
         * Where the first {@link #healerVolume} is staged (its {@code staging_target_path}), for the NodeHealer checks
         * of long staging paths (skipped without one; leave it out for a plugin without STAGE_UNSTAGE_VOLUME).
         */
        public Builder healerStagingPath(String path) {
            this.healerStagingPath = requireNonBlank("staging path", path);
            return this;
        }

        /**
         * The first {@link #healerVolume}'s volume context, as CreateVolume answered it (the spec: it MUST match), for
         * the NodeHealer check that sends it (skipped without one).
         */
        public Builder healerVolumeContext(Map<String, String> context) {
            this.healerVolumeContext.putAll(context);
            return this;
        }

        /** How long a resync may take to report {@code ready} (default 30 s). */
        public Builder resyncTimeout(Duration timeout) {
            this.resyncTimeout = Arguments.requirePositive("resyncTimeout", timeout);
            return this;
        }

        /** The deadline of each call (default 10 s). */
        public Builder callTimeout(Duration timeout) {
            this.callTimeout = Arguments.requirePositive("callTimeout", timeout);
            return this;
        }

        /**
         * Skip checks on request: each entry a {@link Check#id() check id}, where {@code *} stands for any run of
         * characters ({@code "isolation/*"}, {@code "*}{@code /group/*"}), or a check's former id
         * ({@link Check#formerlyKnownAs}). The statement lists them as skipped on request.
         *
         * <pre>{@code
         * ConformanceConfig.builder().endpoint("unix:///csi/csi-addons.sock").volumes("pvc-1")
         *         .skipChecks(List.of("isolation/all-fixtures/concurrent", "PromoteVolume/group/*")).build();
         * }</pre>
         */
        public Builder skipChecks(List<String> ids) {
            ids.forEach(id -> skipChecks.add(requireNonBlank("check id", id)));
            return this;
        }

        /** The configuration; throws {@link IllegalArgumentException} when it is incomplete. */
        public ConformanceConfig build() {
            return new ConformanceConfig(this);
        }

        private static String requireNonBlank(String what, String value) {
            if (value == null || value.isBlank()) {
                throw new IllegalArgumentException(what + " must not be blank");
            }
            return value;
        }
    }
}
