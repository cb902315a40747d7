package io.volrep.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The kit against one-defect plugins that only answers compared with each other show (issue 47): each is caught by
 * its named check at the level the defect breaks (an optional check that finds a MUST broken fails as required), the
 * failure names the call where it must, and the report is not compliant.
 */
class SecondLookDefectSelfTest {

    @ParameterizedTest
    @EnumSource(SecondLookDefect.class)
    void eachDefectIsCaughtByItsNamedCheck(SecondLookDefect defect) {
        ComplianceReport report = ConformanceRunner.of(defect.target().build()).run();

        CheckResult caught = report.results().stream()
                .filter(r -> r.id().equals(defect.caughtBy()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no check " + defect.caughtBy()));
        assertThat(caught.outcome())
                .as("%s for %s; failed: %s", defect.caughtBy(), defect, report.failed())
                .isEqualTo(CheckOutcome.FAILED);
        assertThat(caught.requirement()).as(caught.toString()).isEqualTo(defect.level());
        assertThat(caught.reason()).contains(defect.mustName());
        assertThat(report.compliant()).as(report.statement()).isFalse();
        if (defect.onlyFail()) {
            assertThat(report.failed()).extracting(CheckResult::id).containsExactly(defect.caughtBy());
        }
    }
}
