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
 * @param forced      whether PromoteVolume was sent to B with {@code force}
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
