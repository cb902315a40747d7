package io.volrep.ceph;

import io.volrep.api.OperationPendingException;
import io.volrep.api.UnavailableException;
import io.volrep.api.UnknownErrorException;
import io.volrep.api.internal.SafeText;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * EnableVolumeReplication and DisableVolumeReplication on RBD: snapshot mirroring of an image switched on (with its
 * schedule) and off without leaving the peer's copy behind as an orphan that rbd-mirror never deletes.
 * docs/storage-vendors.md "Real storage" has the mapping and the decisions behind it.
 *
 * <pre>{@code
 * enableDisable.enable(budget, "vol-0", SnapshotSchedule.from(Map.of("schedulingInterval", "5m")));
 * enableDisable.disable(budget, "vol-0");
 * }</pre>
 */
final class EnableDisable {
    private static final Logger LOG = LoggerFactory.getLogger(EnableDisable.class);
    /**
     * How long after its mirroring started a disable waits for the peer to finish creating its copy (rbd-mirror
     * creates it in 2-35 s); past it, a peer that has not reported is not creating one (its rbd-mirror is down).
     */
    static final Duration FIRST_COPY_WINDOW = Duration.ofSeconds(60);

    /** How often a disable that promoted looks again whether the peer replays the promotion: 0.25 s, then twice... */
    private static final Duration FIRST_PAUSE = Duration.ofMillis(250);

    /** ... as long, up to 1 s. */
    private static final Duration MAX_PAUSE = Duration.ofSeconds(1);

    private static final Duration MIN_DISABLE_RESERVE = Duration.ofSeconds(3);

    private final LocalPool pool;
    private final PeerLookup peers;
    private final ImageSchedules schedules;

    EnableDisable(LocalPool pool, PeerLookup peers, ImageSchedules schedules) {
        this.pool = pool;
        this.peers = peers;
        this.schedules = schedules;
    }

    /**
     * Mirrors the image in snapshot mode (again: nothing to do) and, on the primary, applies the schedule. An image
     * left {@code disabling} by an earlier disable that did not finish is disabled first, then enabled.
     */
    void enable(CallBudget budget, String id, Optional<SnapshotSchedule> schedule) {
        RbdImage image = pool.image(budget, id);
        if (image.disabling()) {
            finishDisabling(budget, id, image);
            image = pool.image(budget, id);
        }
        if (image.enabled() && !"snapshot".equals(image.mode())) {
            throw new UnknownErrorException(pool.site() + ": " + id + " is mirrored in " + SafeText.escape(image.mode())
                    + " mode; this driver serves snapshot mirroring only (disable it with rbd first)");
        }
        boolean primary = image.primary();
        if (!image.enabled()) {
            try {
                pool.mutateRaw(budget, id, "the enable", s -> s.enable(id));
            } catch (RbdException e) {
                if (!RbdErrors.enableRefused(e)) {
                    throw pool.failure(e, id, "enable mirroring of");
                }
                throw new UnknownErrorException(pool.site() + ": mirroring of " + id + " cannot be enabled ("
                        + e.detail() + "): is pool " + pool.name() + " mirrored in image mode (rbd mirror pool enable "
                        + pool.name() + " image)?");
            }
            primary = true; // enabling makes the image primary and takes its first mirror snapshot
        }
        if (primary && schedule.isPresent()) {
            schedules.apply(budget, id, schedule.get(), true);
        }
    }

    /**
     * Disables mirroring as the primary, so that rbd-mirror deletes the peer's copy: a non-primary copy is promoted
     * first, or detached with force when the peer holds the primary.
     */
    void disable(CallBudget budget, String id) {
        RbdImage image = pool.image(budget, id);
        if (image.disabling()) {
            finishDisabling(budget, id, image);
            return;
        }
        if (!image.enabled()) {
            return; // idempotent: not mirrored
        }
        boolean promoted = false;
        if (!image.primary()) {
            // rbd disables only a primary; forcing it on a copy whose peer is not primary leaves the peer's copy
            // behind for ever (rbd-mirror never deletes it) and the next enable finds a split-brain. Promote first,
            // then disable as the primary: rbd-mirror then deletes the peer's copy.
            PeerSite.Answer there = peers.ask(budget, id);
            if (there.role() == PeerSite.Role.PRIMARY) {
                // The peer holds the primary: this copy is detached (disabled with force) and stays as a plain image
                // here; the peer keeps its primary.
                LOG.warn(
                        "{}: {} is non-primary and primary on {}: disabling this copy with force",
                        pool.site(),
                        id,
                        peers.name());
                schedules.remove(budget, id);
                pool.run(budget, id, "the forced disable", s -> s.disable(id, true));
                return;
            }
            promoteBeforeDisabling(budget, id, there);
            promoted = true;
        }
        // rbd-mirror deletes the peer's copy only if it replays this primary: right after a failback, or after this
        // copy's own demotion and the promotion above, a peer whose copy still ends with a demotion (it has not
        // replayed this site's promotion yet) can keep it for ever, in "error bootstrapping replay".
        Optional<PeerSite> site = peers.site(budget);
        Optional<String> notYet = site.flatMap(s -> whyThePeerWouldKeepItsCopy(budget, id, s));
        // A promotion this call made is its effect: the call waits for the peer to replay it, within its budget,
        // rather than answer "retry" with the source left primary where the caller had it secondary.
        Duration pause = FIRST_PAUSE;
        while (promoted
                && notYet.isPresent()
                && budget.remaining().compareTo(reserveOf(budget).plus(pause)) > 0) {
            pause(pause);
            pause = pause.multipliedBy(2).compareTo(MAX_PAUSE) > 0 ? MAX_PAUSE : pause.multipliedBy(2);
            budget.forget(id);
            notYet = whyThePeerWouldKeepItsCopy(budget, id, site.get());
        }
        if (notYet.isPresent()) {
            throw new OperationPendingException(pool.site() + ": "
                    + (promoted ? "promoted " + id + " to disable it, but " : "")
                    + notYet.get()
                    + (promoted ? " (" + id + " stays primary until a retry disables it)" : "")
                    + "; retry with back-off");
        }
        schedules.remove(budget, id);
        pool.forgetMetadata(budget, id);
        pool.run(budget, id, "the disable", s -> s.disable(id, false));
    }

    /**
     * Finishes the disable an earlier call started and did not see through (Ceph holds the image {@code disabling}
     * until a disable completes; answering "retry" would keep it so for ever): librbd disables a disabling image
     * again, as a primary, or with force as a copy (only a forced disable leaves a copy disabling).
     */
    private void finishDisabling(CallBudget budget, String id, RbdImage image) {
        LOG.info(
                "{}: mirroring of {} was left disabling by a disable that did not finish: finishing it",
                pool.site(),
                id);
        schedules.remove(budget, id);
        pool.forgetMetadata(budget, id);
        pool.run(budget, id, "the disable left unfinished", s -> s.disable(id, !image.primary()));
    }

    /**
     * Why disabling now would leave the peer's copy behind (rbd-mirror deletes only a copy it replays from this
     * primary), or empty when it would not.
     */
    private Optional<String> whyThePeerWouldKeepItsCopy(CallBudget budget, String id, PeerSite site) {
        if (peerStillCreatingItsCopy(budget, id, site)) {
            return Optional.of("site " + site.name() + " is still creating its copy of " + id
                    + " (it has not completed its first sync): disabled now, rbd-mirror would leave that copy behind"
                    + " in error for ever, and every later enable would meet it");
        }
        if (peers.copyEndsWithADemotion(budget, id)) {
            return Optional.of("site " + site.name() + "'s copy of " + id + " still ends with a demotion: it has not"
                    + " replayed this site's promotion yet, and disabling now would leave it behind");
        }
        return Optional.empty();
    }

    /** What the disable itself needs of the budget once the peer is ready: a quarter of it, at least 3 s. */
    private static Duration reserveOf(CallBudget budget) {
        Duration quarter = budget.total().dividedBy(4);
        return quarter.compareTo(MIN_DISABLE_RESERVE) > 0 ? quarter : MIN_DISABLE_RESERVE;
    }

    private static void pause(Duration pause) {
        try {
            Thread.sleep(pause.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UnavailableException("interrupted while waiting for the peer site");
        }
    }

    /**
     * True while the peer creates its copy of this primary: its rbd-mirror reports the image starting, syncing, or
     * replaying without a completed snapshot, or (no report yet) the mirroring started less than
     * {@link #FIRST_COPY_WINDOW} ago; unless the peer's copy already holds this primary's newest snapshot
     * completely (then it replays this primary: a copy complete up to an older one may not, e.g. one that met a
     * demotion and has not received the promotion since). rbd-mirror deletes the peer's copy when the primary's
     * mirroring is disabled, except a copy it is still bootstrapping or not replaying: that one stays, in "error
     * bootstrapping replay", for ever.
     */
    private boolean peerStillCreatingItsCopy(CallBudget budget, String id, PeerSite site) {
        boolean reportedUnderWay = false;
        for (MirrorStatus.Peer p : pool.mirrorStatus(budget, id).peers()) {
            if (!p.up()) {
                continue; // no report (yet), or its daemon is gone: decided below
            }
            if (p.state().startsWith("up+error")
                    || p.state().equals("up+stopped")
                    || (p.state().equals("up+replaying") && p.sync().isPresent())) {
                return false; // nothing under way to wait for
            }
            reportedUnderWay = true;
            break;
        }
        MirrorSnapshots own = pool.snapshots(budget, id);
        // rbd-mirror reports a completed sync at its next status update (every 30 s): the copy itself says so at once.
        if (site.snapshots(id, budget)
                .filter(copy -> copy.holdsTheNewestOf(own))
                .isPresent()) {
            return false;
        }
        if (reportedUnderWay) {
            return true;
        }
        Optional<Instant> started = own.oldest();
        return started.isPresent()
                && Duration.between(started.get(), Instant.now()).compareTo(FIRST_COPY_WINDOW) < 0
                && site.role(id, budget).role() != PeerSite.Role.UNREACHABLE;
    }

    /** Promotes a copy whose peer does not hold the primary; a refusal is 10 (retry), or 14 when the peer is silent. */
    private void promoteBeforeDisabling(CallBudget budget, String id, PeerSite.Answer there) {
        try {
            pool.mutateRaw(budget, id, "the promote before disabling", s -> s.promote(id, false));
        } catch (RbdException e) {
            if (!RbdErrors.promoteRefused(e)) {
                throw pool.failure(e, id, "promote (before disabling)");
            }
            if (there.role() == PeerSite.Role.UNREACHABLE) {
                throw new UnavailableException(pool.site() + ": " + id + " is non-primary and cannot be promoted"
                        + " before disabling (" + e.detail() + "); " + peers.name() + " does not answer, so whether"
                        + " it holds the primary is unknown and disabling now could orphan a copy; retry once it"
                        + " answers (" + there.why() + ")");
            }
            throw new OperationPendingException(pool.site() + ": " + id + " is non-primary and cannot be promoted"
                    + " before disabling yet: the peer's demotion has not arrived (" + e.detail() + "); retry"
                    + " with back-off");
        }
    }
}
