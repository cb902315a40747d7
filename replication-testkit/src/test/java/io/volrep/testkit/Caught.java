package io.volrep.testkit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What "caught" means for a defect's named check: it failed, or it did not run because of a check that failed (one
 * defect, one FAIL: the failure that names the defect first is reported as such, its consequences as NOT RUN naming
 * it).
 */
final class Caught {
    private Caught() {}

    /** Asserts that {@code r} failed, or did not run because of a check of {@code report} that failed. */
    static void byOrBecause(ComplianceReport report, CheckResult r) {
        if (r.outcome() == CheckOutcome.FAILED) {
            return;
        }
        assertThat(r.outcome()).as(r.toString()).isEqualTo(CheckOutcome.NOT_RUN);
        String prefix = ConformanceContext.NOT_RUN_PREFIX + ConformanceContext.BECAUSE_OF;
        assertThat(r.reason()).startsWith(prefix);
        String cause = r.reason().substring(prefix.length(), r.reason().indexOf(", which failed"));
        assertThat(report.failed()).extracting(CheckResult::id).contains(cause);
    }
}
