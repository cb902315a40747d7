package io.volrep.ceph;

import io.volrep.api.PreconditionFailedException;
import io.volrep.api.SourceNotFoundException;
import io.volrep.api.internal.SafeText;
import io.volrep.spi.ResyncResult;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ResyncVolume on RBD. A resync request ({@code rbd_mirror_image_resync}) makes rbd-mirror delete and recreate the
 * local image (a full copy), so it is asked for only where a copy needs one (split-brain, or {@code force}, once per
 * image id); the image is in progress while Ceph still holds the flag or rbd-mirror recreates it (in the trash, then
 * briefly nowhere, then created but not mirrored yet), and ready once it replays the primary's latest snapshot (as
 * rbd-mirror reports it, or, before its report, as the copy's own snapshots and the primary's at the peer show it).
 *
 * <p>What the driver remembers of the resyncs it asked for lives in Ceph, not in the plugin's memory: the pool's
 * metadata ({@code volrep.resync.IMAGE} = when it was asked for, the flagged image's id, and the id of the image
 * recreated in its place once seen mirrored), so that a plugin restarted in the middle of a resync answers as before. (The image's own metadata
 * goes with the image rbd-mirror deletes.)
 *
 * <pre>{@code
 * ResyncResult r = resync.resync(budget, "vol-0", false);      // IN_PROGRESS until the copy has caught up
 * }</pre>
 */
final class Resync {
    private static final Logger LOG = LoggerFactory.getLogger(Resync.class);
    /** The pool metadata key prefix of the resyncs this driver asked for. */
    static final String FLAG_PREFIX = "volrep.resync.";

    private final LocalPool pool;
    private final PeerLookup peers;

    /**
     * How long after its request a resync counts an image that exists nowhere (out of the trash, not created yet) as
     * being recreated: rbd-mirror creates it seconds after it removes the old one.
     */
    static final Duration RECREATION_GAP = Duration.ofMinutes(2);

    /**
     * A resync this driver asked for.
     *
     * @param flaggedId the id of the image that was flagged
     * @param recreatedId the id of the image rbd-mirror created in its place, once it was seen mirrored; else ""
     * @param requested when the driver asked for it
     */
    record Flag(String flaggedId, String recreatedId, Instant requested) {
        /**
         * rbd-mirror disables the flagged image's mirroring, moves it to the trash, creates the new image and then
         * enables its mirroring: the flagged image no longer mirrored, or an unmirrored image under another id not
         * seen mirrored yet, is that recreation.
         */
        boolean beingRecreated(RbdImage image) {
            // Seen on the lab, each answered 9 "not enabled" before: the flagged image disabling or disabled on its
            // way to the trash, and the new image before its mirroring is enabled (also seen disabling then).
            return !image.enabled() && !image.id().equals(recreatedId);
        }

        /** True while an image that exists nowhere can be the gap between the old image and the new one. */
        boolean inRecreationGap() {
            return recreatedId.isEmpty() && requested.plus(RECREATION_GAP).isAfter(Instant.now());
        }

        /** {@code REQUESTED-EPOCH-SECONDS FLAGGED-ID [RECREATED-ID]}. */
        String value() {
            return requested.getEpochSecond() + " " + flaggedId + (recreatedId.isEmpty() ? "" : " " + recreatedId);
        }

        static Optional<Flag> parse(String value) {
            String[] parts = value.strip().split(" ");
            if (parts.length < 2 || parts.length > 3 || parts[1].isEmpty()) {
                return Optional.empty();
            }
            try {
                return Optional.of(new Flag(
                        parts[1], parts.length == 3 ? parts[2] : "", Instant.ofEpochSecond(Long.parseLong(parts[0]))));
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        }
    }

    Resync(LocalPool pool, PeerLookup peers) {
        this.pool = pool;
        this.peers = peers;
    }

    /** Flags a demoted copy for a full resync where one is needed, and says whether it has caught up. */
    ResyncResult resync(CallBudget budget, String id, boolean force) {
        Optional<Flag> remembered = flag(budget, id);
        Optional<RbdImage> found = pool.imageIfExists(budget, id);
        if (found.isEmpty()) {
            // rbd-mirror moves the image to the trash, removes it and creates it anew: between the two it exists
            // nowhere, so an image this driver flagged moments ago counts as being resynced too. Gone for longer, or
            // gone after its recreation was seen (its mirroring disabled on the other site since), it is gone: the
            // flag is forgotten, and the answer is 5 (the kit found a stale flag answering "in progress" for ever).
            if (pool.inTrashForResync(budget, id)
                    || remembered.filter(Flag::inRecreationGap).isPresent()) {
                return ResyncResult.IN_PROGRESS;
            }
            if (remembered.isPresent()) {
                forget(budget, id);
            }
            throw new SourceNotFoundException(pool.site() + ": image " + id + " does not exist in pool " + pool.name());
        }
        RbdImage image = found.get();
        Flag flag = remembered.orElse(null);
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
            // The same image, and Ceph no longer holds the flag: it was dropped before rbd-mirror acted on it (the
            // image was promoted or its mirroring disabled since), so no recreation is coming. Decide afresh.
            forget(budget, id);
            flag = null;
        } else if (flag != null && !flag.recreatedId().equals(image.id())) {
            flag = new Flag(flag.flaggedId(), image.id(), flag.requested()); // recreated and mirrored
            remember(budget, id, flag);
        }
        MirrorStatus status = pool.mirrorStatus(budget, id);
        // Only a split-brain needs a full copy: a copy that is merely behind catches up by replaying, and another
        // error right after a recreation can be transient (flagging again would start the copy over).
        boolean needed = status.splitBrain() || (force && flag == null);
        if (needed) {
            LOG.info(
                    "{}: {} {}: flagging it for a full resync from the primary",
                    pool.site(),
                    id,
                    force ? "resync forced" : "split-brain (" + SafeText.escape(status.description()) + ")");
            // remembered first: a plugin stopped right after the request still knows it made it
            remember(budget, id, new Flag(image.id(), "", Instant.now()));
            pool.run(budget, id, "the resync request", s -> s.resync(id));
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
        if (ready && flag != null) {
            forget(budget, id);
        }
        return ready ? ResyncResult.READY : ResyncResult.IN_PROGRESS;
    }

    /** Forgets this driver's flag on the image: after a disable, a new unmirrored image is no recreation. */
    void forget(CallBudget budget, String id) {
        pool.removePoolMetadata(budget, FLAG_PREFIX + id);
    }

    private Optional<Flag> flag(CallBudget budget, String id) {
        return pool.poolMetadata(budget, FLAG_PREFIX + id).flatMap(Flag::parse);
    }

    private void remember(CallBudget budget, String id, Flag flag) {
        pool.setPoolMetadata(budget, FLAG_PREFIX + id, flag.value());
    }
}
