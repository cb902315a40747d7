package io.volrep.testkit;

import io.volrep.api.Secrets;
import io.volrep.api.internal.SafeText;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestTag;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.opentest4j.TestAbortedException;

/**
 * Collects a {@link CheckResult} per check and, when given a writer, prints one progress line per check:
 * {@code PASS}, {@code FAIL}, {@code NOT IMPLEMENTED}, {@code SKIPPED}, {@code WARNING} or {@code NOT RUN}, the level,
 * the check's name, how long it ran (and polled transient answers) and the reason. A failure outside any check (the
 * target could not be reached, say) is recorded as a failed required result, so such a run is never compliant.
 *
 * <p>How long a check ran is what the run measured of the check itself ({@link CheckTimes}): checks run several at a
 * time while they are reported in order, so the time since the previous report line also counts the time a check
 * waited for its fixtures. Without such a record (a listener given none) it is that time.
 *
 * <pre>{@code
 * ConformanceListener listener = new ConformanceListener(new PrintWriter(System.out, true));
 * launcher.execute(request, listener);
 * List<CheckResult> results = listener.results();
 * }</pre>
 */
final class ConformanceListener implements TestExecutionListener {
    private final PrintWriter out;
    private final List<CheckResult> results = new ArrayList<>();
    private final Map<String, Long> started = new ConcurrentHashMap<>();
    private final Map<String, Check> checksByName;
    private final Supplier<CheckTimes> times;
    private final Secrets secrets;
    private TestPlan plan;

    /** A listener that prints progress to {@code out}, or only collects when {@code out} is null. */
    public ConformanceListener(PrintWriter out) {
        this(out, List.of());
    }

    /** Same, knowing the run's checks, so results carry their ids and hints. */
    public ConformanceListener(PrintWriter out, List<Check> checks) {
        this(out, checks, Secrets.empty());
    }

    /**
     * Same, masking {@code secrets}' values in what it prints and records. A check's failure arrives masked and
     * escaped already (the suite's session does it, for every runner); a failure outside any check is made so here.
     */
    public ConformanceListener(PrintWriter out, List<Check> checks, Secrets secrets) {
        this(out, checks, secrets, CheckTimes::new);
    }

    /** Same, with how long each check (by name) ran and polled transient answers, for the progress line and results. */
    ConformanceListener(PrintWriter out, List<Check> checks, Secrets secrets, Supplier<CheckTimes> times) {
        this.out = out;
        this.secrets = Objects.requireNonNull(secrets, "secrets");
        this.times = times;
        Map<String, Check> byName = new HashMap<>();
        checks.forEach(c -> byName.putIfAbsent(c.name(), c));
        this.checksByName = byName;
    }

    /** The results so far, in completion order. */
    public synchronized List<CheckResult> results() {
        return List.copyOf(results);
    }

    @Override
    public void testPlanExecutionStarted(TestPlan testPlan) {
        this.plan = testPlan;
    }

    @Override
    public void executionStarted(TestIdentifier id) {
        started.put(id.getUniqueId(), System.nanoTime());
    }

    @Override
    public void executionSkipped(TestIdentifier id, String reason) {
        if (id.isTest()) {
            record(id, CheckOutcome.SKIPPED, ConformanceContext.SKIPPED_PREFIX + reason);
        }
    }

    @Override
    public void executionFinished(TestIdentifier id, TestExecutionResult result) {
        Optional<Throwable> error = result.getThrowable();
        String message = error.map(ConformanceListener::describe).orElse("");
        switch (result.getStatus()) {
            case SUCCESSFUL -> {
                if (id.isTest()) {
                    record(id, CheckOutcome.PASSED, "");
                }
            }
            case ABORTED -> {
                if (id.isTest()) {
                    record(id, abortedOutcome(message), message);
                } else if (!(error.orElse(null) instanceof TestAbortedException)) {
                    record(id, CheckOutcome.FAILED, "suite aborted: " + outsideAnyCheck(message));
                }
            }
            case FAILED ->
                record(
                        id,
                        CheckOutcome.FAILED,
                        id.isTest()
                                ? message
                                : "suite error in " + id.getDisplayName() + ": " + outsideAnyCheck(message));
            default -> {}
        }
    }

    /** How an aborted check ended, from its message's prefix: skipped unless it says otherwise. */
    private static CheckOutcome abortedOutcome(String message) {
        for (CheckOutcome o : List.of(
                CheckOutcome.NOT_IMPLEMENTED,
                CheckOutcome.WARNING,
                CheckOutcome.NOT_RUN,
                CheckOutcome.NOT_APPLICABLE)) {
            if (message.startsWith(o.label() + ": ")) {
                return o;
            }
        }
        return CheckOutcome.SKIPPED;
    }

    /** A failure outside any check (no session made it safe): secrets masked, control characters escaped. */
    private String outsideAnyCheck(String message) {
        return SafeText.escape(secrets.scrub(message));
    }

    private static String describe(Throwable t) {
        String m = t.getMessage();
        if (m == null || m.isBlank()) {
            return t.getClass().getName();
        }
        int idLine = m.indexOf(CHECK_LINE); // the id and hint the session appends; results carry them apart
        return idLine < 0 ? m : m.substring(0, idLine);
    }

    /** How the session's failure messages introduce the check's id and hint. */
    static final String CHECK_LINE = "\n  check ";

    private synchronized void record(TestIdentifier id, CheckOutcome outcome, String reason) {
        Long start = started.remove(id.getUniqueId());
        Duration reported = start == null ? Duration.ZERO : Duration.ofNanos(System.nanoTime() - start);
        CheckTimes measured = times.get();
        Duration duration = id.isTest() ? measured.ran(id.getDisplayName()).orElse(reported) : reported;
        // An optional check that found a MUST broken fails as a required one.
        Requirement requirement = outcome == CheckOutcome.FAILED && reason.startsWith(ConformanceContext.MUST_PREFIX)
                ? Requirement.REQUIRED
                : requirementOf(id);
        String container = plan == null
                ? ""
                : plan.getParent(id)
                        .map(c -> ReplicationConformanceSuite.containerName(plan, c))
                        .orElse("");
        String group = container.endsWith(ReplicationConformanceSuite.OPTIONAL_SUFFIX)
                ? container.substring(0, container.length() - ReplicationConformanceSuite.OPTIONAL_SUFFIX.length())
                : container;
        Check check = checksByName.get(id.getDisplayName());
        Duration waited = id.isTest() ? measured.waited(id.getDisplayName()) : Duration.ZERO;
        CheckResult r = CheckResult.builder()
                .group(group)
                .name(id.getDisplayName())
                .requirement(requirement)
                .outcome(outcome)
                .reason(reason)
                .duration(duration)
                .id(check == null ? Check.idOf(id.getDisplayName()) : check.id())
                .hint(check == null ? "" : check.hint())
                .waited(waited)
                .build();
        results.add(r);
        if (out != null) {
            out.printf(
                    "%-15s %-8s %s (%d ms%s)%n",
                    outcome.label(),
                    requirement.tag(),
                    r.name(),
                    duration.toMillis(),
                    r.waited().isZero() ? "" : "; waited " + Durations.describe(r.waited()) + " for transient answers");
            if (!reason.isEmpty()) {
                out.printf("%-15s -> %s%n", "", reason.replace("\n", " "));
            }
            if (outcome == CheckOutcome.FAILED && check != null) {
                out.printf("%-15s check %s%s%n", "", r.id(), r.hint().isEmpty() ? "" : ": " + r.hint());
            }
            out.flush();
        }
    }

    /** The level from the nearest ancestor tagged required or optional; suite-level errors count as required. */
    private Requirement requirementOf(TestIdentifier id) {
        Optional<TestIdentifier> current = Optional.of(id);
        while (current.isPresent()) {
            for (TestTag tag : current.get().getTags()) {
                if (tag.getName().equals(Requirement.OPTIONAL.tag())) {
                    return Requirement.OPTIONAL;
                }
                if (tag.getName().equals(Requirement.REQUIRED.tag())) {
                    return Requirement.REQUIRED;
                }
            }
            current = plan == null ? Optional.empty() : plan.getParent(current.get());
        }
        return Requirement.REQUIRED;
    }
}
