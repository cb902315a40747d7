package io.volrep.ceph;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.volrep.api.Arguments;
import io.volrep.api.InvalidArgumentException;
import io.volrep.api.OperationPendingException;
import io.volrep.api.PreconditionFailedException;
import io.volrep.api.ReplicationDestination;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.SafeText;
import io.volrep.api.SourceNotFoundException;
import io.volrep.api.UnavailableException;
import io.volrep.api.UnknownErrorException;
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
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
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
    /** How long the peer's credentials and the readiness verdict are reused. */
    private static final Duration PEER_CACHE = Duration.ofSeconds(60);
    private static final Duration READINESS_CACHE = Duration.ofSeconds(10);
    private static final Duration READINESS_TIMEOUT = Duration.ofSeconds(5);
    private static final String PEER_KEY_FILE = "peer.key";
    /** Where Promote keeps, in the image's metadata, when the promoted copy was last in sync (epoch seconds). */
    static final String META_LAST_SYNC = "volrep.lastSyncTime";

    private final RbdCli local;
    private final String pool;
    private final Duration timeout;
    private final ProcessRunner runner;
    private final Path keyDirectory;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Images this driver flagged for resync, with the image id they had: a resync recreates the image. */
    private final ConcurrentMap<String, String> resyncRequested = new ConcurrentHashMap<>();
    private volatile CachedPeer peer;
    private volatile CachedVerdict readiness;

    private record CachedPeer(Optional<PeerSite> site, long expiresAt) {
    }

    private record CachedVerdict(boolean ready, long expiresAt) {
    }

    private CephRbdDriver(Builder b) {
        this.pool = b.pool;
        this.timeout = b.timeout;
        this.runner = new ProcessRunner(RbdCli.MAX_STDOUT_BYTES, RbdCli.STDERR_BYTES, List.of());
        String site = b.siteName != null ? b.siteName : siteName(b.cephConf);
        this.local = new RbdCli("site " + site, b.rbd, List.of("-c", b.cephConf.toString(), "--id", b.clientId),
                runner, b.maxConcurrentCommands);
        try {
            this.keyDirectory = Files.createTempDirectory("volrep-ceph-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a private directory for the peer's key", e);
        }
        LOG.info("Ceph RBD driver: {} (conf {}, client.{}), pool {}, {} per call", local.site(), b.cephConf,
                b.clientId, pool, CallBudget.seconds(timeout));
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

    // --- the RPCs ---------------------------------------------------------------------------------------------------

    @Override
    public void enable(EnableRequest r) {
        String id = imageName(r.source());
        Optional<SnapshotSchedule> schedule = SnapshotSchedule.from(r.parameters());
        requireSnapshotMode(r.parameters());
        CallBudget budget = budget();
        RbdImage image = image(budget, id);
        if (image.disabling()) {
            throw new OperationPendingException(local.site() + ": mirroring of " + id + " is still being disabled;"
                    + " retry");
        }
        if (image.enabled() && !"snapshot".equals(image.mode())) {
            throw new UnknownErrorException(local.site() + ": " + id + " is mirrored in " + SafeText.escape(image.mode())
                    + " mode; this driver serves snapshot mirroring only (disable it with rbd first)");
        }
        boolean primary = image.primary();
        if (!image.enabled()) {
            try {
                local.run(budget, "mirror", "image", "enable", spec(id), "snapshot");
            } catch (RbdException e) {
                throw failure(e, id, "enable mirroring of");
            }
            primary = true;     // enabling makes the image primary and takes its first mirror snapshot
        }
        if (primary && schedule.isPresent()) {
            applySchedule(budget, id, schedule.get(), true);
        }
    }

    @Override
    public void disable(DisableRequest r) {
        String id = imageName(r.source());
        CallBudget budget = budget();
        RbdImage image = image(budget, id);
        if (image.disabling()) {
            throw new OperationPendingException(local.site() + ": mirroring of " + id + " is still being disabled;"
                    + " retry");
        }
        if (!image.enabled()) {
            return;     // idempotent: not mirrored
        }
        if (!image.primary()) {
            // rbd disables only a primary; forcing it on a copy whose peer is not primary leaves the peer's copy
            // behind for ever (rbd-mirror never deletes it) and the next enable finds a split-brain. Promote first,
            // then disable as the primary: rbd-mirror then deletes the peer's copy.
            PeerSite.Answer there = askPeer(budget, id);
            if (there.role() == PeerSite.Role.PRIMARY) {
                // The peer holds the primary: this copy is detached (disabled with force) and stays as a plain image
                // here; the peer keeps its primary.
                LOG.warn("{}: {} is non-primary and primary on {}: disabling this copy with force", local.site(), id,
                        peerName());
                removeSchedule(budget, id);
                run(budget, id, "disable mirroring of (forced)", "mirror", "image", "disable", "--force", spec(id));
                return;
            }
            try {
                local.run(budget, "mirror", "image", "promote", spec(id));
            } catch (RbdException e) {
                if (!isPromoteRefusal(e)) {
                    throw failure(e, id, "promote (before disabling)");
                }
                if (there.role() == PeerSite.Role.UNREACHABLE) {
                    throw new UnavailableException(local.site() + ": " + id + " is non-primary and cannot be promoted"
                            + " before disabling (" + e.detail() + "); " + peerName() + " does not answer, so whether"
                            + " it holds the primary is unknown and disabling now could orphan a copy; retry once it"
                            + " answers (" + there.why() + ")");
                }
                throw new OperationPendingException(local.site() + ": " + id + " is non-primary and cannot be promoted"
                        + " before disabling yet: the peer's demotion has not arrived (" + e.detail() + "); retry"
                        + " with back-off");
            }
        }
        // rbd-mirror deletes the peer's copy only if it is a copy of this primary: right after a failback, a peer
        // whose copy still ends with its own demotion (it has not replayed this site yet) would keep it for ever.
        Optional<PeerSite> site = peer(budget);
        if (site.isPresent() && site.get().endsWithItsOwnDemotion(id, budget)) {
            throw new OperationPendingException(local.site() + ": site " + site.get().name() + "'s copy of " + id
                    + " still ends with its own demotion: it has not replayed this site's promotion yet, and disabling"
                    + " now would leave it behind; retry with back-off");
        }
        removeSchedule(budget, id);
        forgetMetadata(budget, id);
        run(budget, id, "disable mirroring of", "mirror", "image", "disable", spec(id));
    }

    @Override
    public void promote(PromoteRequest r) {
        String id = imageName(r.source());
        Optional<SnapshotSchedule> asked = SnapshotSchedule.from(r.parameters());
        CallBudget budget = budget();
        RbdImage image = image(budget, id);
        requireEnabled(image, id);
        if (!image.primary()) {
            // When this copy was last in sync, read before promoting: a forced promote drops its received snapshots.
            Optional<Instant> inSyncAt = lastReceivedSync(budget, id);
            if (r.force()) {
                run(budget, id, "promote (forced)", "mirror", "image", "promote", "--force", spec(id));
            } else {
                promoteUnforced(budget, id);
            }
            inSyncAt.ifPresent(t -> recordLastSync(budget, id, t));
        }
        // The schedule follows the primary: the one asked for, else the one the former primary recorded.
        Optional<SnapshotSchedule> schedule = asked.isPresent() ? asked : SnapshotSchedule.fromMetadata(metadata(budget, id));
        if (schedule.isPresent()) {
            applySchedule(budget, id, schedule.get(), asked.isPresent());
        }
    }

    @Override
    public void demote(DemoteRequest r) {
        String id = imageName(r.source());
        CallBudget budget = budget();
        RbdImage image = image(budget, id);
        requireEnabled(image, id);
        if (!image.primary()) {
            return;     // idempotent: rbd would answer EINVAL
        }
        try {
            local.run(budget, "mirror", "image", "demote", spec(id));
        } catch (RbdException e) {
            if (e.errno() == RbdException.EBUSY || e.errno() == RbdException.EROFS) {
                throw new OperationPendingException(local.site() + ": " + id + " is busy and cannot be demoted yet ("
                        + e.detail() + "); retry with back-off");
            }
            throw failure(e, id, "demote");
        }
    }

    @Override
    public ResyncResult resync(ResyncRequest r) {
        String id = imageName(r.source());
        CallBudget budget = budget();
        RbdImage image;
        try {
            image = RbdImage.parse(id, local.json(budget, "info", spec(id)));
        } catch (RbdException e) {
            // rbd-mirror moves the image to the trash, removes it and creates it anew: between the two it exists
            // nowhere, so an image this driver flagged counts as being resynced too
            if (e.errno() == RbdException.ENOENT && (resyncRequested.containsKey(id) || resyncUnderWay(budget, id))) {
                return ResyncResult.IN_PROGRESS;
            }
            throw failure(e, id, "read");
        }
        requireEnabled(image, id);
        if (image.primary()) {
            throw new PreconditionFailedException(local.site() + ": " + id + " is primary: only a demoted image is"
                    + " resynced (demote it first)");
        }
        String flaggedId = resyncRequested.get(id);
        if (flaggedId != null && flaggedId.equals(image.id())) {
            return ResyncResult.IN_PROGRESS;        // flagged; rbd-mirror has not recreated it yet
        }
        MirrorStatus status = MirrorStatus.parse(json(budget, id, "read the mirror status of", "mirror", "image",
                "status", spec(id)));
        // Only a split-brain needs a full copy: a copy that is merely behind catches up by replaying, and another
        // error right after a recreation can be transient (flagging again would start the copy over).
        boolean needed = (status.state().equals("up+error") && status.description().contains("split-brain"))
                || (r.force() && flaggedId == null);
        if (needed) {
            LOG.info("{}: {} {}: flagging it for a full resync from the primary", local.site(), id,
                    r.force() ? "resync forced" : "split-brain (" + SafeText.escape(status.description()) + ")");
            run(budget, id, "flag for resync", "mirror", "image", "resync", spec(id));
            resyncRequested.put(id, image.id());
            return ResyncResult.IN_PROGRESS;
        }
        Optional<MirrorStatus.Sync> sync = status.localSync();
        boolean ready = status.state().equals("up+replaying") && sync.isPresent() && !sync.get().behind();
        if (ready) {
            resyncRequested.remove(id);
        }
        return ready ? ResyncResult.READY : ResyncResult.IN_PROGRESS;
    }

    @Override
    public ReplicationInfo info(InfoRequest r) {
        String id = imageName(r.source());
        CallBudget budget = budget();
        RbdImage image = image(budget, id);
        requireEnabled(image, id);
        if (!image.primary()) {
            throw new PreconditionFailedException(local.site() + ": " + id + " is not promoted (it is the non-primary"
                    + " copy here): replication info is answered by the primary's site");
        }
        MirrorStatus status = MirrorStatus.parse(json(budget, id, "read the mirror status of", "mirror", "image",
                "status", spec(id)));
        MirrorStatus.Health health = status.health(id);
        Optional<MirrorStatus.Sync> last = status.lastSync();
        if (last.isPresent()) {
            ReplicationInfo info = ReplicationInfo.of(last.get().snapshotTime());
            if (last.get().duration().isPresent()) {
                info = info.withLastSyncDuration(last.get().duration().get());
            }
            if (last.get().bytes().isPresent()) {
                info = info.withLastSyncBytes(last.get().bytes().getAsLong());
            }
            return info.withStatus(health.status(), health.message());
        }
        // No peer has synced from this primary yet. An image promoted from a copy was last in sync with the other
        // site when its last received snapshot was taken (what a failover keeps): Promote recorded it.
        Optional<Instant> received = Optional.ofNullable(metadata(budget, id).get(META_LAST_SYNC))
                .flatMap(CephRbdDriver::epochSeconds);
        if (received.isPresent()) {
            return ReplicationInfo.of(received.get()).withStatus(
                    health.status() == ReplicationInfo.Status.ERROR ? ReplicationInfo.Status.ERROR
                            : ReplicationInfo.Status.DEGRADED,
                    "no peer has synced " + id + " since it became primary here; its data was last in sync at "
                            + received.get() + " (the last snapshot it received)"
                            + (health.message().isEmpty() ? "" : "; " + health.message()));
        }
        throw new SourceNotFoundException(local.site() + ": replication details of " + id + " are not available at"
                + " the moment: no peer has completed a first sync yet"
                + (health.message().isEmpty() ? "" : " (" + health.message() + ")"));
    }

    @Override
    public ReplicationDestination destination(DestinationRequest r) {
        String id = imageName(r.source());
        CallBudget budget = budget();
        RbdImage image = image(budget, id);
        requireEnabled(image, id);
        Optional<PeerSite> site = peer(budget);
        if (site.isEmpty()) {
            // RBD creates the peer's copy under the same name; without the peer's credentials it cannot be checked.
            LOG.debug("{}: no peer credentials readable; answering the destination {} unverified", local.site(), id);
            return ReplicationDestination.volume(id);
        }
        PeerSite.Answer there = site.get().role(id, budget);
        switch (there.role()) {
            case ABSENT -> throw new UnavailableException(local.site() + ": " + site.get().name() + " has no copy of "
                    + id + " yet (rbd-mirror creates it after the image is enabled); retry");
            case NOT_MIRRORED -> throw new UnavailableException(local.site() + ": " + site.get().name() + "'s " + id
                    + " is not mirrored (yet): rbd-mirror creates the copy, then mirrors it; retry (if this lasts, it"
                    + " is a leftover image of that name on " + site.get().name() + ")");
            case UNREACHABLE -> throw new UnavailableException(local.site() + ": " + site.get().name()
                    + " does not answer, so " + id + "'s copy there cannot be verified; retry (" + there.why() + ")");
            default -> {
            }
        }
        RbdImage copy = there.image().orElseThrow();
        if (!copy.globalId().equals(image.globalId())) {
            // After a disable and a new enable, the peer deletes its copy of the earlier mirroring (a few seconds)
            // before it creates this one: not known yet, as the table's 14 says. A copy that stays is an orphan.
            throw new UnavailableException(local.site() + ": " + site.get().name() + " still holds a copy of an earlier"
                    + " mirroring of " + id + " (mirroring global id " + SafeText.escape(copy.globalId()) + ", here "
                    + SafeText.escape(image.globalId()) + "); rbd-mirror deletes it before it creates this one; retry"
                    + " (if this lasts, that copy is an orphan: inspect " + site.get().name() + ")");
        }
        return ReplicationDestination.volume(id);
    }

    /** Where the peer's key is kept while the driver runs (mode 0600; for tests). */
    Path peerKeyFile() {
        return keyDirectory.resolve(PEER_KEY_FILE);
    }

    /** Kills rbd commands still running and removes the peer's key file. Idempotent. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            runner.close();
            try (var files = Files.list(keyDirectory)) {
                for (Path f : files.toList()) {
                    Files.deleteIfExists(f);
                }
                Files.deleteIfExists(keyDirectory);
            } catch (IOException e) {
                LOG.warn("cannot remove {}: {}", keyDirectory, e.toString());
            }
        }
    }

    @Override
    public String toString() {
        return "CephRbdDriver[" + local.site() + ", pool " + pool + "]";
    }

    // --- the refusal of an unforced promote --------------------------------------------------------------------------

    /**
     * rbd's refusals of an unforced promote that can be the demotion window: EBUSY "image is primary within a remote
     * cluster or demotion is not propagated yet", and EROFS "failed to create mirror snapshot: Read-only file system"
     * (the demotion arrived; the local rbd-mirror still holds the image for a moment).
     */
    private static boolean isPromoteRefusal(RbdException e) {
        return e.errno() == RbdException.EBUSY || e.errno() == RbdException.EROFS;
    }

    /**
     * Which row a refusal is. The same rbd message covers a peer that holds the primary (a precondition: only force
     * promotes) and a peer whose demotion is still on its way (for 1-5 s after it: an operation pending for this
     * source, which the caller retries with back-off). Answering 9 in the window would invite a forced promote,
     * which there throws away what the demotion was carrying; so the peer is asked directly.
     */
    private RuntimeException promoteRefusal(PeerSite.Answer there, String id, RbdException e) {
        if (e.errno() == RbdException.EROFS) {
            return new OperationPendingException(local.site() + ": the peer's demotion of " + id + " has arrived but"
                    + " rbd-mirror still holds the image here (" + e.detail() + "); retry with back-off");
        }
        return switch (there.role()) {
            case PRIMARY -> peerHoldsThePrimary(id);
            case UNREACHABLE -> new PreconditionFailedException(local.site() + ": " + id + " cannot be promoted"
                    + " without force: " + peerName() + " does not answer, so no demotion can arrive from it ("
                    + there.why() + ")");
            case NOT_MIRRORED, ABSENT -> new PreconditionFailedException(local.site() + ": " + id + " cannot be"
                    + " promoted without force: " + peerName() + " has no mirrored copy of it to demote");
            case NON_PRIMARY -> new OperationPendingException(local.site() + ": " + peerName() + " has demoted " + id
                    + ", but the demotion has not reached this site yet (" + e.detail() + "); retry with back-off");
        };
    }

    /**
     * An unforced promote of a non-primary copy. The peer is asked first: rbd itself promotes a copy whose last
     * snapshot is its own demotion, which right after a failover to the peer (before the peer's promotion has
     * arrived here) makes two primaries. Then rbd's refusals are told apart by that answer ({@link #promoteRefusal}).
     */
    private void promoteUnforced(CallBudget budget, String id) {
        PeerSite.Answer there = askPeer(budget, id);
        if (there.role() == PeerSite.Role.PRIMARY) {
            throw peerHoldsThePrimary(id);
        }
        try {
            local.run(budget, "mirror", "image", "promote", spec(id));
        } catch (RbdException e) {
            if (isPromoteRefusal(e)) {
                throw promoteRefusal(there, id, e);
            }
            throw failure(e, id, "promote");
        }
    }

    private PreconditionFailedException peerHoldsThePrimary(String id) {
        return new PreconditionFailedException(local.site() + ": " + id + " cannot be promoted without force: it is"
                + " primary on " + peerName() + " (promote with force only when that site is lost: both sites would be"
                + " primary)");
    }

    /** The peer's answer about {@code id}; without readable peer credentials, a non-primary guess (never a force). */
    private PeerSite.Answer askPeer(CallBudget budget, String id) {
        Optional<PeerSite> site;
        try {
            site = peer(budget);
        } catch (RuntimeException e) {
            return new PeerSite.Answer(PeerSite.Role.UNREACHABLE, Optional.empty(), e.getMessage());
        }
        if (site.isEmpty()) {
            // Unknown: answer as the window (10, retried), never as a precondition that invites a forced promote.
            return new PeerSite.Answer(PeerSite.Role.NON_PRIMARY, Optional.empty(), "");
        }
        return site.get().role(id, budget);
    }

    private String peerName() {
        CachedPeer p = peer;
        return p != null && p.site().isPresent() ? "site " + SafeText.escape(p.site().get().name()) : "the peer site";
    }

    private Optional<PeerSite> peer(CallBudget budget) {
        CachedPeer p = peer;
        if (p != null && System.nanoTime() < p.expiresAt()) {
            return p.site();
        }
        Optional<PeerSite> site;
        try {
            site = PeerSite.discover(local, pool, budget.capped(PeerSite.QUESTION_TIME),
                    peerKeyFile());
        } catch (RbdException e) {
            LOG.info("{}: cannot read the peer's credentials ({}); the peer site will not be asked", local.site(),
                    e.detail());
            site = Optional.empty();
        }
        peer = new CachedPeer(site, System.nanoTime() + PEER_CACHE.toNanos());
        return site;
    }

    // --- helpers ----------------------------------------------------------------------------------------------------

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

    private String spec(String id) {
        return pool + "/" + id;
    }

    /** {@code rbd info}: the image and its mirroring role; 5 NOT_FOUND when it does not exist. */
    private RbdImage image(CallBudget budget, String id) {
        return RbdImage.parse(id, json(budget, id, "read", "info", spec(id)));
    }

    private void requireEnabled(RbdImage image, String id) {
        if (!image.enabled()) {
            throw new PreconditionFailedException(local.site() + ": replication is not enabled for " + id
                    + (image.disabling() ? " (mirroring is being disabled)" : ""));
        }
    }

    private JsonElement json(CallBudget budget, String id, String what, String... args) {
        try {
            return local.json(budget, args);
        } catch (RbdException e) {
            throw failure(e, id, what);
        }
    }

    private String run(CallBudget budget, String id, String what, String... args) {
        try {
            return local.run(budget, args);
        } catch (RbdException e) {
            throw failure(e, id, what);
        }
    }

    /**
     * An rbd failure the RPC has no special row for: 5 when the image is missing, 14 when Ceph cannot be reached, else
     * 2, naming the condition and what rbd said. (rbd answers ENOENT for other things too: a schedule or a metadata key
     * that does not exist, which are not the source's absence.)
     */
    private RuntimeException failure(RbdException e, String id, String what) {
        if (e.errno() == RbdException.ENOENT && (e.command().startsWith("info ") || e.says("error opening image"))) {
            return new SourceNotFoundException(local.site() + ": image " + id + " does not exist in pool " + pool);
        }
        if (e.unreachable()) {
            return new UnavailableException(local.site() + ": Ceph cannot be reached to " + what + " " + id + " ("
                    + e.detail() + "); retry later");
        }
        if (e.errno() == RbdException.EACCES || e.errno() == RbdException.EPERM) {
            return new UnknownErrorException(local.site() + ": the plugin's Ceph user may not " + what + " " + id
                    + " (" + e.detail() + "): check its caps");
        }
        if (e.says("mirroring not enabled on the pool") || e.says("mirroring is not enabled")) {
            return new UnknownErrorException(local.site() + ": pool " + pool + " is not mirrored in image mode, so "
                    + id + " cannot be (rbd mirror pool enable " + pool + " image): " + e.detail());
        }
        return new UnknownErrorException(local.site() + ": cannot " + what + " " + id + ": rbd exited " + e.errno()
                + ": " + e.detail());
    }

    private Map<String, String> metadata(CallBudget budget, String id) {
        JsonElement meta = json(budget, id, "read the metadata of", "image-meta", "list", spec(id));
        Map<String, String> values = new LinkedHashMap<>();
        if (meta.isJsonObject()) {
            meta.getAsJsonObject().entrySet().forEach(e -> values.put(e.getKey(),
                    e.getValue().isJsonPrimitive() ? e.getValue().getAsString() : ""));
        }
        return values;
    }

    /**
     * Makes {@code schedule} the image's only image-level mirror-snapshot schedule (pool-level schedules set by an
     * administrator stay), and with {@code record} keeps it in the image's metadata, which the peer receives.
     */
    private void applySchedule(CallBudget budget, String id, SnapshotSchedule schedule, boolean record) {
        if (record) {
            Map<String, String> meta = metadata(budget, id);
            if (!schedule.interval().equals(meta.get(SnapshotSchedule.META_INTERVAL))) {
                run(budget, id, "record the schedule of", "image-meta", "set", spec(id), SnapshotSchedule.META_INTERVAL,
                        schedule.interval());
            }
            if (!schedule.startTime().equals(meta.getOrDefault(SnapshotSchedule.META_START_TIME, ""))) {
                if (schedule.startTime().isEmpty()) {
                    run(budget, id, "record the schedule of", "image-meta", "remove", spec(id),
                            SnapshotSchedule.META_START_TIME);
                } else {
                    run(budget, id, "record the schedule of", "image-meta", "set", spec(id),
                            SnapshotSchedule.META_START_TIME, schedule.startTime());
                }
            }
        }
        JsonElement current;
        try {
            current = local.json(budget, "mirror", "snapshot", "schedule", "ls", "--pool", pool, "--image", id);
        } catch (RbdException e) {
            if (e.errno() != RbdException.ENOENT) {
                throw failure(e, id, "read the snapshot schedule of");
            }
            current = new com.google.gson.JsonArray();     // rbd answers ENOENT, printing nothing, for no schedule
        }
        if (current.isJsonArray() && current.getAsJsonArray().size() == 1) {
            JsonObject only = current.getAsJsonArray().get(0).getAsJsonObject();
            if (schedule.interval().equals(string(only, "interval"))
                    && schedule.startTime().equals(string(only, "start_time"))) {
                return;
            }
        }
        if (current.isJsonArray() && current.getAsJsonArray().size() > 0) {
            removeSchedule(budget, id);
        }
        try {
            if (schedule.startTime().isEmpty()) {
                local.run(budget, "mirror", "snapshot", "schedule", "add", "--pool", pool, "--image", id,
                        schedule.interval());
            } else {
                local.run(budget, "mirror", "snapshot", "schedule", "add", "--pool", pool, "--image", id,
                        schedule.interval(), schedule.startTime());
            }
        } catch (RbdException e) {
            if (e.errno() == RbdException.EINVAL && e.says("start time")) {
                throw new InvalidArgumentException("parameters." + SnapshotSchedule.START_TIME + ": rbd refused it: "
                        + e.detail());
            }
            throw failure(e, id, "schedule mirror snapshots of");
        }
    }

    /** Removes what this driver kept in the image's metadata (schedule, last sync), so that no later era reads it. */
    private void forgetMetadata(CallBudget budget, String id) {
        for (String key : metadata(budget, id).keySet()) {
            if (key.startsWith("volrep.")) {
                run(budget, id, "remove the metadata of", "image-meta", "remove", spec(id), key);
            }
        }
    }

    private void removeSchedule(CallBudget budget, String id) {
        try {
            local.run(budget, "mirror", "snapshot", "schedule", "remove", "--pool", pool, "--image", id);
        } catch (RbdException e) {
            if (e.errno() != RbdException.ENOENT) {     // ENOENT: the pool never had a schedule
                throw failure(e, id, "remove the snapshot schedule of");
            }
        }
    }

    /** True when rbd-mirror has the image in the trash: it deletes and recreates an image to resync it. */
    private boolean resyncUnderWay(CallBudget budget, String id) {
        JsonElement trash = json(budget, id, "read the trash for", "trash", "ls", pool, "--all", "--long");
        if (trash.isJsonArray()) {
            for (JsonElement e : trash.getAsJsonArray()) {
                JsonObject o = e.getAsJsonObject();
                if (id.equals(string(o, "name")) && "MIRRORING".equalsIgnoreCase(string(o, "source"))) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * When this non-primary copy was last in sync: the primary's time of the last snapshot it completed, from its
     * replayer's report, else the newest complete snapshot it received ({@code rbd snap ls --all}, the copy's own
     * time of it); empty when neither is known. Best effort: a failure here never stops a promote.
     */
    private Optional<Instant> lastReceivedSync(CallBudget budget, String id) {
        try {
            Optional<MirrorStatus.Sync> own = MirrorStatus.parse(local.json(budget, "mirror", "image", "status",
                    spec(id))).localSync();
            return own.isPresent() ? Optional.of(own.get().snapshotTime()) : lastReceivedSnapshot(budget, id);
        } catch (RbdException e) {
            LOG.debug("{}: cannot tell when {} was last in sync: {}", local.site(), id, e.getMessage());
            return Optional.empty();
        }
    }

    /** Keeps {@code time} in the image's metadata for Info (best effort: the promote has happened). */
    private void recordLastSync(CallBudget budget, String id, Instant time) {
        try {
            local.run(budget, "image-meta", "set", spec(id), META_LAST_SYNC, Long.toString(time.getEpochSecond()));
        } catch (RuntimeException e) {
            LOG.warn("{}: {} promoted, but its last sync time ({}) could not be recorded: {}", local.site(), id, time,
                    e.getMessage());
        }
    }

    private static Optional<Instant> epochSeconds(String text) {
        try {
            return Optional.of(Instant.ofEpochSecond(Long.parseLong(text.strip())));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /**
     * The newest complete mirror snapshot this image received as a non-primary copy ({@code rbd snap ls --all}: a
     * mirror snapshot naming its primary), or empty.
     */
    private Optional<Instant> lastReceivedSnapshot(CallBudget budget, String id) {
        JsonElement snaps = json(budget, id, "list the snapshots of", "snap", "ls", "--all", spec(id));
        Instant newest = null;
        if (snaps.isJsonArray()) {
            for (JsonElement e : snaps.getAsJsonArray()) {
                JsonObject s = e.getAsJsonObject();
                JsonObject ns = s.has("namespace") && s.get("namespace").isJsonObject()
                        ? s.getAsJsonObject("namespace") : null;
                if (ns == null || !"mirror".equals(string(ns, "type")) || !ns.has("primary_mirror_uuid")
                        || !(ns.has("complete") && ns.get("complete").getAsBoolean())) {
                    continue;
                }
                Optional<Instant> t = snapshotTime(string(s, "timestamp"));
                if (t.isPresent() && (newest == null || t.get().isAfter(newest))) {
                    newest = t.get();
                }
            }
        }
        return Optional.ofNullable(newest);
    }

    private static final DateTimeFormatter SNAPSHOT_TIME = DateTimeFormatter.ofPattern("MMM d yyyy HH:mm:ss",
            Locale.ROOT);

    /** rbd's {@code Thu Nov 26 04:13:02 2026} (ctime format, UTC: rbd runs with TZ=UTC). */
    static Optional<Instant> snapshotTime(String text) {
        String[] p = text.strip().split("\\s+");
        if (p.length != 5) {
            return Optional.empty();
        }
        try {
            return Optional.of(LocalDateTime.parse(p[1] + " " + p[2] + " " + p[4] + " " + p[3], SNAPSHOT_TIME)
                    .toInstant(ZoneOffset.UTC));
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    private static String string(JsonObject o, String key) {
        JsonElement e = o.get(key);
        return e == null || e.isJsonNull() ? "" : e.getAsString();
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

        private Builder() {
        }

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
