package io.volrep.testkit;

import io.grpc.BindableService;
import io.grpc.ServerInterceptor;
import io.volrep.api.ReplicationSource.Kind;
import io.volrep.api.Secrets;
import io.volrep.api.SpecDialect;
import io.volrep.api.internal.Arguments;
import io.volrep.spi.HealerDriver;
import io.volrep.spi.ReplicationDriver;
import io.volrep.spi.VolumeGroupDriver;
import java.time.Duration;
import java.util.Collections;
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
    /** Default window in which a transient answer the tables allow (10, 14, Info's 5) is polled before it is judged. */
    public static final Duration DEFAULT_SETTLE_TIMEOUT = Duration.ofSeconds(60);

    /** The settings: a private copy of the builder's, never changed after construction. */
    private final ConformanceSettings values;

    private final Secrets secrets;
    private final int parallelism;

    private ConformanceConfig(Builder b) {
        b.s.validate();
        this.values = b.s.copy();
        this.secrets = Secrets.of(b.s.secrets);
        this.parallelism = b.s.parallelism > 0
                ? b.s.parallelism
                : Math.max(
                        1,
                        b.s.volumes.size() + (b.s.dialect.supports(Kind.VOLUME_GROUP) ? b.s.volumeGroups.size() : 0));
    }

    /** A new builder. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this configuration's values. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.s.copyFrom(values);
        b.s.parallelism = parallelism;
        return b;
    }

    /** The peer site's plugin, where the fixtures' replicas live, if the run drives two sites. */
    public Optional<String> peerEndpoint() {
        return Optional.ofNullable(values.peerEndpoint);
    }

    /** The peer site's driver, served in-process, if the run drives two in-process sites. */
    public Optional<ReplicationDriver> peerDriver() {
        return Optional.ofNullable(values.peerDriver);
    }

    /** True when a peer site is configured: the two-site checks run (else they report NOT RUN). */
    public boolean hasPeer() {
        return values.peerEndpoint != null || values.peerDriver != null;
    }

    /**
     * How long a transient answer that a table allows (10 ABORTED, 14 UNAVAILABLE, GetVolumeReplicationInfo's 5
     * NOT_FOUND "details not available at the moment" on a primary) is polled before the check judges it.
     */
    public Duration settleTimeout() {
        return values.settleTimeout;
    }

    /** How many checks run at once, each on fixtures no other running check holds (default: one per fixture). */
    public int parallelism() {
        return parallelism;
    }

    /** The seed of the lifecycle exploration's order (the same seed, the same calls); printed with the statement. */
    public long seed() {
        return values.seed;
    }

    /**
     * True when every required check must run for the plugin to be compliant: a required check skipped (its fixtures
     * not configured, or on request) or not run (no peer site) makes the report NOT COMPLIANT ({@code --require-all}).
     */
    public boolean requireAll() {
        return values.requireAll;
    }

    /** The plugin's address ({@code unix:///path}, {@code host:port}, {@code inprocess:NAME}), if that is the target. */
    public Optional<String> endpoint() {
        return Optional.ofNullable(values.endpoint);
    }

    /** The driver served in-process through the SPI runtime, if that is the target. */
    public Optional<ReplicationDriver> driver() {
        return Optional.ofNullable(values.driver);
    }

    /** The raw gRPC service served in-process, if that is the target. */
    public Optional<BindableService> service() {
        return Optional.ofNullable(values.service);
    }

    /** Interceptors wrapped around an in-process target (fault injection below the SPI runtime). */
    public List<ServerInterceptor> interceptors() {
        return Collections.unmodifiableList(values.interceptors);
    }

    /** Existing volumes with replication disabled; the first is the main fixture. */
    public List<String> volumes() {
        return Collections.unmodifiableList(values.volumes);
    }

    /** Existing volume groups with replication disabled; group checks are skipped when empty. */
    public List<String> volumeGroups() {
        return Collections.unmodifiableList(values.volumeGroups);
    }

    /** Valid secrets; the secret checks are skipped when empty. */
    public Secrets secrets() {
        return secrets;
    }

    /** Plugin-specific parameters sent with every request that has a {@code parameters} field. */
    public Map<String, String> enableParameters() {
        return Collections.unmodifiableMap(values.enableParameters);
    }

    /** The node plugin's healer endpoint, if NodeHealer checks should run. */
    public Optional<String> healerEndpoint() {
        return Optional.ofNullable(values.healerEndpoint);
    }

    /** The healer driver served in-process beside {@link #driver()}, if any. */
    public Optional<HealerDriver> healerDriver() {
        return Optional.ofNullable(values.healerDriver);
    }

    /** The volume group driver served in-process beside {@link #driver()}, if any. */
    public Optional<VolumeGroupDriver> volumeGroupDriver() {
        return Optional.ofNullable(values.volumeGroupDriver);
    }

    /** Volume id to node volume path, for NodeHealer checks; they are skipped when empty. */
    public Map<String, String> healerVolumes() {
        return Collections.unmodifiableMap(values.healerVolumes);
    }

    /** Volume id to the device path of a block volume on the node, for the NodeHealer block-capability check. */
    public Map<String, String> healerBlockVolumes() {
        return Collections.unmodifiableMap(values.healerBlockVolumes);
    }

    /** Where the first node volume ({@link #healerVolumes()}) is staged, if its plugin stages volumes. */
    public Optional<String> healerStagingPath() {
        return Optional.ofNullable(values.healerStagingPath);
    }

    /** The first node volume's volume context (as CreateVolume answered it); empty when not configured. */
    public Map<String, String> healerVolumeContext() {
        return Collections.unmodifiableMap(values.healerVolumeContext);
    }

    /** The revision of the replication spec the plugin speaks (default {@link SpecDialect#CURRENT}). */
    public SpecDialect dialect() {
        return values.dialect;
    }

    /** How long a resync may take to report {@code ready}. */
    public Duration resyncTimeout() {
        return values.resyncTimeout;
    }

    /** The deadline of each call. */
    public Duration callTimeout() {
        return values.callTimeout;
    }

    /** The check ids (or id patterns with {@code *}) skipped on request. */
    public List<String> skipChecks() {
        return Collections.unmodifiableList(values.skipChecks);
    }

    /** True when {@code check} is skipped on request: an entry matches its id. */
    public boolean skipped(Check check) {
        return values.skipChecks.stream().anyMatch(check::matches);
    }

    /** True when the check with this id is skipped on request (a glob over current ids: the exploration's edges). */
    public boolean skipped(String checkId) {
        return values.skipChecks.stream().anyMatch(pattern -> Check.idMatches(pattern, checkId));
    }

    /** A short description of the target for reports: never secrets. */
    public String targetDescription() {
        if (values.endpoint != null) {
            return values.endpoint;
        }
        if (values.driver != null) {
            return "in-process driver " + values.driver.getClass().getName();
        }
        return "in-process service " + values.service.getClass().getName();
    }

    @Override
    public String toString() {
        return "ConformanceConfig[" + values.describe(targetDescription(), secrets, parallelism) + "]";
    }

    /** Builds a {@link ConformanceConfig}. */
    public static final class Builder {
        private final ConformanceSettings s = new ConformanceSettings();

        private Builder() {}

        /**
         * The peer site: the plugin serving the fixtures' replicas (their ids are what the target's
         * GetReplicationDestinationInfo answers, or the same ids where it is not implemented). The two-site checks
         * (resync while the peer is primary, failover round trips, both sites restored) run only with a peer.
         *
         * <pre>{@code
         * ConformanceConfig.builder().endpoint("unix:///site-a/csi-addons.sock")
         *         .peerEndpoint("unix:///site-b/csi-addons.sock").volumes("vol-0").build();
         * }</pre>
         */
        public Builder peerEndpoint(String endpoint) {
            s.peerEndpoint = Objects.requireNonNull(endpoint, "endpoint");
            return this;
        }

        /**
         * The peer site as a driver served in-process beside {@link #driver}, e.g. the two sites of a
         * {@link io.volrep.testkit.reference.ReferencePair}.
         */
        public Builder peerDriver(ReplicationDriver driver) {
            s.peerDriver = Objects.requireNonNull(driver, "driver");
            return this;
        }

        /**
         * How long a transient answer the tables allow is polled before it is judged (default 60 s): 10 ABORTED,
         * 14 UNAVAILABLE, and GetVolumeReplicationInfo's 5 NOT_FOUND on a primary ("details not available at the
         * moment"). A required answer is never waited for: any other answer is judged at once.
         */
        public Builder settleTimeout(Duration timeout) {
            s.settleTimeout = Arguments.requireNotNegative("settleTimeout", timeout);
            return this;
        }

        /**
         * How many checks run at once (default: one per fixture volume and group). Checks never share a fixture
         * while they run, and the report keeps its order.
         */
        public Builder parallelism(int checks) {
            s.parallelism = Arguments.requireAtLeast("parallelism", checks, 1);
            return this;
        }

        /** The seed of the lifecycle exploration's order (default 0): a run is repeatable with its seed. */
        public Builder seed(long seed) {
            s.seed = seed;
            return this;
        }

        /**
         * Compliant only when every required check ran (default false: a required check that did not run is named in
         * the statement, "COMPLIANT for the checks run; N required checks not run (...)", but does not fail the run).
         */
        public Builder requireAll(boolean requireAll) {
            s.requireAll = requireAll;
            return this;
        }

        /** Target a running plugin: {@code unix:///path}, {@code host:port}, {@code dns:///host:port}, {@code inprocess:NAME}. */
        public Builder endpoint(String endpoint) {
            s.endpoint = Objects.requireNonNull(endpoint, "endpoint");
            return this;
        }

        /** Target a driver, served in-process by the real SPI runtime ({@code ReplicationServer}). */
        public Builder driver(ReplicationDriver driver) {
            s.driver = Objects.requireNonNull(driver, "driver");
            return this;
        }

        /** Target a raw gRPC {@code replication.Controller} implementation, served in-process as is. */
        public Builder service(BindableService service) {
            s.service = Objects.requireNonNull(service, "service");
            return this;
        }

        /** Wrap an in-process target with a server interceptor (applied in the order added, first outermost). */
        public Builder interceptor(ServerInterceptor interceptor) {
            s.interceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
            return this;
        }

        /** Add fixture volumes: existing, with replication disabled. */
        public Builder volumes(String... ids) {
            return volumes(List.of(ids));
        }

        /** Add fixture volumes: existing, with replication disabled. */
        public Builder volumes(List<String> ids) {
            ids.forEach(id -> s.volumes.add(requireNonBlank("volume id", id)));
            return this;
        }

        /** Add fixture volume groups: existing, with replication disabled. */
        public Builder volumeGroups(String... ids) {
            return volumeGroups(List.of(ids));
        }

        /** Add fixture volume groups: existing, with replication disabled. */
        public Builder volumeGroups(List<String> ids) {
            ids.forEach(id -> s.volumeGroups.add(requireNonBlank("volume group id", id)));
            return this;
        }

        /** Valid secrets, sent with every call (except the checks that send wrong or no secrets). */
        public Builder secrets(Map<String, String> secrets) {
            s.secrets.putAll(secrets);
            return this;
        }

        /** Plugin-specific parameters sent in {@code parameters} (e.g. {@code mirroringMode=snapshot}). */
        public Builder enableParameters(Map<String, String> parameters) {
            s.enableParameters.putAll(parameters);
            return this;
        }

        /** The node plugin's endpoint for NodeHealer checks. */
        public Builder healerEndpoint(String endpoint) {
            s.healerEndpoint = Objects.requireNonNull(endpoint, "endpoint");
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
            s.healerDriver = Objects.requireNonNull(healer, "healer");
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
            s.volumeGroupDriver = Objects.requireNonNull(groups, "groups");
            return this;
        }

        /**
         * The revision of the replication spec the plugin speaks (default current): requests use that revision's
         * messages, expectations its error tables. An in-process driver is served in that dialect.
         */
        public Builder dialect(SpecDialect dialect) {
            s.dialect = Objects.requireNonNull(dialect, "dialect");
            return this;
        }

        /** A node volume for NodeHealer checks: volume id and its path on the node. */
        public Builder healerVolume(String volumeId, String path) {
            s.healerVolumes.put(requireNonBlank("volume id", volumeId), requireNonBlank("path", path));
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
            s.healerBlockVolumes.put(requireNonBlank("volume id", volumeId), requireNonBlank("path", devicePath));
            return this;
        }

        /**
         * Where the first {@link #healerVolume} is staged (its {@code staging_target_path}), for the NodeHealer checks
         * of long staging paths (skipped without one; leave it out for a plugin without STAGE_UNSTAGE_VOLUME).
         */
        public Builder healerStagingPath(String path) {
            s.healerStagingPath = requireNonBlank("staging path", path);
            return this;
        }

        /**
         * The first {@link #healerVolume}'s volume context, as CreateVolume answered it (the spec: it MUST match), for
         * the NodeHealer check that sends it (skipped without one).
         */
        public Builder healerVolumeContext(Map<String, String> context) {
            s.healerVolumeContext.putAll(context);
            return this;
        }

        /** How long a resync may take to report {@code ready} (default 30 s). */
        public Builder resyncTimeout(Duration timeout) {
            s.resyncTimeout = Arguments.requirePositive("resyncTimeout", timeout);
            return this;
        }

        /** The deadline of each call (default 10 s). */
        public Builder callTimeout(Duration timeout) {
            s.callTimeout = Arguments.requirePositive("callTimeout", timeout);
            return this;
        }

        /**
         * Skip checks on request: each entry a {@link Check#id() check id}, where {@code *} stands for any run of
         * characters ({@code "isolation/*"}, {@code "*}{@code /group/*"}). The statement lists them as skipped on
         * request.
         *
         * <pre>{@code
         * ConformanceConfig.builder().endpoint("unix:///csi/csi-addons.sock").volumes("pvc-1")
         *         .skipChecks(List.of("isolation/all-fixtures/concurrent", "PromoteVolume/group/*")).build();
         * }</pre>
         */
        public Builder skipChecks(List<String> ids) {
            ids.forEach(id -> s.skipChecks.add(requireNonBlank("check id", id)));
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
