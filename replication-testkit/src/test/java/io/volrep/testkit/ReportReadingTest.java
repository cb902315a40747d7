package io.volrep.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.api.ReplicationInfo;
import io.volrep.spi.InfoRequest;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testkit.reference.ReferencePair;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What a vendor reads (issue 49): one FAIL per defect, its consequences NOT RUN naming it; failure text with no
 * escaped line breaks; never COMPLIANT without saying which required checks did not run, and a strict mode.
 */
class ReportReadingTest {

    /** Info answers OK on a secondary too: one defect, in both kinds' paths. */
    private static SpecDriver infoOnSecondary() {
        return new SpecDriver(Defect.SECRETS, Defect.IDS) {
            @Override
            public ReplicationInfo info(InfoRequest r) {
                State s = enabled(r.source(), r.secrets());
                if (!s.primary) {
                    return ReplicationInfo.of(Instant.now()); // defect: a secondary answers as a primary
                }
                return super.info(r);
            }
        };
    }

    @Test
    void oneDefectIsOneFailItsConsequencesAreNotRunNamingIt() {
        ComplianceReport report =
                ConformanceRunner.of(Defect.driver(infoOnSecondary()).build()).run();

        assertThat(report.failed())
                .as("the FAILs: %s", report.failed())
                .extracting(CheckResult::id)
                .containsExactly("GetVolumeReplicationInfo/volume/secondary");
        assertThat(report.consequences())
                .isNotEmpty()
                .allSatisfy(r -> assertThat(r.reason())
                        .startsWith(
                                "NOT RUN: because of check GetVolumeReplicationInfo/volume/secondary, which failed:"));
        assertThat(report.results()).noneSatisfy(r -> assertThat(r.reason()).contains("nothing to judge"));
        assertThat(report.statement())
                .startsWith("NOT COMPLIANT")
                .contains("required checks: ")
                .contains(", 1 failed")
                .contains("not run (consequences of a failed check, each names it): "
                        + report.consequences().size() + " checks");
    }

    @Test
    void noFailureTextHoldsAnEscapedLineBreak() {
        ComplianceReport report =
                ConformanceRunner.of(Defect.driver(infoOnSecondary()).build()).run();
        assertThat(report.results()).allSatisfy(r -> assertThat(r.reason()).doesNotContain("\\n"));
    }

    private static ConformanceConfig.Builder withoutSecrets() {
        ReferenceDriver reference =
                ReferenceDriver.builder().volumes(2).groups(1).build();
        return ConformanceConfig.builder()
                .driver(reference)
                .volumeGroupDriver(reference)
                .volumes("vol-0", "vol-1")
                .volumeGroups("grp-0");
    }

    @Test
    void requiredChecksThatDidNotRunAreNamedWithTheOptionThatRunsThem() {
        ComplianceReport report = ConformanceRunner.of(withoutSecrets().build()).run();

        assertThat(report.failed()).isEmpty();
        assertThat(report.compliant()).isTrue();
        assertThat(report.requiredNotRun()).isNotEmpty();
        String first = report.statement().lines().findFirst().orElseThrow();
        assertThat(first)
                .startsWith("COMPLIANT for the checks run; "
                        + report.requiredNotRun().size() + " required checks not run (")
                .contains("need secrets: --secret K=V or --secrets-file")
                .contains("need a peer site: --peer-endpoint");
        assertThat(report.statement()).doesNotContain("\nCOMPLIANT: ").contains("--require-all");
    }

    @Test
    void requireAllMakesARunWithRequiredChecksNotRunNotCompliant() {
        ComplianceReport report =
                ConformanceRunner.of(withoutSecrets().requireAll(true).build()).run();

        assertThat(report.failed()).isEmpty();
        assertThat(report.compliant()).isFalse();
        assertThat(report.statement()).startsWith("NOT COMPLIANT (--require-all): ");
    }

    @Test
    void aRunOfEveryRequiredCheckIsPlainlyCompliantAndStrictlyToo() {
        ReferencePair pair = ReferenceDriver.builder()
                .volumes(2)
                .groups(1)
                .requiredSecrets(Map.of("user", "admin"))
                .buildPair();
        ComplianceReport report = ConformanceRunner.of(
                        HealerIdentityDialectConformanceTest.withEveryHealerInput(ConformanceConfig.builder()
                                        .driver(pair.siteA())
                                        .peerDriver(pair.siteB())
                                        .healerDriver(pair.siteA())
                                        .volumeGroupDriver(pair.siteA())
                                        .volumes("vol-0", "vol-1")
                                        .volumeGroups("grp-0")
                                        .secrets(Map.of("user", "admin"))
                                        .requireAll(true))
                                .build())
                .run();
        assertThat(report.requiredNotRun()).as("%s", report.requiredNotRun()).isEmpty();
        assertThat(report.compliant()).isTrue();
        assertThat(report.statement()).startsWith("COMPLIANT: ");
    }
}
