package io.volrep.testkit;

import io.volrep.api.Rpc;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The result of a conformance run: every check's result and the compliance statement. The plugin is compliant
 * exactly when no required check failed (and the run itself did not fail); a run with {@link Builder#requireAll
 * requireAll} is compliant only when, besides, every required check ran. Immutable; the runner makes it.
 *
 * <pre>{@code
 * ComplianceReport report = ConformanceRunner.of(config).run();
 * System.out.println(report.statement());
 * System.exit(report.compliant() ? 0 : 1);
 * }</pre>
 */
public final class ComplianceReport {
    private static final Pattern NOT_IMPLEMENTED_RPC =
            // An RPC ("PromoteVolume") or, for an optional service, its qualified name ("identity.Identity/Probe"
            // lists as "identity.Identity").
            Pattern.compile(Pattern.quote(ConformanceContext.NOT_IMPLEMENTED_PREFIX) + "([\\w.]+)");
    private static final Pattern NOT_APPLICABLE_SERVICE =
            Pattern.compile(Pattern.quote(ConformanceContext.NOT_APPLICABLE_PREFIX) + "([\\w.]+)");
    /** The option a skip's reason names: {@code "no secrets configured (--secret K=V): ..."}. */
    private static final Pattern OPTION = Pattern.compile("\\((--[a-z-]+)");

    private final String target;
    private final List<CheckResult> results;
    private final Duration duration;
    private final String walk;
    private final long calls;
    private final boolean requireAll;
    private final int requiredLeftOut;
    private final String leftOutBy;

    private ComplianceReport(Builder b) {
        this.target = Objects.requireNonNull(b.target, "target");
        this.results = List.copyOf(b.results);
        this.duration = b.duration;
        this.walk = b.walk;
        this.calls = b.calls;
        this.requireAll = b.requireAll;
        this.requiredLeftOut = b.requiredLeftOut;
        this.leftOutBy = b.leftOutBy;
    }

    /** A new builder: no results, no time, no walk figures. */
    public static Builder builder() {
        return new Builder();
    }

    /** What was tested. */
    public String target() {
        return target;
    }

    /** Every check, in run order (plus, as failed required results, any suite-level error). */
    public List<CheckResult> results() {
        return results;
    }

    /** The run's wall time. */
    public Duration duration() {
        return duration;
    }

    /**
     * What the lifecycle exploration covered, e.g. {@code "3 states x 24 actions x 2 source kinds, 4 histories, 315
     * edges planned, seed 0, 963 taken"}; may be empty.
     */
    public String walk() {
        return walk;
    }

    /** How many calls the run sent to the target (0 when not counted). */
    public long calls() {
        return calls;
    }

    /** True when a required check that did not run makes the run not compliant ({@code --require-all}). */
    public boolean requireAll() {
        return requireAll;
    }

    /** The ids of the checks skipped on request ({@code --skip}). */
    public List<String> skippedOnRequest() {
        return results.stream()
                .filter(ComplianceReport::onRequest)
                .map(CheckResult::id)
                .toList();
    }

    private static boolean onRequest(CheckResult r) {
        return r.outcome() == CheckOutcome.SKIPPED
                && r.reason().startsWith(ConformanceContext.SKIPPED_PREFIX + ReplicationConformanceSuite.ON_REQUEST);
    }

    /**
     * How many of the lifecycle exploration's checks (every RPC in every state, per kind; with force; with wrong and
     * missing secrets) ran, i.e. were not skipped.
     */
    public long walkChecks() {
        return results.stream()
                .filter(r -> WALK_ID.matcher(r.id()).matches() && r.outcome() != CheckOutcome.SKIPPED)
                .count();
    }

    /** The checks that did not run ({@link CheckOutcome#NOT_RUN}): they need a peer site, or another check failed. */
    public List<CheckResult> notRun() {
        return results.stream().filter(r -> r.outcome() == CheckOutcome.NOT_RUN).toList();
    }

    /** The checks that did not run because another check's failure is the cause of theirs (one defect, one FAIL). */
    public List<CheckResult> consequences() {
        return notRun().stream().filter(ComplianceReport::consequence).toList();
    }

    private static boolean consequence(CheckResult r) {
        return r.outcome() == CheckOutcome.NOT_RUN
                && r.reason().startsWith(ConformanceContext.NOT_RUN_PREFIX + ConformanceContext.BECAUSE_OF);
    }

    /**
     * The required checks that did not run: skipped (fixtures not configured, or on request) or not run (no peer site,
     * or the consequence of a failed check). Not those the plugin's revision or its Identity make not applicable, nor
     * those not implemented where the spec allows it.
     */
    public List<CheckResult> requiredNotRun() {
        return results.stream()
                .filter(r -> r.requirement() == Requirement.REQUIRED
                        && (r.outcome() == CheckOutcome.SKIPPED || r.outcome() == CheckOutcome.NOT_RUN))
                .toList();
    }

    /**
     * How many required checks did not run: {@link #requiredNotRun()} and those a filter left out of the run ({@code
     * --include-tag optional}), which have no result.
     */
    public int requiredNotRunCount() {
        return requiredNotRun().size() + requiredLeftOut;
    }

    /** A walk check's id, {@code <Rpc>/<volume|group>/<state>}: an RPC first, so no per-fixture id can look like one. */
    static final Pattern WALK_ID = Pattern.compile("("
            + String.join(
                    "|",
                    Arrays.stream(Rpc.values())
                            .filter(Rpc::isReplication)
                            .map(Rpc::methodName)
                            .toList())
            + ")/(volume|group)/("
            + String.join(
                    "|",
                    Arrays.stream(LifecycleModel.State.values())
                            .map(LifecycleModel.State::id)
                            .toList())
            + ")(/force)?|("
            + String.join(
                    "|",
                    Arrays.stream(Rpc.values())
                            .filter(Rpc::isReplication)
                            .map(Rpc::methodName)
                            .toList())
            + ")/(volume|group)/(auth-wrong|auth-missing|consistent|last-sync-time-over-time)");

    /** How many checks at {@code requirement} ended with {@code outcome}. */
    public long count(Requirement requirement, CheckOutcome outcome) {
        return results.stream()
                .filter(r -> r.requirement() == requirement && r.outcome() == outcome)
                .count();
    }

    /** The checks that ended with a warning: not failures, but worth reading. */
    public List<CheckResult> warnings() {
        return results.stream().filter(r -> r.outcome() == CheckOutcome.WARNING).toList();
    }

    /** The checks that failed. */
    public List<CheckResult> failed() {
        return results.stream().filter(r -> r.outcome() == CheckOutcome.FAILED).toList();
    }

    /** The result of the check named {@code name}, if it ran. */
    public Optional<CheckResult> result(String name) {
        return results.stream().filter(r -> r.name().equals(name)).findFirst();
    }

    /** The RPCs (or, for Identity, the service) that answered 12 UNIMPLEMENTED where the spec allows it. */
    public Set<String> notImplementedRpcs() {
        return named(CheckOutcome.NOT_IMPLEMENTED, NOT_IMPLEMENTED_RPC);
    }

    /** The services the plugin does not advertise, whose checks were not applicable. */
    public Set<String> notApplicableServices() {
        return named(CheckOutcome.NOT_APPLICABLE, NOT_APPLICABLE_SERVICE);
    }

    private Set<String> named(CheckOutcome outcome, Pattern pattern) {
        Set<String> names = new TreeSet<>();
        for (CheckResult r : results) {
            if (r.outcome() == outcome) {
                Matcher m = pattern.matcher(r.reason());
                if (m.find()) {
                    names.add(m.group(1));
                }
            }
        }
        return names;
    }

    /**
     * True when every required check that ran passed (or is not implemented where the spec allows it), and, with
     * {@link #requireAll()}, every required check ran.
     */
    public boolean compliant() {
        return count(Requirement.REQUIRED, CheckOutcome.FAILED) == 0 && !(requireAll && requiredNotRunCount() > 0);
    }

    /**
     * Why the required checks that did not run did not, and what runs them: {@code "23 need a peer site:
     * --peer-endpoint; 3 need secrets: --secret K=V or --secrets-file"}, most first.
     */
    public String whyRequiredNotRun() {
        Map<String, Long> byWhy = new LinkedHashMap<>();
        for (CheckResult r : requiredNotRun()) {
            byWhy.merge(why(r), 1L, Long::sum);
        }
        if (requiredLeftOut > 0) {
            byWhy.merge("were left out by " + leftOutBy + " (run without it)", (long) requiredLeftOut, Long::sum);
        }
        List<Map.Entry<String, Long>> sorted = new ArrayList<>(byWhy.entrySet());
        sorted.sort(Map.Entry.<String, Long>comparingByValue().reversed());
        List<String> parts = new ArrayList<>();
        sorted.forEach(e -> parts.add(e.getValue() + " " + e.getKey()));
        return String.join("; ", parts);
    }

    /** Why one required check did not run, and the option that runs it, as the statement groups them. */
    private static String why(CheckResult r) {
        if (consequence(r)) {
            return "did not run because another check failed (each names it)";
        }
        if (r.outcome() == CheckOutcome.NOT_RUN) {
            return "need a peer site: --peer-endpoint";
        }
        if (onRequest(r)) {
            return "were skipped on request: --skip";
        }
        Matcher option = OPTION.matcher(r.reason());
        if (!option.find()) {
            return "were skipped for what the plugin answered (each says what)";
        }
        return switch (option.group(1)) {
            case "--secret", "--secrets-file" -> "need secrets: --secret K=V or --secrets-file";
            case "--volume-group" -> "need a volume group: --volume-group";
            case "--volume" -> "need more fixture volumes: --volume";
            case "--healer-volume" -> "need a node volume: --healer-volume ID=PATH";
            default -> "need " + option.group(1);
        };
    }

    /** The compliance statement, several lines. */
    public String statement() {
        long notImplemented = results.stream()
                .filter(r -> r.outcome() == CheckOutcome.NOT_IMPLEMENTED)
                .count();
        long notApplicable = results.stream()
                .filter(r -> r.outcome() == CheckOutcome.NOT_APPLICABLE)
                .count();
        List<String> onRequest = skippedOnRequest();
        long skipped = results.stream()
                        .filter(r -> r.outcome() == CheckOutcome.SKIPPED)
                        .count()
                - onRequest.size();
        long consequences = consequences().size();
        long needPeer = notRun().size() - consequences;
        int requiredNotRun = requiredNotRunCount();
        boolean failedSome = count(Requirement.REQUIRED, CheckOutcome.FAILED) > 0;
        String notRunNote = requiredNotRun + " required checks not run (" + whyRequiredNotRun() + ")";
        StringBuilder sb = new StringBuilder();
        if (failedSome) {
            sb.append("NOT COMPLIANT: ");
        } else if (requiredNotRun > 0 && requireAll) {
            sb.append("NOT COMPLIANT (--require-all): ").append(notRunNote).append(": ");
        } else if (requiredNotRun > 0) {
            sb.append("COMPLIANT for the checks run; ").append(notRunNote).append(": ");
        } else {
            sb.append("COMPLIANT: ");
        }
        sb.append(target)
                .append(" against the CSI-Addons replication spec\n")
                .append("  required checks: ")
                .append(count(Requirement.REQUIRED, CheckOutcome.PASSED))
                .append(" passed, ")
                .append(count(Requirement.REQUIRED, CheckOutcome.FAILED))
                .append(" failed\n")
                .append("  optional checks: ")
                .append(count(Requirement.OPTIONAL, CheckOutcome.PASSED))
                .append(" passed, ")
                .append(count(Requirement.OPTIONAL, CheckOutcome.FAILED))
                .append(" failed\n")
                .append("  not implemented (allowed by the spec): ")
                .append(notImplemented)
                .append(" checks");
        Set<String> rpcs = notImplementedRpcs();
        if (!rpcs.isEmpty()) {
            sb.append(" (").append(String.join(", ", rpcs)).append(')');
        }
        sb.append('\n');
        if (notApplicable > 0) {
            sb.append("  not applicable (services Identity does not advertise): ")
                    .append(notApplicable)
                    .append(" checks");
            Set<String> services = notApplicableServices();
            if (!services.isEmpty()) {
                sb.append(" (").append(String.join(", ", services)).append(')');
            }
            sb.append('\n');
        }
        List<CheckResult> warnings = warnings();
        if (!warnings.isEmpty()) {
            sb.append("  warnings (not failures): ")
                    .append(warnings.size())
                    .append(" checks (")
                    .append(String.join(
                            ", ", warnings.stream().map(CheckResult::id).toList()))
                    .append(")\n");
        }
        sb.append("  skipped (fixtures not configured): ").append(skipped).append(" checks\n");
        if (needPeer > 0) {
            sb.append("  not run (they need a peer site: --peer-endpoint): ")
                    .append(needPeer)
                    .append(" checks\n");
        }
        if (consequences > 0) {
            sb.append("  not run (consequences of a failed check, each names it): ")
                    .append(consequences)
                    .append(" checks\n");
        }
        if (!onRequest.isEmpty()) {
            sb.append("  skipped on request: ")
                    .append(onRequest.size())
                    .append(" checks (")
                    .append(String.join(", ", onRequest))
                    .append(")\n");
        }
        if (requiredNotRun > 0) {
            sb.append("  required checks not run: ")
                    .append(requiredNotRun)
                    .append(" (")
                    .append(whyRequiredNotRun());
            sb.append(requireAll ? "; --require-all: not compliant" : "; --require-all makes this not compliant")
                    .append(")\n");
        }
        if (!walk.isEmpty()) {
            sb.append("  lifecycle exploration: ")
                    .append(walk)
                    .append(": ")
                    .append(walkChecks())
                    .append(" checks; ")
                    .append(calls)
                    .append(" calls in the whole run\n");
        }
        sb.append("  time: ").append(duration.toMillis()).append(" ms");
        return sb.toString();
    }

    /** Builds a {@link ComplianceReport}. */
    public static final class Builder {
        private String target;
        private final List<CheckResult> results = new ArrayList<>();
        private Duration duration = Duration.ZERO;
        private String walk = "";
        private long calls;
        private boolean requireAll;
        private int requiredLeftOut;
        private String leftOutBy = "";

        private Builder() {}

        /** What was tested. Required. */
        public Builder target(String target) {
            this.target = Objects.requireNonNull(target, "target");
            return this;
        }

        /** Adds check results, in run order. */
        public Builder results(List<CheckResult> results) {
            this.results.addAll(results);
            return this;
        }

        /** The run's wall time. */
        public Builder duration(Duration duration) {
            this.duration = Objects.requireNonNull(duration, "duration");
            return this;
        }

        /** What the lifecycle exploration covered. */
        public Builder walk(String walk) {
            this.walk = Objects.requireNonNull(walk, "walk");
            return this;
        }

        /** How many calls the run sent. */
        public Builder calls(long calls) {
            this.calls = calls;
            return this;
        }

        /** True when a required check that did not run makes the run not compliant. */
        public Builder requireAll(boolean requireAll) {
            this.requireAll = requireAll;
            return this;
        }

        /**
         * The number of required checks a filter left out of the run (not even listed), and the option that did:
         * {@code requiredLeftOut(190, "--include-tag optional")}. The statement counts them among the required checks
         * not run.
         */
        public Builder requiredLeftOut(int count, String by) {
            this.requiredLeftOut = count;
            this.leftOutBy = Objects.requireNonNull(by, "by");
            return this;
        }

        /** The report. */
        public ComplianceReport build() {
            return new ComplianceReport(this);
        }
    }
}
