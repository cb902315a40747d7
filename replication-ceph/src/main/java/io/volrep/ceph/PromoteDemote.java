package io.volrep.ceph;

import io.volrep.api.OperationPendingException;
import io.volrep.api.PreconditionFailedException;
import io.volrep.api.internal.SafeText;
import java.time.Instant;
import java.util.Optional;

/**
 * PromoteVolume and DemoteVolume on RBD. Both check the image's role first (rbd refuses to promote a primary or
 * demote a non-primary; the RPCs are idempotent). An unforced promote asks the peer site first, and rbd's refusals
 * are told apart by its answer: 10 ABORTED (the client retries) while the peer's demotion is on its way, 9
 * FAILED_PRECONDITION ("cannot be promoted without force") only when the peer holds the primary, has no mirrored
 * copy, or does not answer. docs/storage-vendors.md "What the spec left open" has why.
 *
 * <pre>{@code
 * promoteDemote.promote(budget, "vol-0", false, Optional.empty());
 * promoteDemote.demote(budget, "vol-0");
 * }</pre>
 */
final class PromoteDemote {
    private final LocalPool pool;
    private final PeerLookup peers;
    private final ImageSchedules schedules;
    private final LastSyncRecord lastSync;

    PromoteDemote(LocalPool pool, PeerLookup peers, ImageSchedules schedules, LastSyncRecord lastSync) {
        this.pool = pool;
        this.peers = peers;
        this.schedules = schedules;
        this.lastSync = lastSync;
    }

    /**
     * Promotes a non-primary image (a primary: nothing to do), records when it was last in sync, and applies the
     * schedule: {@code asked}, else the one the former primary recorded in the image's metadata.
     */
    void promote(CallBudget budget, String id, boolean force, Optional<SnapshotSchedule> asked) {
        RbdImage image = pool.enabledImage(budget, id);
        if (!image.primary()) {
            // When this copy was last in sync, read before promoting: a forced promote drops its received snapshots.
            Optional<Instant> inSyncAt = lastSync.readFromCopy(budget, id);
            if (force) {
                promoteForced(budget, id);
            } else {
                promoteUnforced(budget, id);
            }
            inSyncAt.ifPresent(t -> lastSync.keep(budget, id, t));
        }
        // The schedule follows the primary: the one asked for, else the one the former primary recorded.
        Optional<SnapshotSchedule> schedule =
                asked.isPresent() ? asked : SnapshotSchedule.fromMetadata(pool.metadata(budget, id));
        if (schedule.isPresent()) {
            schedules.apply(budget, id, schedule.get(), asked.isPresent());
        }
    }

    /**
     * A forced promote: 10 while the local rbd-mirror holds the image (EROFS, as for the unforced promote: it replays
     * or resyncs this copy for a moment; seen on the lab right after a resync request), never 2, which no caller
     * retries.
     */
    private void promoteForced(CallBudget budget, String id) {
        try {
            pool.mutateRaw(budget, id, "the forced promote", s -> s.promote(id, true));
        } catch (RbdException e) {
            if (RbdErrors.demotionArrivedImageHeld(e)) {
                throw new OperationPendingException(pool.site() + ": rbd-mirror still holds " + id + " here (it"
                        + " replays or resyncs this copy) and refused the forced promote (" + e.detail() + "); retry"
                        + " with back-off");
            }
            throw pool.failure(e, id, "force-promote");
        }
    }

    /** Demotes a primary image (a non-primary: nothing to do); 10 while rbd says it is busy. */
    void demote(CallBudget budget, String id) {
        RbdImage image = pool.enabledImage(budget, id);
        if (!image.primary()) {
            return; // idempotent: rbd would answer EINVAL
        }
        // Demoted before the peer replays this site's promotion, both copies end with their own demotion: rbd-mirror
        // starts replaying only a primary, so the peer never receives this site's last snapshots, and neither site
        // could be promoted without force (seen on the lab).
        if (peers.copyEndsWithADemotion(budget, id)) {
            throw new OperationPendingException(pool.site() + ": " + peers.name() + "'s copy of " + id + " still ends"
                    + " with a demotion: it has not replayed this site's promotion yet, and demoting now would"
                    + " leave no site that can be promoted without force; retry with back-off");
        }
        try {
            pool.mutateRaw(budget, id, "the demote", s -> s.demote(id));
        } catch (RbdException e) {
            if (RbdErrors.busy(e)) {
                throw new OperationPendingException(pool.site() + ": " + id + " is busy and cannot be demoted yet ("
                        + e.detail() + "); retry with back-off");
            }
            throw pool.failure(e, id, "demote");
        }
    }

    /**
     * An unforced promote of a non-primary copy. The peer is asked first: rbd itself promotes a copy whose last
     * snapshot is its own demotion, which right after a failover to the peer (before the peer's promotion has
     * arrived here) makes two primaries. Then rbd's refusals are told apart by that answer ({@link #promoteRefusal}).
     */
    private void promoteUnforced(CallBudget budget, String id) {
        PeerSite.Answer there = peers.ask(budget, id);
        if (there.role() == PeerSite.Role.PRIMARY) {
            throw peerHoldsThePrimary(id);
        }
        if (there.role() == PeerSite.Role.NON_PRIMARY && peerWasPrimarySinceThisCopy(budget, id)) {
            throw peersSnapshotsMissing(budget, id);
        }
        try {
            pool.mutateRaw(budget, id, "the promote", s -> s.promote(id, false));
        } catch (RbdException e) {
            if (RbdErrors.promoteRefused(e)) {
                throw promoteRefusal(there, id, e);
            }
            throw pool.failure(e, id, "promote");
        }
    }

    /**
     * True when the peer ends with snapshots it took as primary (promoted after this copy's demotion, then demoted)
     * that this copy has not received. rbd promotes such a copy without force all the same when its own last snapshot
     * is its demotion (seen on the lab after a failback A -> B -> A: site B's copy then ended "up+error:
     * split-brain"). False when the peer's snapshots cannot be read: rbd's own refusal decides then.
     */
    private boolean peerWasPrimarySinceThisCopy(CallBudget budget, String id) {
        Optional<MirrorSnapshots> theirs = peers.snapshots(budget, id);
        if (theirs.isEmpty()) {
            return false;
        }
        MirrorSnapshots ours = pool.snapshots(budget, id);
        return ours.lacksTheNewestSnapshotOf(theirs.get());
    }

    /**
     * The peer's last snapshots have not reached this copy. While rbd-mirror replays them here, that is the demotion
     * window (10, retried). When it replays nothing (it starts replaying only a primary, and the peer was demoted
     * before this site began to replay its promotion), they never arrive: 9, with the way out.
     */
    private RuntimeException peersSnapshotsMissing(CallBudget budget, String id) {
        String state;
        try {
            MirrorStatus status = pool.mirrorStatus(budget, id);
            // No local state: this site's rbd-mirror has not reported on the copy yet (librbd lists no local status).
            state = status.state().isEmpty() ? "" : status.state() + ": " + status.description();
        } catch (RuntimeException e) {
            state = ""; // unknown: answer as the window, never as a precondition that invites a force
        }
        String what = peers.name() + " was primary for " + id + " after this copy's last snapshot and has demoted it";
        // "status not found": this site's rbd-mirror has not reported on the copy yet (it starts its replayer)
        if (state.isEmpty()
                || state.startsWith("up+replaying")
                || state.startsWith("up+syncing")
                || state.contains(RbdErrors.STATUS_NOT_FOUND)) {
            return new OperationPendingException(pool.site() + ": " + what + ", but its demotion has not reached"
                    + " this site yet (promoting now would leave " + peers.name() + "'s copy in split-brain); retry"
                    + " with back-off");
        }
        return new PreconditionFailedException(pool.site() + ": " + id + " cannot be promoted without force: " + what
                + ", and its last snapshots will not reach this site: rbd-mirror replays only a primary (here: "
                + SafeText.escape(MirrorStatus.shorten(state, 120)) + "). Promote it on " + peers.name()
                + " again until"
                + " this site replays it, then fail over again; a forced promote here discards what " + peers.name()
                + " wrote while it was primary");
    }

    /**
     * Which row a refusal is. The same rbd message covers a peer that holds the primary (a precondition: only force
     * promotes) and a peer whose demotion is still on its way (for 1-5 s after it: an operation pending for this
     * source, which the caller retries with back-off). Answering 9 in the window would invite a forced promote,
     * which there throws away what the demotion was carrying; so the peer is asked directly.
     */
    private RuntimeException promoteRefusal(PeerSite.Answer there, String id, RbdException e) {
        if (RbdErrors.demotionArrivedImageHeld(e)) {
            return new OperationPendingException(pool.site() + ": the peer's demotion of " + id + " has arrived but"
                    + " rbd-mirror still holds the image here (" + e.detail() + "); retry with back-off");
        }
        return switch (there.role()) {
            case PRIMARY -> peerHoldsThePrimary(id);
            case UNREACHABLE ->
                new PreconditionFailedException(pool.site() + ": " + id + " cannot be promoted"
                        + " without force: " + peers.name() + " does not answer, so no demotion can arrive from it ("
                        + there.why() + ")");
            case NOT_MIRRORED, ABSENT ->
                new PreconditionFailedException(pool.site() + ": " + id + " cannot be" + " promoted without force: "
                        + peers.name() + " has no mirrored copy of it to demote");
            case NON_PRIMARY ->
                new OperationPendingException(pool.site() + ": " + peers.name() + " has demoted " + id
                        + ", but the demotion has not reached this site yet (" + e.detail() + "); retry with back-off");
        };
    }

    private PreconditionFailedException peerHoldsThePrimary(String id) {
        return new PreconditionFailedException(pool.site() + ": " + id + " cannot be promoted without force: it is"
                + " primary on " + peers.name() + " (promote with force only when that site is lost: both sites would"
                + " be primary)");
    }
}
