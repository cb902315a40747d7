package io.volrep.ceph;

import io.volrep.api.InvalidArgumentException;
import io.volrep.api.ReplicationDestination;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.UnavailableException;
import io.volrep.api.internal.Arguments;
import io.volrep.api.internal.SafeText;
import io.volrep.ceph.internal.rados.Cluster;
import io.volrep.ceph.internal.rados.Natives;
import io.volrep.spi.CallDeadline;
import io.volrep.spi.DemoteRequest;
import io.volrep.spi.DestinationRequest;
import io.volrep.spi.DisableRequest;
import io.volrep.spi.EnableRequest;
import io.volrep.spi.InfoRequest;
import io.volrep.spi.PromoteRequest;
import io.volrep.spi.ReplicationDriver;
import io.volrep.spi.ResyncRequest;
import io.volrep.spi.ResyncResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A CSI-Addons replication driver for Ceph RBD snapshot mirroring: the volume id is the image name in one pool, and
 * every RPC is a handful of librbd and librados calls in the plugin's process, over one connection to the site's
 * cluster that every call reuses (and one to the peer site, made from the credentials bootstrap stored), each within
 * the RPC's budget; a mutation runs to its end even when the budget does not (the caller is answered 10 in time, and
 * the next call on the image waits for it).
 * Both sites run one plugin each; the pool is mirrored in {@code image} mode and peered both ways (rbd-mirror on each
 * site). docs/storage-vendors.md "Real storage" has the mapping table and the decisions behind it.
 *
 * <pre>{@code
 * try (CephRbdDriver driver = CephRbdDriver.builder()
 *         .cephConf(Path.of("/etc/ceph/site-a.conf")).pool("rbd")      // client.admin by default
 *         .timeout(Duration.ofSeconds(30))                             // per RPC, all its Ceph calls together
 *         .build();
 *      ReplicationServer server = ReplicationServer.builder().driver(driver).readiness(driver.readiness())
 *         .identity(CephRbdDriver.PLUGIN_NAME, "0.1.0").listen("unix:///csi/csi-addons.sock").build().start()) {
 *     server.awaitTermination();
 * }
 * }</pre>
 *
 * <p>In short: Enable runs {@code rbd mirror image enable POOL/IMG snapshot} and, with parameter
 * {@code schedulingInterval}, a mirror-snapshot schedule (kept in the image's metadata too, so that the peer applies
 * it when it is promoted); Promote and Demote check the image's role first (librbd refuses to promote a primary or
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
    /** The default budget of one RPC (all its Ceph calls together). */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);
    /** The default number of calls served at once per site ({@link Builder#maxConcurrentCalls}). */
    public static final int DEFAULT_MAX_CONCURRENT_CALLS = 32;
    /** The parameter selecting the mirroring mode, as ceph-csi names it; only {@code snapshot} is served. */
    public static final String MIRRORING_MODE = "mirroringMode";
    /** How long the readiness verdict is reused, and how long a probe waits for it. */
    private static final Duration READINESS_CACHE = Duration.ofSeconds(10);

    private static final Duration READINESS_TIMEOUT = Duration.ofSeconds(5);

    private final SiteCalls local;
    private final String pool;
    private final Duration timeout;
    private final ExecutorService workers;
    private final Semaphore admission;
    private final int maxConcurrentCalls;
    // Each RPC's work lives in the class that serves it, over two shared pieces: LocalPool (this site's Ceph calls,
    // their failures mapped to the error rows) and PeerLookup (the peer site, asked directly).
    private final PeerLookup peers;
    private final EnableDisable enableDisable;
    private final PromoteDemote promoteDemote;
    private final Resync resync;
    private final InfoFromMirrorStatus info;
    private final DestinationOnPeer destination;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Object readinessLock = new Object();
    private volatile CachedVerdict readiness;
    private CompletableFuture<Boolean> readinessCheck;
    private final AtomicInteger readinessChecks = new AtomicInteger();
    private final AtomicLong served = new AtomicLong();

    private record CachedVerdict(boolean ready, long expiresAt) {}

    private CephRbdDriver(Builder b, RbdSite site, Function<PeerCredentials, RbdSite> peerSites) {
        this.pool = b.pool;
        this.timeout = b.timeout;
        this.maxConcurrentCalls = b.maxConcurrentCalls;
        this.admission = new Semaphore(b.maxConcurrentCalls, true);
        AtomicInteger threads = new AtomicInteger();
        this.workers = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "volrep-ceph-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.local = new SiteCalls(site, workers);
        LocalPool images = new LocalPool(local);
        this.peers = new PeerLookup(images, peerSites, workers);
        ImageSchedules schedules = new ImageSchedules(images);
        LastSyncRecord lastSync = new LastSyncRecord(images);
        this.enableDisable = new EnableDisable(images, peers, schedules);
        this.promoteDemote = new PromoteDemote(images, peers, schedules, lastSync);
        this.resync = new Resync(images, peers);
        this.info = new InfoFromMirrorStatus(images, peers, lastSync);
        this.destination = new DestinationOnPeer(images, peers);
        LOG.info(
                "Ceph RBD driver: {} ({}), pool {}, {} per call, at most {} calls at once",
                site.name(),
                site,
                pool,
                CallBudget.seconds(timeout),
                maxConcurrentCalls);
    }

    /** A new builder; {@link Builder#cephConf} and {@link Builder#pool} are required. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Null when librados and librbd can be loaded here, else why not, naming the packages to install ({@code volrep
     * serve-ceph} checks this before it starts).
     */
    public static String nativeLibrariesMissing() {
        return Natives.unavailable();
    }

    /** Volumes only: Pacific has no RBD group mirroring, so the runtime answers group sources INVALID_ARGUMENT. */
    @Override
    public Set<ReplicationSource.Kind> supportedSourceKinds() {
        return EnumSet.of(ReplicationSource.Kind.VOLUME);
    }

    /**
     * The readiness check for {@code ReplicationServer.Builder.readiness}: a real read of the pool (its mirroring
     * mode) within 5 s, its verdict reused for 10 s. One check runs at a time: concurrent probes share its verdict.
     * A site whose monitor still answers but whose OSDs are gone fails it (the OSD map can still list them up).
     */
    public BooleanSupplier readiness() {
        return () -> {
            CachedVerdict v = readiness;
            if (v != null && System.nanoTime() < v.expiresAt()) {
                return v.ready();
            }
            CompletableFuture<Boolean> check;
            synchronized (readinessLock) {
                v = readiness;
                if (v != null && System.nanoTime() < v.expiresAt()) {
                    return v.ready();
                }
                if (readinessCheck == null) {
                    readinessChecks.incrementAndGet();
                    CompletableFuture<Boolean> started = CompletableFuture.supplyAsync(this::checkReadiness, workers);
                    readinessCheck = started;
                    started.whenComplete((ready, failure) -> {
                        synchronized (readinessLock) {
                            readiness = new CachedVerdict(
                                    Boolean.TRUE.equals(ready), System.nanoTime() + READINESS_CACHE.toNanos());
                            readinessCheck = null;
                        }
                    });
                }
                check = readinessCheck;
            }
            try {
                return check.get(READINESS_TIMEOUT.toNanos(), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                LOG.info("{}: not ready: no answer to the readiness read within {}", local.name(), READINESS_TIMEOUT);
                return false;
            } catch (ExecutionException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        };
    }

    private boolean checkReadiness() {
        try {
            local.site().connect();
            local.site().ping();
            return true;
        } catch (RuntimeException e) {
            LOG.info("{}: not ready: {}", local.name(), e.getMessage());
            return false;
        }
    }

    /** How many readiness reads were started (for tests). */
    int readinessChecks() {
        return readinessChecks.get();
    }

    // --- the RPCs: the request is checked here, the work done by the class that serves the RPC -----------------------

    @Override
    public void enable(EnableRequest r) {
        String id = imageName(r.source());
        Optional<SnapshotSchedule> schedule = SnapshotSchedule.from(r.parameters());
        requireSnapshotMode(r.parameters());
        serve(r.deadline(), id, budget -> {
            enableDisable.enable(budget, id, schedule);
            return null;
        });
    }

    @Override
    public void disable(DisableRequest r) {
        String id = imageName(r.source());
        serve(r.deadline(), id, budget -> {
            enableDisable.disable(budget, id);
            resync.forget(budget, id);
            return null;
        });
    }

    @Override
    public void promote(PromoteRequest r) {
        String id = imageName(r.source());
        Optional<SnapshotSchedule> asked = SnapshotSchedule.from(r.parameters());
        serve(r.deadline(), id, budget -> {
            promoteDemote.promote(budget, id, r.force(), asked);
            return null;
        });
    }

    @Override
    public void demote(DemoteRequest r) {
        String id = imageName(r.source());
        serve(r.deadline(), id, budget -> {
            promoteDemote.demote(budget, id);
            return null;
        });
    }

    @Override
    public ResyncResult resync(ResyncRequest r) {
        String id = imageName(r.source());
        return serve(r.deadline(), id, budget -> resync.resync(budget, id, r.force()));
    }

    @Override
    public ReplicationInfo info(InfoRequest r) {
        String id = imageName(r.source());
        return serve(r.deadline(), id, budget -> info.info(budget, id));
    }

    @Override
    public ReplicationDestination destination(DestinationRequest r) {
        String id = imageName(r.source());
        return serve(r.deadline(), id, budget -> destination.destination(budget, id));
    }

    /** Every replication RPC, GetReplicationDestinationInfo included. */
    @Override
    public Set<Rpc> servedRpcs() {
        return ReplicationDriver.defaultRpcsAnd(Rpc.GET_REPLICATION_DESTINATION_INFO);
    }

    /**
     * Serves one RPC on image {@code id}: admitted (at most {@link Builder#maxConcurrentCalls} at once), connected,
     * then given its budget (the wait for either does not spend it: only the caller's deadline bounds it), after any
     * mutation of the image an earlier call left running.
     */
    private <T> T serve(CallDeadline deadline, String id, Function<CallBudget, T> work) {
        if (closed.get()) {
            throw new UnavailableException(local.name() + ": the driver is shutting down");
        }
        served.incrementAndGet();
        CallBudget waiting = CallBudget.within(deadline, timeout.multipliedBy(2));
        try {
            if (!admission.tryAcquire(waiting.remainingNanos(), TimeUnit.NANOSECONDS)) {
                throw new UnavailableException(local.name() + ": all " + maxConcurrentCalls + " call slots of this"
                        + " site stayed busy until the caller's deadline (--max-concurrent-calls); retry");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UnavailableException(local.name() + ": interrupted waiting for a call slot");
        }
        try {
            local.read(waiting, "the connection", s -> {
                s.connect();
                return null;
            });
            CallBudget budget = CallBudget.within(deadline, timeout);
            local.awaitSettled(budget, id);
            return work.apply(budget);
        } catch (RbdException e) {
            throw new UnavailableException(local.name() + ": Ceph cannot be reached (" + e.detail() + "); retry later");
        } finally {
            admission.release();
        }
    }

    /**
     * Stops serving; once the Ceph calls still running have ended (within the call timeout), closes the connections.
     * A call that does not end in time keeps its connection open rather than have it freed under it. Idempotent.
     */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            LOG.info(
                    "{}: {} calls served with {} questions and changes to this site and {} to the peer",
                    local.name(),
                    served.get(),
                    local.calls(),
                    peers.calls());
            workers.shutdown();
            boolean ended;
            try {
                ended = workers.awaitTermination(timeout.toNanos(), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                ended = false;
            }
            if (!ended) {
                LOG.warn("{}: Ceph calls still running at shutdown; their connections are left open", local.name());
                return;
            }
            peers.close();
            local.site().close();
        }
    }

    @Override
    public String toString() {
        return "CephRbdDriver[" + local.name() + ", pool " + pool + "]";
    }

    /** The site's calls (for tests). */
    SiteCalls localCalls() {
        return local;
    }

    /**
     * The image name a volume id stands for. RBD names cannot hold {@code /} (a namespace) or {@code @} (a snapshot);
     * a control character or a leading {@code -} (which a command line reads as an option) is refused too.
     */
    private static String imageName(ReplicationSource source) {
        String id = source.id();
        if (id.startsWith("-")) {
            throw new InvalidArgumentException("replication_source.volume.volume_id: \"" + SafeText.escape(id)
                    + "\" cannot name an RBD image here (it begins with '-')");
        }
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
    private static String siteNameOf(Path conf) {
        String file = conf.getFileName().toString();
        return file.endsWith(".conf") ? file.substring(0, file.length() - ".conf".length()) : file;
    }

    /**
     * Configures a {@link CephRbdDriver}.
     *
     * <pre>{@code
     * CephRbdDriver.builder().cephConf(Path.of("/etc/ceph/ceph.conf")).clientId("volrep").pool("replicapool")
     *         .timeout(Duration.ofSeconds(20)).maxConcurrentCalls(64).build();
     * }</pre>
     */
    public static final class Builder {
        private Path cephConf;
        private String pool;
        private String clientId = "admin";
        private String siteName;
        private Duration timeout = DEFAULT_TIMEOUT;
        private int maxConcurrentCalls = DEFAULT_MAX_CONCURRENT_CALLS;
        private Supplier<RbdSite> site;
        private Function<PeerCredentials, RbdSite> peerSites;

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

        /** How messages name this site (default: the configuration file's name without {@code .conf}). */
        public Builder siteName(String name) {
            this.siteName = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * The budget of one RPC, all its Ceph calls together (default 30 s); less when the caller's deadline is
         * sooner. It is also Ceph's own client timeout on this site's connection ({@code client_mount_timeout},
         * {@code rados_mon_op_timeout}, {@code rados_osd_op_timeout}). A site that does not answer within it answers
         * 14 UNAVAILABLE; a mutation still running then answers 10 ABORTED and runs to its end in the plugin.
         */
        public Builder timeout(Duration timeout) {
            this.timeout = Arguments.requirePositive("timeout", timeout);
            return this;
        }

        /**
         * The most calls this site serves at once (default {@value #DEFAULT_MAX_CONCURRENT_CALLS}); a call beyond it
         * waits for a slot until its caller's deadline, and its budget starts once it has one.
         */
        public Builder maxConcurrentCalls(int max) {
            this.maxConcurrentCalls = Arguments.requireAtLeast("maxConcurrentCalls", max, 1);
            return this;
        }

        /** Tests: the sites are given, not connected through librbd. */
        Builder sites(Supplier<RbdSite> site, Function<PeerCredentials, RbdSite> peerSites) {
            this.site = site;
            this.peerSites = peerSites;
            return this;
        }

        /**
         * The driver, ready to serve (it does not contact Ceph: a site may be down when its plugin starts).
         *
         * @throws IllegalStateException when the configuration file or the pool is missing, or librados and librbd
         *                               are not installed (the message names the packages)
         */
        public CephRbdDriver build() {
            if (pool == null || (site == null && cephConf == null)) {
                throw new IllegalStateException("cephConf(path) and pool(name) are required");
            }
            if (pool.isEmpty() || pool.contains("/") || pool.contains("@") || pool.startsWith("-")) {
                throw new IllegalStateException("pool \"" + SafeText.escape(pool) + "\" is not a pool name");
            }
            if (site != null) {
                return new CephRbdDriver(this, site.get(), peerSites);
            }
            if (!Files.isReadable(cephConf)) {
                throw new IllegalStateException("Ceph configuration " + cephConf + " is not a readable file");
            }
            String missing = Natives.unavailable();
            if (missing != null) {
                throw new IllegalStateException(missing);
            }
            String name = "site " + (siteName != null ? siteName : siteNameOf(cephConf));
            Duration peerTimeout = PeerSite.QUESTION_TIME;
            RbdSite local = new LibrbdSite(name, Cluster.fromConf("client." + clientId, cephConf, timeout), pool);
            return new CephRbdDriver(this, local, peer -> LibrbdSite.peer(peer, pool, peerTimeout));
        }
    }
}
