package io.volrep.testkit;

import java.time.Duration;
import java.util.Objects;

/**
 * How one check of a run ended. Immutable; made with {@link #builder()}.
 *
 * <pre>{@code
 * for (CheckResult r : report.failed()) {
 *     System.out.println(r.id() + " " + r.name() + ": " + r.reason());
 * }
 * }</pre>
 */
public final class CheckResult {
    private final String group;
    private final String name;
    private final Requirement requirement;
    private final CheckOutcome outcome;
    private final String reason;
    private final Duration duration;
    private final String id;
    private final String hint;
    private final Duration waited;

    private CheckResult(Builder b) {
        this.name = Objects.requireNonNull(b.name, "name");
        this.group = b.group;
        this.requirement = b.requirement;
        this.outcome = Objects.requireNonNull(b.outcome, "outcome");
        this.reason = b.reason;
        this.duration = b.duration;
        this.id = b.id == null ? Check.idOf(b.name) : b.id;
        this.hint = b.hint;
        this.waited = b.waited;
    }

    /** A new builder: required, no reason, no hint, no time; the id derived from the name unless set. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this result's values. */
    public Builder toBuilder() {
        return builder()
                .group(group)
                .name(name)
                .requirement(requirement)
                .outcome(outcome)
                .reason(reason)
                .duration(duration)
                .id(id)
                .hint(hint)
                .waited(waited);
    }

    /** The check's group, e.g. {@code PromoteVolume} or {@code Isolation}. */
    public String group() {
        return group;
    }

    /** The check's name, e.g. {@code "PromoteVolume: ... -> 9 FAILED_PRECONDITION [volume, replication disabled]"}. */
    public String name() {
        return name;
    }

    /**
     * Required or optional; an optional check that found a MUST broken (a code outside the table, a refusal with a
     * side effect) failed as a required one.
     */
    public Requirement requirement() {
        return requirement;
    }

    /** Passed, failed, not implemented, skipped, a warning, not run, not applicable. */
    public CheckOutcome outcome() {
        return outcome;
    }

    /** Why it failed, was skipped, did not run or is not implemented; empty when it passed. */
    public String reason() {
        return reason;
    }

    /**
     * How long the check itself ran (its calls and its restore; for a check of the lifecycle exploration, its edges'
     * calls), not the time it waited for its fixtures while others ran.
     */
    public Duration duration() {
        return duration;
    }

    /** The check's stable id (what {@code --skip} takes), e.g. {@code "PromoteVolume/volume/disabled"}. */
    public String id() {
        return id;
    }

    /** What to look at when it fails; may be empty. */
    public String hint() {
        return hint;
    }

    /** How long the check polled transient answers the tables allow (10, 14, Info's 5) before judging. */
    public Duration waited() {
        return waited;
    }

    @Override
    public String toString() {
        return outcome.label() + " " + requirement.tag() + " " + id + " (" + name + ")"
                + (reason.isEmpty() ? "" : ": " + reason);
    }

    /** Builds a {@link CheckResult}. */
    public static final class Builder {
        private String group = "";
        private String name;
        private Requirement requirement = Requirement.REQUIRED;
        private CheckOutcome outcome;
        private String reason = "";
        private Duration duration = Duration.ZERO;
        private String id;
        private String hint = "";
        private Duration waited = Duration.ZERO;

        private Builder() {}

        /** The check's group (default empty). */
        public Builder group(String group) {
            this.group = Objects.requireNonNull(group, "group");
            return this;
        }

        /** The check's name. Required. */
        public Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /** Required (the default) or optional. */
        public Builder requirement(Requirement requirement) {
            this.requirement = Objects.requireNonNull(requirement, "requirement");
            return this;
        }

        /** How it ended. Required. */
        public Builder outcome(CheckOutcome outcome) {
            this.outcome = Objects.requireNonNull(outcome, "outcome");
            return this;
        }

        /** Why (default empty). */
        public Builder reason(String reason) {
            this.reason = Objects.requireNonNull(reason, "reason");
            return this;
        }

        /** How long it ran (default zero). */
        public Builder duration(Duration duration) {
            this.duration = Objects.requireNonNull(duration, "duration");
            return this;
        }

        /** The check's id (default: derived from the name). */
        public Builder id(String id) {
            this.id = Objects.requireNonNull(id, "id");
            return this;
        }

        /** The hint (default empty). */
        public Builder hint(String hint) {
            this.hint = Objects.requireNonNull(hint, "hint");
            return this;
        }

        /** How long it polled transient answers (default zero). */
        public Builder waited(Duration waited) {
            this.waited = Objects.requireNonNull(waited, "waited");
            return this;
        }

        /** The result; throws {@link NullPointerException} without a name or an outcome. */
        public CheckResult build() {
            return new CheckResult(this);
        }
    }
}
