package io.volrep.ceph;

import io.volrep.api.Secrets;
import io.volrep.api.internal.SafeText;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the pool's peer site (the credentials bootstrap stored in the local cluster) and keeps its connection: the
 * credentials are read again every 60 s, and a new connection is made only when they changed. Every connection it
 * made is closed by {@link #close()}.
 *
 * <pre>{@code
 * PeerSite.Answer there = peers.ask(budget, "vol-0");      // the image's role at the peer, or why it is unknown
 * }</pre>
 */
final class PeerLookup implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PeerLookup.class);
    /** How long the peer's credentials (or their absence) are reused. */
    private static final Duration PEER_CACHE = Duration.ofSeconds(60);

    private final LocalPool local;
    private final Function<PeerCredentials, RbdSite> connect;
    private final Executor workers;
    private final List<RbdSite> opened = new ArrayList<>();
    private final List<SiteCalls> sites = new ArrayList<>();
    private volatile CachedPeer peer;

    private record CachedPeer(Optional<PeerCredentials> credentials, Optional<PeerSite> site, long expiresAt) {}

    /**
     * @param connect makes the peer's site from its credentials (connecting lazily)
     */
    PeerLookup(LocalPool local, Function<PeerCredentials, RbdSite> connect, Executor workers) {
        this.local = local;
        this.connect = connect;
        this.workers = workers;
    }

    /** The peer site, empty when the pool has none or its credentials cannot be read. */
    Optional<PeerSite> site(CallBudget budget) {
        CachedPeer p = peer;
        if (p != null && System.nanoTime() < p.expiresAt()) {
            return p.site();
        }
        Optional<PeerCredentials> credentials;
        try {
            credentials = local.calls().read(budget.capped(PeerSite.QUESTION_TIME), "the pool's peers", RbdSite::peer);
        } catch (RbdException e) {
            LOG.info(
                    "{}: cannot read the peer's credentials ({}); the peer site will not be asked",
                    local.site(),
                    e.getMessage());
            credentials = Optional.empty();
        }
        peer = refreshed(p, credentials);
        return peer.site();
    }

    private synchronized CachedPeer refreshed(CachedPeer before, Optional<PeerCredentials> credentials) {
        long expires = System.nanoTime() + PEER_CACHE.toNanos();
        if (before != null && before.credentials().equals(credentials)) {
            return new CachedPeer(credentials, before.site(), expires); // the same peer: keep its connection
        }
        Optional<PeerSite> site = credentials.map(c -> {
            RbdSite s = connect.apply(c);
            opened.add(s);
            SiteCalls calls = new SiteCalls(s, workers);
            sites.add(calls);
            return new PeerSite(c.siteName(), calls, Secrets.of(Map.of("key", c.key())));
        });
        return new CachedPeer(credentials, site, expires);
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

    /** The last sync time the peer recorded in its image's metadata when it was promoted ({@link LastSyncRecord}). */
    Optional<Instant> recordedLastSync(CallBudget budget, String id) {
        try {
            return site(budget)
                    .flatMap(site -> site.metadata(id, budget))
                    .flatMap(meta -> LastSyncRecord.epochSeconds(meta.getOrDefault(LastSyncRecord.META_LAST_SYNC, "")));
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

    /** How many questions were sent to the peer. */
    synchronized long calls() {
        return sites.stream().mapToLong(SiteCalls::calls).sum();
    }

    /** Closes every peer connection made. */
    @Override
    public synchronized void close() {
        opened.forEach(RbdSite::close);
        opened.clear();
    }
}
