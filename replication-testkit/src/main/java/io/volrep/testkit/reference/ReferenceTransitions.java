package io.volrep.testkit.reference;

import io.volrep.api.PreconditionFailedException;
import io.volrep.spi.ResyncResult;
import io.volrep.testkit.reference.ReferenceDriver.Change;
import io.volrep.testkit.reference.ReferenceDriver.Role;
import io.volrep.testkit.reference.ReferenceDriver.SourceState;
import io.volrep.testkit.reference.ReferenceFixtures.Fixture;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The reference plugin's state machine for one source, on one site or across the two sites of a
 * {@link ReferencePair}: what enable, disable, promote, demote and resync change, and the windows real mirroring
 * has (a demotion that has not reached the peer yet, a first sync that has not completed). Its state is the
 * driver's timing settings; the sources' state lives in their {@link Fixture}s.
 */
record ReferenceTransitions(Clock clock, Duration demotionWindow, Duration firstSyncDelay, int resyncCallsUntilReady) {

    /** This site becomes the primary and, in a pair, the peer site holds the secondary copy. Idempotent. */
    void enable(Fixture f, Map<String, String> parameters) {
        synchronized (f.lock()) {
            if (!f.state.enabled()) {
                Instant lastSync = f.state.lastSyncTime() == null ? clock.instant() : f.state.lastSyncTime();
                ReferenceFixtures.apply(
                        f,
                        Change.ENABLED,
                        new SourceState(f.state.source(), true, Role.PRIMARY, 0, lastSync, parameters));
                f.firstSyncAt = clock.instant().plus(firstSyncDelay);
                f.splitBrain = false;
                if (f.peer != null && !f.peer.state.enabled()) {
                    Fixture p = f.peer;
                    ReferenceFixtures.apply(
                            p,
                            Change.ENABLED,
                            new SourceState(p.state.source(), true, Role.SECONDARY, 0, lastSync, parameters));
                    p.splitBrain = false;
                    p.demotedAt = null;
                }
            }
        }
    }

    /** Disabled on this site and, in a pair, on the peer (its copy is removed). Idempotent. */
    void disable(Fixture f) {
        synchronized (f.lock()) {
            for (Fixture site : f.peer == null ? List.of(f) : List.of(f, f.peer)) {
                if (site.state.enabled()) {
                    ReferenceFixtures.apply(
                            site,
                            Change.DISABLED,
                            new SourceState(
                                    site.state.source(), false, Role.PRIMARY, 0, site.state.lastSyncTime(), Map.of()));
                }
                site.splitBrain = false;
                site.demotedAt = null;
            }
        }
    }

    /**
     * In a pair, without force, a copy is not promoted while the peer holds the primary, nor within the demotion
     * window after the peer's demote (9 FAILED_PRECONDITION); with force it is, and a peer still primary is left in
     * split-brain until it resyncs.
     */
    void promote(Fixture f, boolean force) {
        synchronized (f.lock()) {
            requireEnabled(f);
            if (f.state.role() == Role.PRIMARY) {
                return;
            }
            Fixture p = f.peer;
            if (p != null && p.state.enabled() && !force) {
                if (p.state.role() == Role.PRIMARY) {
                    throw new PreconditionFailedException(f.state.source() + " cannot be promoted without force:"
                            + " the peer site holds the primary");
                }
                if (p.demotedAt != null && clock.instant().isBefore(p.demotedAt.plus(demotionWindow))) {
                    throw new PreconditionFailedException(f.state.source() + " cannot be promoted without force"
                            + " yet: the peer site's demotion has not arrived (demotion window)");
                }
            }
            if (p != null && p.state.enabled() && p.state.role() == Role.PRIMARY) {
                p.splitBrain = true; // forced while the peer was primary: two primaries
            }
            ReferenceFixtures.apply(f, Change.PROMOTED, with(f.state, Role.PRIMARY, 0, f.state.lastSyncTime()));
            f.firstSyncAt = clock.instant().plus(firstSyncDelay);
        }
    }

    /** Idempotent once secondary; 9 FAILED_PRECONDITION while replication is disabled. */
    void demote(Fixture f) {
        synchronized (f.lock()) {
            requireEnabled(f);
            if (f.state.role() != Role.SECONDARY) {
                ReferenceFixtures.apply(f, Change.DEMOTED, with(f.state, Role.SECONDARY, 0, f.state.lastSyncTime()));
                f.demotedAt = clock.instant();
            }
        }
    }

    /**
     * Ready on the n-th call. In a pair only while the peer holds the primary (there is nothing to copy from
     * otherwise): before that every call answers not ready, without progress. A completed resync ends a split-brain.
     */
    ResyncResult resync(Fixture f) {
        synchronized (f.lock()) {
            requireRole(f, Role.SECONDARY, "is not demoted: resync needs a secondary");
            if (f.state.resyncProgress() >= resyncCallsUntilReady) {
                return ResyncResult.READY; // already complete: idempotent
            }
            if (f.peer != null && !(f.peer.state.enabled() && f.peer.state.role() == Role.PRIMARY)) {
                return ResyncResult.IN_PROGRESS; // no primary to copy from
            }
            int progress = f.state.resyncProgress() + 1;
            boolean ready = progress >= resyncCallsUntilReady;
            ReferenceFixtures.apply(
                    f,
                    ready ? Change.RESYNC_COMPLETED : Change.RESYNC_PROGRESSED,
                    with(f.state, Role.SECONDARY, progress, ready ? clock.instant() : f.state.lastSyncTime()));
            if (ready) {
                f.splitBrain = false;
            }
            return new ResyncResult(ready);
        }
    }

    /** True within the first-sync delay after an enable or a promote: Info answers 5 NOT_FOUND then. */
    boolean firstSyncPending(Fixture f) {
        return f.firstSyncAt != null && clock.instant().isBefore(f.firstSyncAt);
    }

    static void requireEnabled(Fixture f) {
        if (!f.state.enabled()) {
            throw new PreconditionFailedException("replication is not enabled for " + f.state.source());
        }
    }

    /** Resync and info: 9 FAILED_PRECONDITION unless enabled and in {@code role}; {@code why} follows the source. */
    static void requireRole(Fixture f, Role role, String why) {
        requireEnabled(f);
        if (f.state.role() != role) {
            throw new PreconditionFailedException(f.state.source() + " " + why);
        }
    }

    private static SourceState with(SourceState s, Role role, int progress, Instant lastSync) {
        return new SourceState(s.source(), s.enabled(), role, progress, lastSync, s.parameters());
    }
}
