package io.volrep.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A vendor's own Surefire run of {@link ReplicationConformanceSuite} names each test case after its check and its
 * class after the suite class and the check group (e.g. {@code com.acme.AcmeConformanceTest.PromoteVolume}). The proof is this module's real Surefire report: {@link ReferenceConformanceTest}
 * extends the suite exactly as a vendor does, Surefire runs it in the test phase, and this IT (integration-test
 * phase) reads what Surefire wrote.
 */
class VendorSurefireReportIT {
    private static final Path REPORTS = Path.of("target", "surefire-reports");

    @Test
    void surefireNamesEachTestCaseAfterItsCheckAndItsClassAfterTheSuiteAndTheGroup() throws IOException {
        assumeTrue(
                Files.exists(REPORTS.resolve("TEST-io.volrep.testkit.ReferenceConformanceTest.xml")),
                "ReferenceConformanceTest did not run in this build (test phase skipped or filtered)");

        String suite = ReferenceConformanceTest.class.getName() + ".";
        String promote = Files.readString(REPORTS.resolve("TEST-" + suite + "PromoteVolume.xml"));
        assertThat(promote)
                .contains("<testsuite")
                .contains("name=\"" + suite + "PromoteVolume\"")
                .contains("failures=\"0\"")
                .contains("<testcase name=\"PromoteVolume: Replication Source is not replicated -&gt; 9 "
                        + "FAILED_PRECONDITION [volume group, replication disabled]\" classname=\"" + suite
                        + "PromoteVolume\"")
                .contains(
                        "<testcase name=\"PromoteVolume: allowed -&gt; 0 OK, then primary [volume, replication enabled,"
                                + " secondary]\" classname=\"" + suite + "PromoteVolume\"")
                .doesNotContain("required()[")
                .doesNotContain("name=\"\"");
        assertThat(Files.readString(REPORTS.resolve("TEST-" + suite + "Isolation.xml")))
                .contains("classname=\"" + suite + "Isolation\"")
                .contains("concurrent calls on distinct sources never draw 10 ABORTED");
        assertThat(Files.readString(REPORTS.resolve("TEST-" + suite + "PromoteVolume _optional_.xml")))
                .contains("classname=\"" + suite + "PromoteVolume (optional)\"");

        try (Stream<Path> files = Files.list(REPORTS)) {
            List<String> names = files.map(p -> p.getFileName().toString()).toList();
            assertThat(names)
                    .contains(
                            "TEST-" + suite + "Lifecycle.xml",
                            "TEST-" + suite + "Fixtures restored.xml",
                            "TEST-" + suite + "Response validity.xml",
                            "TEST-" + suite + "NodeHealer.xml",
                            "TEST-" + suite + "Identity.xml");
        }
    }
}
