package io.volrep.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.api.ReplicationSource;
import io.volrep.testkit.reference.ReferenceDriver;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Usable on slow, real storage (issue 30): against a plugin that takes 200 ms per call, with the fixtures of
 * docs/vendor-ci.md (16 volumes, 2 groups, a healer volume), the whole suite ends within 45 s, because fixtures run
 * in parallel and the run lasts as long as its busiest fixture (the groups), not the sum of its calls.
 */
class SlowStorageBudgetTest {

    @Test
    void twoHundredMillisecondsPerCallSixteenVolumesTwoGroupsWithinFortyFiveSeconds() {
        ReferenceDriver reference = ReferenceDriver.builder()
                .volumes(16)
                .groups(2)
                .requiredSecret("user", "admin")
                .latency(Duration.ofMillis(200))
                .build();
        List<String> volumes = IntStream.range(0, 16).mapToObj(i -> "vol-" + i).toList();
        ComplianceReport report = ConformanceRunner.of(ConformanceConfig.builder()
                        .driver(reference)
                        .healerDriver(reference)
                        .healerVolume("vol-0", "/var/lib/volrep/vol-0")
                        .volumes(volumes)
                        .volumeGroups("grp-0", "grp-1")
                        .secrets(Map.of("user", "admin"))
                        .build())
                .run();
        System.out.println(report.statement());

        assertThat(report.failed()).isEmpty();
        assertThat(report.calls())
                .as("the exploration may make more calls than the 1,040 of the list-driven suite")
                .isGreaterThan(1040);
        // At 200 ms a call, the calls alone would take calls x 0.2 s one at a time: the run takes a fraction of it.
        assertThat(report.duration())
                .isLessThan(Duration.ofSeconds(45))
                .isLessThan(Duration.ofMillis(report.calls() * 200 / 5));
        for (ReplicationSource source : reference.sources()) {
            assertThat(reference.state(source).enabled())
                    .as("%s left enabled", source)
                    .isFalse();
        }

        // Each check reports how long it ran, not how long the report waited for it: checks that overlapped add up
        // to more than the run (report lines are sequential, so times taken between them never would), and no
        // check of this run took longer than the run.
        Duration checksTogether =
                report.results().stream().map(CheckResult::duration).reduce(Duration.ZERO, Duration::plus);
        assertThat(checksTogether)
                .as("the checks' times together, against the run's %s", report.duration())
                .isGreaterThan(report.duration().multipliedBy(2));
        assertThat(report.results())
                .allSatisfy(r -> assertThat(r.duration()).as(r.name()).isLessThanOrEqualTo(report.duration()));
        // A check of the exploration ran as long as the calls of its edges: at least one call of 200 ms each (the
        // destinations' consistency is judged from the calls of the destination edges, and has none of its own).
        List<CheckResult> walked = report.results().stream()
                .filter(r -> ComplianceReport.WALK_ID.matcher(r.id()).matches()
                        && r.outcome() == CheckOutcome.PASSED
                        && !r.id().endsWith("/consistent"))
                .toList();
        assertThat(walked)
                .isNotEmpty()
                .allSatisfy(r -> assertThat(r.duration()).as(r.name()).isGreaterThanOrEqualTo(Duration.ofMillis(200)));
    }
}
