package io.volrep.testkit;

import java.time.Duration;

/**
 * How one check of a run ended.
 *
 * <pre>{@code
 * for (CheckResult r : report.failed()) {
 *     System.out.println(r.name() + ": " + r.reason());
 * }
 * }</pre>
 *
 * @param group the check's group, e.g. {@code PromoteVolume} or {@code Lifecycle}
 * @param name the check's name, e.g. {@code "PromoteVolume: Replication Source is not replicated -> 9 FAILED_PRECONDITION [volume, replication disabled]"}
 * @param requirement required or optional
 * @param outcome passed, failed, not implemented or skipped
 * @param reason why it failed, was skipped or is not implemented; empty when it passed
 * @param duration how long the check itself ran (its calls and its restore; for a check of the lifecycle
 *                 exploration, its edges' calls), not the time it waited for its fixtures while others ran
 * @param id the check's stable id (what {@code --skip} takes), e.g. {@code "PromoteVolume/volume/disabled"}
 * @param hint what to look at when it fails; may be empty
 * @param waited how long the check polled transient answers the tables allow (10, 14, Info's 5) before judging
 */
public record CheckResult(
        String group,
        String name,
        Requirement requirement,
        CheckOutcome outcome,
        String reason,
        Duration duration,
        String id,
        String hint,
        Duration waited) {

    /** A result that waited for nothing. */
    public CheckResult(
            String group,
            String name,
            Requirement requirement,
            CheckOutcome outcome,
            String reason,
            Duration duration,
            String id,
            String hint) {
        this(group, name, requirement, outcome, reason, duration, id, hint, Duration.ZERO);
    }

    /** A result whose id is derived from its name, without a hint. */
    public CheckResult(
            String group,
            String name,
            Requirement requirement,
            CheckOutcome outcome,
            String reason,
            Duration duration) {
        this(group, name, requirement, outcome, reason, duration, Check.idOf(name), "");
    }
}
