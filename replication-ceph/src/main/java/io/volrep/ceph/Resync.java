package io.volrep.ceph;

import io.volrep.api.PreconditionFailedException;
import io.volrep.api.internal.SafeText;
import io.volrep.spi.ResyncResult;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ResyncVolume on RBD. {@code rbd mirror image resync} deletes and recreates the local image (a full copy), so it is
 * asked for only where a copy needs one (split-brain, or {@code force}, once per image id); the image is in progress
 * while rbd still holds the flag or rbd-mirror recreates it (in the trash, then briefly nowhere, then created but not
 * mirrored yet), and ready once it replays the primary's latest snapshot (as rbd-mirror reports it, or, before its
 * report, as the copy's own snapshots and the primary's at the peer show it).
 *
 * <pre>{@code
 * ResyncResult r = resync.resync(budget, "vol-0", false);      // IN_PROGRESS until the copy has caught up
 * }</pre>
 */
final class Resync {
    private static final Logger LOG = LoggerFactory.getLogger(Resync.class);

    private final LocalPool pool;
    private final PeerLookup peers;
    /** Images this driver flagged for resync, by name: a resync recreates the image under a new id. */
    private final ConcurrentMap<String, Flag> resyncRequested = new ConcurrentHashMap<>();

    /**
     * A resync this driver asked for.
     *
     * @param flaggedId the id of the image that was flagged
     * @param recreatedId the id of the image rbd-mirror created in its place, once it was seen mirrored; else ""
     */
    private record Flag(String flaggedId, String recreatedId) {
        /**
         * rbd-mirror creates the new image and then enables its mirroring: an unmirrored image under an id other
         * than the flagged one, not seen mirrored yet, is that moment.
         */
        boolean beingRecreated(RbdImage image) {
            return !image.enabled()
                    && !image.disabling()
                    && !image.id().equals(flaggedId)
                    && !image.id().equals(recreatedId);
        }
    }

    Resync(LocalPool pool, PeerLookup peers) {
        this.pool = pool;
        this.peers = peers;
    }

    /** Flags a demoted copy for a full resync where one is needed, and says whether it has caught up. */
    ResyncResult resync(CallBudget budget, String id, boolean force) {
        RbdImage image;
        try {
            image = RbdImage.parse(id, pool.cli().json(budget, "info", pool.spec(id)));
        } catch (RbdException e) {
            // rbd-mirror moves the image to the trash, removes it and creates it anew: between the two it exists
            // nowhere, so an image this driver flagged counts as being resynced too
            if (e.errno() == RbdException.ENOENT
                    && (resyncRequested.containsKey(id) || pool.inTrashForResync(budget, id))) {
                return ResyncResult.IN_PROGRESS;
            }
            throw pool.failure(e, id, "read");
        }
        Flag flag = resyncRequested.get(id);
        if (flag != null && flag.beingRecreated(image)) {
            return ResyncResult.IN_PROGRESS;
        }
        pool.requireEnabled(image);
        if (image.primary()) {
            throw new PreconditionFailedException(
                    pool.site() + ": " + id + " is primary: only a demoted image is" + " resynced (demote it first)");
        }
        if (flag != null && flag.flaggedId().equals(image.id())) {
            if (pool.resyncFlagged(budget, id)) {
                return ResyncResult.IN_PROGRESS; // flagged; rbd-mirror has not recreated it yet
            }
            // The same image, and rbd no longer holds the flag: it was dropped before rbd-mirror acted on it (the
            // image was promoted or its mirroring disabled since), so no recreation is coming. Decide afresh.
            resyncRequested.remove(id, flag);
            flag = null;
        } else if (flag != null && !flag.recreatedId().equals(image.id())) {
            Flag seen = new Flag(flag.flaggedId(), image.id()); // recreated and mirrored
            resyncRequested.replace(id, flag, seen);
            flag = seen;
        }
        MirrorStatus status = pool.mirrorStatus(budget, id);
        // Only a split-brain needs a full copy: a copy that is merely behind catches up by replaying, and another
        // error right after a recreation can be transient (flagging again would start the copy over).
        boolean needed =
                (status.state().equals("up+error") && status.description().contains("split-brain"))
                        || (force && flag == null);
        if (needed) {
            LOG.info(
                    "{}: {} {}: flagging it for a full resync from the primary",
                    pool.site(),
                    id,
                    force ? "resync forced" : "split-brain (" + SafeText.escape(status.description()) + ")");
            pool.run(budget, id, "flag for resync", "mirror", "image", "resync", pool.spec(id));
            resyncRequested.put(id, new Flag(image.id(), ""));
            return ResyncResult.IN_PROGRESS;
        }
        Optional<MirrorStatus.Sync> sync = status.localSync();
        boolean replaying = status.state().equals("up+replaying");
        boolean ready = replaying && sync.isPresent() && !sync.get().behind();
        if (!ready && replaying) {
            // rbd-mirror writes a completed sync into its report every 30 s: the copy's own snapshots say it at once
            MirrorSnapshots copy = pool.snapshots(budget, id);
            ready = peers.snapshots(budget, id).filter(copy::holdsTheNewestOf).isPresent();
        }
        if (ready) {
            resyncRequested.remove(id);
        }
        return ready ? ResyncResult.READY : ResyncResult.IN_PROGRESS;
    }

    /** Forgets this driver's flag on the image: after a disable, a new unmirrored image is no recreation. */
    void forget(String id) {
        resyncRequested.remove(id);
    }
}
