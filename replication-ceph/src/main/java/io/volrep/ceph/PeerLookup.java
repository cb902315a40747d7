package io.volrep.ceph;

import io.volrep.api.internal.SafeText;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the pool's peer site ({@link PeerSite#discover}: from the credentials that bootstrap stored in the local
 * cluster) and reuses what it found, or that there is none, for 60 s. The peer's key is kept in a file of a directory
 * only this process's user can read (mode 0700), removed by {@link #close()}.
 *
 * <pre>{@code
 * PeerLookup peers = new PeerLookup(local, "rbd");
 * PeerSite.Answer there = peers.ask(budget, "vol-0");      // the image's role at the peer, or why it is unknown
 * }</pre>
 */
final class PeerLookup implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PeerLookup.class);
    /** How long the peer's credentials (or their absence) are reused. */
    private static final Duration PEER_CACHE = Duration.ofSeconds(60);

    private static final String PEER_KEY_FILE = "peer.key";

    private final RbdCli local;
    private final String pool;
    private final Path keyDirectory;
    private volatile CachedPeer peer;

    private record CachedPeer(Optional<PeerSite> site, long expiresAt) {}

    /** Creates the private directory for the peer's key; asks nothing yet. */
    PeerLookup(RbdCli local, String pool) {
        this.local = local;
        this.pool = pool;
        try {
            this.keyDirectory = Files.createTempDirectory(
                    "volrep-ceph-", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a private directory for the peer's key", e);
        }
    }

    /** The peer site, empty when the pool has none or its credentials cannot be read. */
    Optional<PeerSite> site(CallBudget budget) {
        CachedPeer p = peer;
        if (p != null && System.nanoTime() < p.expiresAt()) {
            return p.site();
        }
        Optional<PeerSite> site;
        try {
            site = PeerSite.discover(local, pool, budget.capped(PeerSite.QUESTION_TIME), keyFile());
        } catch (RbdException e) {
            LOG.info(
                    "{}: cannot read the peer's credentials ({}); the peer site will not be asked",
                    local.site(),
                    e.detail());
            site = Optional.empty();
        }
        peer = new CachedPeer(site, System.nanoTime() + PEER_CACHE.toNanos());
        return site;
    }

    /** The peer's answer about {@code id}; without readable peer credentials, a non-primary guess (never a force). */
    PeerSite.Answer ask(CallBudget budget, String id) {
        Optional<PeerSite> site;
        try {
            site = site(budget);
        } catch (RuntimeException e) {
            return new PeerSite.Answer(PeerSite.Role.UNREACHABLE, Optional.empty(), e.getMessage());
        }
        if (site.isEmpty()) {
            // Unknown: answer as the window (10, retried), never as a precondition that invites a forced promote.
            return new PeerSite.Answer(PeerSite.Role.NON_PRIMARY, Optional.empty(), "");
        }
        return site.get().role(id, budget);
    }

    /**
     * The peer's mirror snapshots of {@code id}; empty without readable peer credentials, or when the peer has no
     * such image or does not answer.
     */
    Optional<MirrorSnapshots> snapshots(CallBudget budget, String id) {
        try {
            return site(budget).flatMap(site -> site.snapshots(id, budget));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * True while the peer's copy of {@code id} still ends with a demotion (its own, or this site's it received): it
     * has not replayed this site's promotion yet. rbd-mirror then has nothing it replays to delete on a disable, and
     * starts replaying only a primary. False when the peer has no such image or does not answer (nothing to wait
     * for then).
     */
    boolean copyEndsWithADemotion(CallBudget budget, String id) {
        return snapshots(budget, id).filter(MirrorSnapshots::endsWithADemotion).isPresent();
    }

    /** How messages name the peer: {@code site site-b} once it has been found, else {@code the peer site}. */
    String name() {
        CachedPeer p = peer;
        return p != null && p.site().isPresent()
                ? "site " + SafeText.escape(p.site().get().name())
                : "the peer site";
    }

    /** Where the peer's key is kept (mode 0600). */
    Path keyFile() {
        return keyDirectory.resolve(PEER_KEY_FILE);
    }

    /** Removes the peer's key file and its directory. */
    @Override
    public void close() {
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
