package io.volrep.ceph;

import io.volrep.api.InvalidArgumentException;
import io.volrep.api.ReplicationDestination;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.UnavailableException;
import io.volrep.api.internal.Arguments;
import io.volrep.api.internal.SafeText;
import io.volrep.spi.DemoteRequest;
import io.volrep.spi.DestinationRequest;
import io.volrep.spi.DisableRequest;
import io.volrep.spi.EnableRequest;
import io.volrep.spi.InfoRequest;
import io.volrep.spi.PromoteRequest;
import io.volrep.spi.ReplicationDriver;
import io.volrep.spi.ResyncRequest;
import io.volrep.spi.ResyncResult;
import io.volrep.spi.exec.internal.ProcessRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A CSI-Addons replication driver for Ceph RBD snapshot mirroring: the volume id is the image name in one pool, and
 * every RPC is one or a few {@code rbd} commands (JSON output, each bounded in time) against the site's cluster.
 * Both sites run one plugin each; the pool is mirrored in {@code image} mode and peered both ways (rbd-mirror on each
 * site). docs/storage-vendors.md "Real storage" has the mapping table and the decisions behind it.
 *
 * <pre>{@code
 * try (CephRbdDriver driver = CephRbdDriver.builder()
 *         .cephConf(Path.of("/etc/ceph/site-a.conf")).pool("rbd")      // client.admin by default
 *         .timeout(Duration.ofSeconds(30))                             // per RPC, all rbd commands together
 *         .build();
 *      ReplicationServer server = ReplicationServer.builder().driver(driver).readiness(driver.readiness())
 *         .identity(CephRbdDriver.PLUGIN_NAME, "0.1.0").listen("unix:///csi/csi-addons.sock").build().start()) {
 *     server.awaitTermination();
 * }
 * }</pre>
 *
 * <p>In short: Enable runs {@code rbd mirror image enable POOL/IMG snapshot} and, with parameter
 * {@code schedulingInterval}, a mirror-snapshot schedule (kept in the image's metadata too, so that the peer applies
 * it when it is promoted); Promote and Demote check the image's role first (rbd refuses to promote a primary or
 * demote a non-primary); Promote's refusal while the peer's demotion has not arrived answers 10 ABORTED (the client
 * retries), and 9 FAILED_PRECONDITION only when the peer site, asked directly, holds the image as primary; Disable
 * of a non-primary promotes it first so that rbd-mirror deletes the peer's copy rather than leave it orphaned;
 * Resync asks rbd-mirror for a full resync only where one is needed (an error such as split-brain, or {@code force}),
 * and is ready once the image replays the primary's latest snapshot; Info reads the peers' replayers; the destination
 * is the image of the same name on the peer, verified there. Volume groups are not supported (Pacific has no RBD group
 * mirroring): a group source answers 3 INVALID_ARGUMENT, and Identity advertises no volume group capability.
 */
public final class CephRbdDriver implements ReplicationDriver, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CephRbdDriver.class);

    /** What GetIdentity answers as the plugin's name. */
    public static final String PLUGIN_NAME = "rbd.ceph.volrep.io";
    /** The default budget of one RPC (all its rbd commands together). */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);
    /** The parameter selecting the mirroring mode, as ceph-csi names it; only {@code snapshot} is served. */
    public static final String MIRRORING_MODE = "mirroringMode";
    /** How long the readiness verdict is reused, and how long its read may take. */
    private static final Duration READINESS_CACHE = Duration.ofSeconds(10);

    private static final Duration READINESS_TIMEOUT = Duration.ofSeconds(5);

    private final RbdCli local;
    private final String pool;
    private final Duration timeout;
    private final ProcessRunner runner;
    // Each RPC's work lives in the class that serves it, over two shared pieces: LocalPool (the rbd commands on this
    // site, their failures mapped to the error rows) and PeerLookup (the peer site, asked directly).
    private final PeerLookup peers;
    private final EnableDisable enableDisable;
    private final PromoteDemote promoteDemote;
    private final Resync resync;
    private final InfoFromMirrorStatus info;
    private final DestinationOnPeer destination;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile CachedVerdict readiness;

    private record CachedVerdict(boolean ready, long expiresAt) {}

    private CephRbdDriver(Builder b) {
        this.pool = b.pool;
        this.timeout = b.timeout;
        this.runner = new ProcessRunner(RbdCli.MAX_STDOUT_BYTES, RbdCli.STDERR_BYTES, List.of());
        String site = b.siteName != null ? b.siteName : siteName(b.cephConf);
        this.local = new RbdCli(
                "site " + site,
                b.rbd,
                List.of("-c", b.cephConf.toString(), "--id", b.clientId),
                runner,
                b.maxConcurrentCommands);
        this.peers = new PeerLookup(local, pool);
        LocalPool images = new LocalPool(local, pool);
        ImageSchedules schedules = new ImageSchedules(images);
        LastSyncRecord lastSync = new LastSyncRecord(images);
        this.enableDisable = new EnableDisable(images, peers, schedules);
        this.promoteDemote = new PromoteDemote(images, peers, schedules, lastSync);
        this.resync = new Resync(images, peers);
        this.info = new InfoFromMirrorStatus(images, peers, lastSync);
        this.destination = new DestinationOnPeer(images, peers);
        LOG.info(
                "Ceph RBD driver: {} (conf {}, client.{}), pool {}, {} per call",
                local.site(),
                b.cephConf,
                b.clientId,
                pool,
                CallBudget.seconds(timeout));
    }

    /** A new builder; {@link Builder#cephConf} and {@link Builder#pool} are required. */
    public static Builder builder() {
        return new Builder();
    }

    /** Volumes only: Pacific has no RBD group mirroring, so the runtime answers group sources INVALID_ARGUMENT. */
    @Override
    public Set<ReplicationSource.Kind> supportedSourceKinds() {
        return EnumSet.of(ReplicationSource.Kind.VOLUME);
    }

    /**
     * The readiness check for {@code ReplicationServer.Builder.readiness}: a real read ({@code rbd ls POOL}) within
     * 5 s, its verdict reused for 10 s so that probes stay cheap. A site whose monitor still answers but whose OSDs
     * are gone fails it (the OSD map can still list them up).
     */
    public BooleanSupplier readiness() {
        return () -> {
            CachedVerdict v = readiness;
            if (v != null && System.nanoTime() < v.expiresAt()) {
                return v.ready();
            }
            boolean ready;
            try {
                local.run(CallBudget.of(READINESS_TIMEOUT), "ls", pool);
                ready = true;
            } catch (RuntimeException e) {
                LOG.info("{}: not ready: {}", local.site(), e.getMessage());
                ready = false;
            }
            readiness = new CachedVerdict(ready, System.nanoTime() + READINESS_CACHE.toNanos());
            return ready;
        };
    }

    // --- the RPCs: the request is checked here, the work done by the class that serves the RPC -----------------------

    @Override
    public void enable(EnableRequest r) {
        String id = imageName(r.source());
        Optional<SnapshotSchedule> schedule = SnapshotSchedule.from(r.parameters());
        requireSnapshotMode(r.parameters());
        enableDisable.enable(budget(), id, schedule);
    }

    @Override
    public void disable(DisableRequest r) {
        String id = imageName(r.source());
        enableDisable.disable(budget(), id);
        resync.forget(id);
    }

    @Override
    public void promote(PromoteRequest r) {
        String id = imageName(r.source());
        Optional<SnapshotSchedule> asked = SnapshotSchedule.from(r.parameters());
        promoteDemote.promote(budget(), id, r.force(), asked);
    }

    @Override
    public void demote(DemoteRequest r) {
        String id = imageName(r.source());
        promoteDemote.demote(budget(), id);
    }

    @Override
    public ResyncResult resync(ResyncRequest r) {
        String id = imageName(r.source());
        return resync.resync(budget(), id, r.force());
    }

    @Override
    public ReplicationInfo info(InfoRequest r) {
        String id = imageName(r.source());
        return info.info(budget(), id);
    }

    @Override
    public ReplicationDestination destination(DestinationRequest r) {
        String id = imageName(r.source());
        return destination.destination(budget(), id);
    }

    /** Every replication RPC, GetReplicationDestinationInfo included. */
    @Override
    public Set<Rpc> servedRpcs() {
        return ReplicationDriver.defaultRpcsAnd(Rpc.GET_REPLICATION_DESTINATION_INFO);
    }

    /** Where the peer's key is kept while the driver runs (mode 0600; for tests). */
    Path peerKeyFile() {
        return peers.keyFile();
    }

    /** Kills rbd commands still running and removes the peer's key file. Idempotent. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            runner.close();
            peers.close();
        }
    }

    @Override
    public String toString() {
        return "CephRbdDriver[" + local.site() + ", pool " + pool + "]";
    }

    private CallBudget budget() {
        if (closed.get()) {
            throw new UnavailableException(local.site() + ": the driver is shutting down");
        }
        return CallBudget.forCurrentCall(timeout);
    }

    /**
     * The image name a volume id stands for. RBD names cannot hold {@code /} (a namespace) or {@code @} (a snapshot),
     * and a control character would reach rbd's argument list.
     */
    private static String imageName(ReplicationSource source) {
        String id = source.id();
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (c == '/' || c == '@' || Character.isISOControl(c)) {
                throw new InvalidArgumentException("replication_source.volume.volume_id: \"" + SafeText.escape(id)
                        + "\" cannot name an RBD image (no '/', '@' or control characters)");
            }
        }
        return id;
    }

    private static void requireSnapshotMode(Map<String, String> parameters) {
        String mode = parameters.get(MIRRORING_MODE);
        if (mode != null && !mode.equals("snapshot")) {
            throw new InvalidArgumentException("parameters." + MIRRORING_MODE + ": \"" + SafeText.escape(mode)
                    + "\" is not served by this driver (snapshot only)");
        }
    }

    /** {@code /etc/ceph/site-a.conf} → {@code site-a}. */
    private static String siteName(Path conf) {
        String file = conf.getFileName().toString();
        return file.endsWith(".conf") ? file.substring(0, file.length() - ".conf".length()) : file;
    }

    /**
     * Configures a {@link CephRbdDriver}.
     *
     * <pre>{@code
     * CephRbdDriver.builder().cephConf(Path.of("/etc/ceph/ceph.conf")).clientId("volrep").pool("replicapool")
     *         .timeout(Duration.ofSeconds(20)).build();
     * }</pre>
     */
    public static final class Builder {
        private Path cephConf;
        private String pool;
        private String clientId = "admin";
        private String rbd = "rbd";
        private String siteName;
        private Duration timeout = DEFAULT_TIMEOUT;
        private int maxConcurrentCommands = 8;

        private Builder() {}

        /** The cluster's configuration file (required): its mon addresses and the keyring of {@link #clientId}. */
        public Builder cephConf(Path conf) {
            this.cephConf = Objects.requireNonNull(conf, "conf");
            return this;
        }

        /** The mirrored pool holding the images (required). */
        public Builder pool(String pool) {
            this.pool = Objects.requireNonNull(pool, "pool");
            return this;
        }

        /** The Ceph user without {@code client.} (default {@code admin}). */
        public Builder clientId(String id) {
            this.clientId = Objects.requireNonNull(id, "id");
            return this;
        }

        /** The rbd command (default {@code rbd} on the PATH). */
        public Builder rbd(String command) {
            this.rbd = Objects.requireNonNull(command, "command");
            return this;
        }

        /** How messages name this site (default: the configuration file's name without {@code .conf}). */
        public Builder siteName(String name) {
            this.siteName = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * The budget of one RPC, all its rbd commands together (default 30 s); less when the caller's deadline is
         * sooner. A site that does not answer within it answers 14 UNAVAILABLE.
         */
        public Builder timeout(Duration timeout) {
            this.timeout = Arguments.requirePositive("timeout", timeout);
            return this;
        }

        /** The most rbd processes that run at once (default 8); a call beyond it waits within its budget. */
        public Builder maxConcurrentCommands(int max) {
            this.maxConcurrentCommands = Arguments.requireAtLeast("maxConcurrentCommands", max, 1);
            return this;
        }

        /**
         * The driver, ready to serve (it does not contact Ceph: a site may be down when its plugin starts).
         *
         * @throws IllegalStateException when the configuration file or the pool is missing
         */
        public CephRbdDriver build() {
            if (cephConf == null || pool == null) {
                throw new IllegalStateException("cephConf(path) and pool(name) are required");
            }
            if (!Files.isReadable(cephConf)) {
                throw new IllegalStateException("Ceph configuration " + cephConf + " is not a readable file");
            }
            if (pool.isEmpty() || pool.contains("/") || pool.contains("@")) {
                throw new IllegalStateException("pool \"" + SafeText.escape(pool) + "\" is not a pool name");
            }
            return new CephRbdDriver(this);
        }
    }
}
