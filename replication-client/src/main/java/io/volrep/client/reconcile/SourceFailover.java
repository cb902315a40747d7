package io.volrep.client.reconcile;

import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.internal.Arguments;
import java.util.List;
import java.util.Optional;

/**
 * The outcome of a {@link Failover} for one source.
 *
 * <pre>{@code
 * for (SourceFailover s : report.sources()) {
 *     log.info("{}: {}{}", s.source(), s.step(), s.whyNot().map(w -> " (" + w + ")").orElse(""));
 * }
 * }</pre>
 *
 * @param source      the source on site A
 * @param destination its destination on site B, when resolved, with where it came from ({@link Destination#origin()}:
 *                    site A's answer, the caller, or the same-id assumption)
 * @param step        {@link FailoverStep#PRIMARY_ON_B}, {@link FailoverStep#REFUSED} or {@link FailoverStep#FAILED}
 * @param siteA       what DemoteVolume on site A gave
 * @param state       where the source stands after the run, as far as the answers tell: what a re-run starts from
 * @param forced      whether PromoteVolume was sent to B with force
 * @param lastSync    B's GetVolumeReplicationInfo answer (the verification): after a promote, B's first completed
 *                    sync; empty when none was reported within the call budget
 * @param replicating B's replication health read from that answer (UNKNOWN until the plugin's status is read)
 * @param calls       the RPCs sent, in order, with site and outcome, e.g. {@code A DemoteVolume: OK}
 * @param whyNot      why the source is not primary on B (escaped, safe to print); empty when it is
 */
public record SourceFailover(
        ReplicationSource source,
        Optional<Destination> destination,
        FailoverStep step,
        SiteA siteA,
        State state,
        boolean forced,
        Optional<ReplicationInfo> lastSync,
        Condition.Status replicating,
        List<String> calls,
        Optional<String> whyNot) {

    /** What happened on site A. */
    public enum SiteA {
        /** DemoteVolume answered OK (also when the source already was secondary: the RPC is idempotent). */
        DEMOTED,
        /** No answer within the budget (14 UNAVAILABLE or 4 DEADLINE_EXCEEDED): disaster mode. */
        UNREACHABLE,
        /** DemoteVolume failed with another code: nothing was promoted. */
        FAILED,
        /**
         * A was not asked to demote: the destination was not resolved (only GetReplicationDestinationInfo, and after
         * its 12 GetCapabilities, may have been sent to A) or B's check failed.
         */
        NOT_TRIED
    }

    /**
     * Where a source stands after a run, from the answers it got: which site is primary, and so what finishes it. Every
     * state but {@link #PRIMARY_ON_B} is finished by running the same failover again once the cause is fixed (each
     * step is idempotent, and a re-run starts from the state the sites hold); none is finished by force unless site A
     * is known down.
     *
     * <pre>{@code
     * if (s.state() == SourceFailover.State.NO_PRIMARY) {
     *     alert(s.source() + ": no site takes writes until the failover is run again: " + s.whyNot().orElse(""));
     * }
     * }</pre>
     */
    public enum State {
        /** Done: the destination is primary on site B (it reported a completed sync, or was found primary). */
        PRIMARY_ON_B,
        /**
         * The destination is primary on site B (its promote answered OK) but reported no completed sync within the
         * budget: a re-run verifies it (and demotes site A again, which changes nothing).
         */
        PROMOTED_NOT_VERIFIED,
        /**
         * Site A's source is demoted and site B's destination is not primary: no site takes writes. A re-run promotes
         * B once B accepts; to go back instead, promote the source on site A again.
         */
        NO_PRIMARY,
        /**
         * Site A is demoted and site B's promote got no answer (14 UNAVAILABLE or 4 DEADLINE_EXCEEDED): site B may or
         * may not be primary. A re-run finds out and finishes.
         */
        PROMOTE_UNANSWERED,
        /**
         * Site A's demote got no answer (14 UNAVAILABLE or 4 DEADLINE_EXCEEDED) and nothing was promoted: site A may
         * still be primary or be demoted. A re-run once site A answers finishes; with force only if site A is known
         * down.
         */
        DEMOTE_UNANSWERED,
        /** This run changed nothing on either site: it stopped before site A's demote. Fix the cause, run again. */
        UNCHANGED
    }

    public SourceFailover {
        Arguments.requireNonNull(
                "source",
                source,
                "destination",
                destination,
                "step",
                step,
                "siteA",
                siteA,
                "state",
                state,
                "lastSync",
                lastSync,
                "replicating",
                replicating,
                "whyNot",
                whyNot);
        calls = List.copyOf(calls);
    }

    /** Where the destination came from, when it was resolved. */
    public Optional<Destination.Origin> destinationOrigin() {
        return destination.map(Destination::origin);
    }

    /** Whether the source is primary on B. */
    public boolean primaryOnB() {
        return step == FailoverStep.PRIMARY_ON_B;
    }
}
