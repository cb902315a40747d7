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
                        + "FAILED_PRECONDITION [volume, replication disabled]")
                .contains("COMPLIANT: ")
                .contains("required checks: ").contains(" passed, 0 failed")
                .doesNotContain("FAIL ")
                .doesNotContain("admin");
        try (Stream<Path> files = Files.list(reports)) {
            assertThat(files.map(p -> p.getFileName().toString())).contains("TEST-Lifecycle.xml",
                    "TEST-PromoteVolume.xml", "TEST-PromoteVolume_optional_.xml", "TEST-Isolation.xml");
        }
        // One file per check group, each test case named after its check, its class after the group.
        assertThat(Files.readString(reports.resolve("TEST-Lifecycle.xml"))).contains("<testsuite name=\"Lifecycle\"")
                .contains("failures=\"0\"")
                .contains("<testcase name=\"Lifecycle: enable, promote, demote, resync until ready, promote, disable -&gt; 0 OK"
                        + " [volume vol-0]\" classname=\"Lifecycle\"");
        assertThat(Files.readString(reports.resolve("TEST-PromoteVolume.xml"))).contains("<testcase name=\"PromoteVolume: "
                + "Replication Source is not replicated -&gt; 9 FAILED_PRECONDITION [volume group, replication disabled]\""
                + " classname=\"PromoteVolume\"");
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
            // The checks whose preparation needs PromoteVolume fail too (that step answers 2 UNKNOWN): PromoteVolume's
            // own, the deprecated form and the duration check; the others reach their state along the lifecycle
            // model's shortest path (enable makes a source primary), without a promote.
            assertThat(required.out()).contains("optional checks: 22 passed, 6 failed");
        }
    }

    @Test
    void skipIsListedInTheStatementAndTheWalkSizeIsReported() {
        long start = System.nanoTime();
        Run r = run("conformance", "--skip", "isolation/concurrent", "--skip", "PromoteVolume/group/*");
        long millis = (System.nanoTime() - start) / 1_000_000;

        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("skipped on request: 9 checks (PromoteVolume/group/disabled, "
                        + "PromoteVolume/group/disabled/force, PromoteVolume/group/primary, PromoteVolume/group/primary/force, "
                        + "PromoteVolume/group/secondary, PromoteVolume/group/secondary/force, PromoteVolume/group/auth-wrong, "
                        + "PromoteVolume/group/auth-missing, isolation/concurrent)")
                .contains("SKIPPED         required Isolation: concurrent calls on distinct sources never draw 10 ABORTED")
                .contains("on request (--skip isolation/concurrent)")
                .containsPattern("lifecycle exploration: 3 states x 24 actions x 2 source kinds, 4 histories, \\d+ edges"
                        + " planned, seed 0, \\d+ taken: \\d+ checks; \\d+ calls in the whole run")
                .contains("skipped (fixtures not configured): 0 checks");
        assertThat(millis).as("the whole embedded run, in ms").isLessThan(10_000);
    }

    @Test
    void listChecksPrintsIdsAndUnknownSkipIsAUsageError() {
        Run list = run("conformance", "--list-checks");
        assertThat(list.exit()).isZero();
        assertThat(list.out()).containsPattern("(?m)^PromoteVolume/volume/disabled +required +PromoteVolume: Replication"
                + " Source is not replicated -> 9 FAILED_PRECONDITION \\[volume, replication disabled]$")
                .containsPattern("(?m)^isolation/concurrent +required ").doesNotContain("COMPLIANT");

        Run unknown = run("conformance", "--skip", "no-such-check");
        assertThat(unknown.exit()).isEqualTo(2);
        assertThat(unknown.err()).contains("--skip no-such-check: no check has this id");
    }

    @Test
    void endpointWithoutVolumeIsAUsageError() {
        Run r = run("conformance", "--endpoint", "unix:///tmp/none.sock");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("--endpoint needs at least one --volume");
    }

    @Test
    void withoutAPeerTheTwoSiteChecksAreNotRunAndTheRunStaysCompliant(@TempDir Path dir) {
        try (FakePlugin fake = FakePlugin.builder().volumes(2).groups(1).requiredSecret("user", "admin")
                .listen("unix://" + dir.resolve("p.sock")).start()) {
            Run r = run("conformance", "--endpoint", fake.address(), "--volume", "vol-0", "--volume", "vol-1",
                    "--volume-group", "grp-0", "--secret", "user=admin", "--include-tag", "required");

            assertThat(r.exit()).as(r.out()).isZero();
            assertThat(r.out()).contains("peer site none: the two-site checks report NOT RUN")
                    .contains("NOT RUN         required ResyncVolume: ready becomes true within the resync timeout")
                    .contains("-> NOT RUN: needs the peer site (--peer-endpoint")
                    .containsPattern("not run \\(they need a peer site: --peer-endpoint\\): \\d+ checks")
                    .contains("COMPLIANT").doesNotContain("\nFAIL ");
        }
    }

    @Test
    void peerEndpointNeedsAnEndpoint() {
        Run r = run("conformance", "--peer-endpoint", "unix:///tmp/b.sock");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("--peer-endpoint needs --endpoint");
    }
}
