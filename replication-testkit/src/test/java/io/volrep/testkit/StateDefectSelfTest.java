package io.volrep.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The lifecycle walk against plugins with one state or sequencing defect each (defects it was not written against). */
class StateDefectSelfTest {

    @ParameterizedTest
    @EnumSource(StateDefect.class)
    void eachStateDefectIsFailedByItsNamedRequiredCheck(StateDefect defect) {
        ComplianceReport report = ConformanceRunner.of(defect.target().build()).run();

        assertThat(report.result(defect.caughtBy()))
                .as(
                        "check %s for defect %s; failed: %s",
                        defect.caughtBy(),
                        defect,
                        report.failed().stream()
                                .map(r -> r.name() + ": " + r.reason())
                                .toList())
                .hasValueSatisfying(r -> {
                    Caught.byOrBecause(report, r);
                    assertThat(r.requirement()).isEqualTo(Requirement.REQUIRED);
                    assertThat(r.id()).isNotBlank();
                    assertThat(r.hint()).isNotBlank();
                });
        assertThat(report.compliant()).isFalse();
        assertThat(report.statement()).startsWith("NOT COMPLIANT");
    }
}
