package io.volrep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.testkit.fake.FakePlugin;
import io.volrep.testkit.fake.InfoViolation;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class ConformanceCommandTest {
    record Run(int exit, String out, String err) {
    }

    private static Run run(String... args) {
        CommandLine cli = VolrepCommand.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int exit = cli.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void embeddedReferenceIsCompliantAndWritesJUnitXml(@TempDir Path reports) throws IOException {
        Run r = run("conformance", "--reports-dir", reports.toString());

        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("embedded reference plugin")
                .contains("PASS            required PromoteVolume: Replication Source is not replicated -> 9 "
                        + "FAILED_PRECONDITION [replication disabled]")
                .contains("COMPLIANT: ")
                .contains("required checks: ").contains(" passed, 0 failed")
                .doesNotContain("FAIL ")
                .doesNotContain("admin");
        try (Stream<Path> files = Files.list(reports)) {
            Path xml = files.filter(p -> p.toString().endsWith(".xml")).findFirst().orElseThrow();
            assertThat(Files.readString(xml)).contains("<testsuite").contains("failures=\"0\"")
                    .contains("Lifecycle: enable, promote, demote, resync until ready, promote, disable");
        }
    }

    @Test
    void defectivePluginOnAUnixSocketFailsWithExitOne(@TempDir Path dir) {
        try (FakePlugin fake = FakePlugin.builder().volume("pvc-1").requiredSecret("user", "admin")
                .listen("unix://" + dir.resolve("p.sock")).start()) {
            fake.violateInfo(InfoViolation.NEGATIVE_LAST_SYNC_BYTES);
            Run r = run("conformance", "--endpoint", fake.address(), "--volume", "pvc-1", "--secret", "user=admin",
                    "--resync-timeout", "5s", "--call-timeout", "PT2S");

            assertThat(r.exit()).as(r.out()).isEqualTo(1);
            assertThat(r.out()).contains("FAIL            required GetVolumeReplicationInfo: last_sync_bytes MUST NOT "
                    + "be negative").contains("last_sync_bytes = -1").contains("NOT COMPLIANT")
                    .contains("SKIPPED").contains("no volume groups configured");
        }
    }

    @Test
    void optionalFailuresDoNotBreakComplianceAndTagsFilter(@TempDir Path dir) {
        try (FakePlugin fake = FakePlugin.builder().volume("pvc-1").listen("unix://" + dir.resolve("p.sock")).start()) {
            // PromoteVolume answers 2 UNKNOWN: only optional checks run, so the failures break nothing.
            fake.failNext(Rpc.PROMOTE_VOLUME, 1000, StatusCode.UNKNOWN);
            Run required = run("conformance", "--endpoint", fake.address(), "--volume", "pvc-1",
                    "--include-tag", "optional");
            assertThat(required.out()).doesNotContainPattern("(?m)^(PASS|FAIL) +required").contains("FAIL            optional");
            assertThat(required.exit()).isZero();
            // The size-limit checks that need a promoted source fail too (their PromoteVolume step answers 2 UNKNOWN).
            assertThat(required.out()).contains("optional checks: 11 passed, 14 failed");
        }
    }

    @Test
    void endpointWithoutVolumeIsAUsageError() {
        Run r = run("conformance", "--endpoint", "unix:///tmp/none.sock");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("--endpoint needs at least one --volume");
    }
}
