package io.volrep.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The exploration against a fresh set of one-defect plugins (refused calls that still change the source, defects seen
 * only after a longer history, force ignored or let past a precondition, repeated answers that disagree, transient
 * answers that never end, a peer site left behind): each is failed by its named check, with the calls that show it.
 */
class ExplorationDefectSelfTest {

    @ParameterizedTest
    @EnumSource(ExplorationDefect.class)
    void eachDefectIsFailedByItsNamedCheckWithTheCallsThatShowIt(ExplorationDefect defect) {
        ComplianceReport report = ConformanceRunner.of(defect.target().build()).run();

        List<CheckResult> caught = report.results().stream()
                .filter(r -> defect.byName() ? r.name().equals(defect.caughtBy()) : r.id().equals(defect.caughtBy()))
                .toList();
        assertThat(caught)
                .as(
                        "check %s for defect %s; failed: %s",
                        defect.caughtBy(),
                        defect,
                        report.failed().stream()
                                .map(r -> r.id() + ": " + r.reason())
                                .toList())
                .singleElement()
                .satisfies(r -> {
                    Caught.byOrBecause(report, r);
                    assertThat(r.hint()).isNotBlank();
                });
        assertThat(report.compliant()).isEqualTo(!defect.breaksCompliance());
        if (defect.caughtBy()
                .matches("[A-Za-z]+/(volume|group)/((disabled|primary|secondary)(/force)?|auth-wrong"
                        + "|auth-missing|consistent)")) {
            // An exploration check: the failure names the calls that lead to it, from replication disabled.
            if (caught.get(0).outcome() == CheckOutcome.FAILED) {
                assertThat(caught.get(0).reason()).contains("the calls that show it, from replication disabled: ");
            }
        }
    }

    /**
     * Issue 47 item 10: a re-enable that answers 0 OK and does nothing shows only when the next call of a history (a
     * demote, "not replicated") answers otherwise; the failure is the enable's, the earliest call of the path whose
     * effect is missing, not the demote that tripped over it.
     */
    @Test
    void aStateNotReachedNamesTheEarliestCallWhoseEffectIsMissing() {
        ComplianceReport report = ConformanceRunner.of(
                        ExplorationDefect.REENABLE_DOES_NOTHING.target().build())
                .run();

        assertThat(report.failed())
                .as("failed: %s", report.failed())
                .extracting(CheckResult::id)
                .containsExactly("EnableVolumeReplication/volume/disabled");
        assertThat(report.results())
                .filteredOn(r -> r.id().equals("DemoteVolume/volume/primary"))
                .singleElement()
                .satisfies(r -> assertThat(r.outcome()).isIn(CheckOutcome.PASSED, CheckOutcome.NOT_RUN));
        CheckResult enable = report.failed().stream()
                .filter(r -> r.id().equals("EnableVolumeReplication/volume/disabled"))
                .findFirst()
                .orElseThrow();
        assertThat(enable.reason())
                .contains("EnableVolumeReplication on volume vol-")
                .contains("answered 0 OK in replication disabled but replication enabled, primary was not reached");
    }
}
