package io.volrep.ceph;

import io.volrep.api.ReplicationDestination;
import io.volrep.api.UnavailableException;
import io.volrep.api.internal.SafeText;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GetReplicationDestinationInfo on RBD: rbd-mirror creates the peer's copy under the same name, so the destination is
 * the image of that name on the peer site, verified there by its mirroring global id; until that copy exists and
 * mirrors this one, the table's 14 UNAVAILABLE "not yet available". Without readable peer credentials the name is
 * answered unverified.
 *
 * <pre>{@code
 * ReplicationDestination d = new DestinationOnPeer(pool, peers).destination(budget, "vol-0");
 * }</pre>
 */
final class DestinationOnPeer {
    private static final Logger LOG = LoggerFactory.getLogger(DestinationOnPeer.class);

    private final LocalPool pool;
    private final PeerLookup peers;

    DestinationOnPeer(LocalPool pool, PeerLookup peers) {
        this.pool = pool;
        this.peers = peers;
    }

    ReplicationDestination destination(CallBudget budget, String id) {
        RbdImage image = pool.enabledImage(budget, id);
        Optional<PeerSite> site = peers.site(budget);
        if (site.isEmpty()) {
            // RBD creates the peer's copy under the same name; without the peer's credentials it cannot be checked.
            LOG.debug("{}: no peer credentials readable; answering the destination {} unverified", pool.site(), id);
            return ReplicationDestination.volume(id);
        }
        String peer = site.get().name();
        PeerSite.Answer there = site.get().role(id, budget);
        switch (there.role()) {
            case ABSENT -> {
                if (!image.primary()) {
                    // Demoted before the peer had a copy: no site is primary, so rbd-mirror creates none until one
                    // is promoted, and "not yet available" would never end. The copy will bear the same name.
                    return ReplicationDestination.volume(id);
                }
                throw new UnavailableException(pool.site() + ": " + peer + " has no copy of " + id
                        + " yet (rbd-mirror creates it after the image is enabled); retry");
            }
            case NOT_MIRRORED ->
                throw new UnavailableException(pool.site() + ": " + peer + "'s " + id
                        + " is not mirrored (yet): rbd-mirror creates the copy, then mirrors it; retry (if this lasts, it"
                        + " is a leftover image of that name on " + peer + ")");
            case UNREACHABLE ->
                throw new UnavailableException(pool.site() + ": " + peer + " does not answer, so " + id
                        + "'s copy there cannot be verified; retry (" + there.why() + ")");
            default -> {}
        }
        RbdImage copy = there.image().orElseThrow();
        if (!copy.globalId().equals(image.globalId())) {
            // After a disable and a new enable, the peer deletes its copy of the earlier mirroring (a few seconds)
            // before it creates this one: not known yet, as the table's 14 says. A copy that stays is an orphan.
            throw new UnavailableException(pool.site() + ": " + peer + " still holds a copy of an earlier mirroring of "
                    + id + " (mirroring global id " + SafeText.escape(copy.globalId()) + ", here "
                    + SafeText.escape(image.globalId()) + "); rbd-mirror deletes it before it creates this one; retry"
                    + " (if this lasts, that copy is an orphan: inspect " + peer + ")");
        }
        return ReplicationDestination.volume(id);
    }
}
