package io.volrep.testkit;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The result of a conformance run: every check's result and the compliance statement.
 * The plugin is compliant exactly when no required check failed (and the run itself did not fail).
 *
 * <pre>{@code
 * ComplianceReport report = ConformanceRunner.of(config).run();
 * System.out.println(report.statement());
 * System.exit(report.compliant() ? 0 : 1);
 * }</pre>
 *
 * @param target what was tested
 * @param results every check, in run order (plus, as failed required results, any suite-level error)
 * @param duration wall time of the run
 * @param walk what the lifecycle exploration covered, e.g. {@code "3 states x 24 actions x 2 source kinds, 4 histories,
 *             1021 edges taken, seed 0"}; may be empty
 * @param calls how many calls the run sent to the target (0 when not counted)
 */
public record ComplianceReport(String target, List<CheckResult> results, Duration duration, String walk, long calls) {
    private static final Pattern NOT_IMPLEMENTED_RPC =
            // An RPC ("PromoteVolume") or, for an optional service, its qualified name ("identity.Identity/Probe"
            // lists as "identity.Identity").
            Pattern.compile(Pattern.quote(ConformanceContext.NOT_IMPLEMENTED_PREFIX) + "([\\w.]+)");

    public ComplianceReport {
        results = List.copyOf(results);
    }

    /** A report without walk figures. */
    public ComplianceReport(String target, List<CheckResult> results, Duration duration) {
        this(target, results, duration, "", 0);
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

    /** The checks that did not run for want of a peer site ({@link CheckOutcome#NOT_RUN}). */
    public List<CheckResult> notRun() {
        return results.stream().filter(r -> r.outcome() == CheckOutcome.NOT_RUN).toList();
    }

    /** A walk check's id, {@code <Rpc>/<volume|group>/<state>}: an RPC first, so no per-fixture id can look like one. */
    static final Pattern WALK_ID = Pattern.compile("("
            + String.join(
                    "|",
                    java.util.Arrays.stream(io.volrep.api.Rpc.values())
                            .filter(io.volrep.api.Rpc::isReplication)
                            .map(io.volrep.api.Rpc::methodName)
                            .toList())
            + ")/(volume|group)/("
            + String.join(
                    "|",
                    java.util.Arrays.stream(LifecycleModel.State.values())
                            .map(LifecycleModel.State::id)
                            .toList())
            + ")(/force)?|("
            + String.join(
                    "|",
                    java.util.Arrays.stream(io.volrep.api.Rpc.values())
                            .filter(io.volrep.api.Rpc::isReplication)
                            .map(io.volrep.api.Rpc::methodName)
                            .toList())
            + ")/(volume|group)/(auth-wrong|auth-missing|consistent)");

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
    public java.util.Optional<CheckResult> result(String name) {
        return results.stream().filter(r -> r.name().equals(name)).findFirst();
    }

    /** The RPCs (or, for Identity, the service) that answered 12 UNIMPLEMENTED where the spec allows it. */
    public Set<String> notImplementedRpcs() {
        Set<String> rpcs = new TreeSet<>();
        for (CheckResult r : results) {
            if (r.outcome() == CheckOutcome.NOT_IMPLEMENTED) {
                Matcher m = NOT_IMPLEMENTED_RPC.matcher(r.reason());
                if (m.find()) {
                    rpcs.add(m.group(1));
                }
            }
        }
        return rpcs;
    }

    /** True when every required check that ran passed (or is not implemented where the spec allows it). */
    public boolean compliant() {
        return count(Requirement.REQUIRED, CheckOutcome.FAILED) == 0;
    }

    /** The compliance statement, several lines. */
    public String statement() {
        long notImplemented = results.stream()
                .filter(r -> r.outcome() == CheckOutcome.NOT_IMPLEMENTED)
                .count();
        List<String> onRequest = skippedOnRequest();
        long skipped = results.stream()
                        .filter(r -> r.outcome() == CheckOutcome.SKIPPED)
                        .count()
                - onRequest.size();
        long notRun = notRun().size();
        StringBuilder sb = new StringBuilder();
        sb.append(compliant() ? "COMPLIANT" : "NOT COMPLIANT")
                .append(": ")
                .append(target)
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
        if (notRun > 0) {
            sb.append("  not run (they need a peer site: --peer-endpoint): ")
                    .append(notRun)
                    .append(" checks\n");
        }
        if (!onRequest.isEmpty()) {
            sb.append("  skipped on request: ")
                    .append(onRequest.size())
                    .append(" checks (")
                    .append(String.join(", ", onRequest))
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
}
