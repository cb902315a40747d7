package io.volrep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCall.Listener;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.spi.ReplicationServer;
import io.volrep.testkit.fake.FakePlugin;
import io.volrep.testkit.fake.InfoViolation;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testsupport.GrpcCleanup;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class ConformanceCommandTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    record Run(int exit, String out, String err) {}

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
        assertThat(r.out())
                .contains("embedded reference plugin")
                .contains("PASS            required PromoteVolume: Replication Source is not replicated -> 9 "
                        + "FAILED_PRECONDITION [volume, replication disabled]")
                .contains("COMPLIANT: ")
                .contains("required checks: ")
                .contains(" passed, 0 failed")
                .doesNotContain("FAIL ")
                .doesNotContain("admin");
        try (Stream<Path> files = Files.list(reports)) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .contains(
                            "TEST-Lifecycle.xml",
                            "TEST-PromoteVolume.xml",
                            "TEST-PromoteVolume_optional_.xml",
                            "TEST-Isolation.xml");
        }
        // One file per check group, each test case named after its check, its class after the group.
        assertThat(Files.readString(reports.resolve("TEST-Lifecycle.xml")))
                .contains("<testsuite name=\"Lifecycle\"")
                .contains("failures=\"0\"")
                .contains(
                        "<testcase name=\"Lifecycle: enable, promote, demote, resync until ready, promote, disable -&gt; 0 OK"
                                + " [volume vol-0]\" classname=\"Lifecycle\"");
        assertThat(Files.readString(reports.resolve("TEST-PromoteVolume.xml")))
                .contains("<testcase name=\"PromoteVolume: "
                        + "Replication Source is not replicated -&gt; 9 FAILED_PRECONDITION [volume group, replication disabled]\""
                        + " classname=\"PromoteVolume\"");
    }

    @Test
    void aPluginEchoingTheSecretsAndControlCharactersLeavesNeitherInAnyOutput(@TempDir Path dir) throws IOException {
        String password = "Sup3r-s3cret-value";
        String hostile = "\u001b[2J\u001b]0;owned\u0007\rforged\nFAIL forged\u202e";
        // Every call fails with its request's secrets in the message.
        ServerInterceptor echo = new ServerInterceptor() {
            @Override
            public <Q, A> Listener<Q> interceptCall(
                    ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
                call.request(1);
                return new Listener<>() {
                    String echoed = "";

                    @Override
                    public void onMessage(Q message) {
                        echoed = message.toString().replace('\n', ' '); // text format: secrets { value: ... }
                    }

                    @Override
                    public void onHalfClose() {
                        call.close(
                                Status.UNAUTHENTICATED.withDescription("refused " + echoed + hostile), new Metadata());
                    }
                };
            }
        };
        ReferenceDriver driver = ReferenceDriver.builder()
                .volumes(1)
                .requiredSecret("password", password)
                .build();
        ReplicationServer server = grpc.register(ReplicationServer.builder()
                .driver(driver)
                .interceptor(echo)
                .listen("unix://" + dir.resolve("echo.sock"))
                .build()
                .start());
        Path reports = dir.resolve("reports");
        Run r = run(
                "conformance",
                "--endpoint",
                server.address(),
                "--volume",
                "vol-0",
                "--secret",
                "password=" + password,
                "--reports-dir",
                reports.toString());

        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.out()).contains("value: \"***\"").contains("\\u001b[2J");
        List<String> outputs = new ArrayList<>(List.of(r.out(), r.err()));
        try (Stream<Path> files = Files.list(reports)) {
            for (Path file : files.toList()) {
                outputs.add(Files.readString(file));
            }
        }
        assertThat(outputs).hasSizeGreaterThan(3);
        for (String output : outputs) {
            assertThat(output).doesNotContain(password, "\u001b", "\u0007", "\r", "\u202e");
            assertThat(output.lines()).noneMatch(l -> l.startsWith("FAIL forged"));
        }
    }

    @Test
    void defectivePluginOnAUnixSocketFailsWithExitOne(@TempDir Path dir) {
        FakePlugin fake = grpc.register(FakePlugin.builder()
                .volume("pvc-1")
                .requiredSecret("user", "admin")
                .listen("unix://" + dir.resolve("p.sock"))
                .start());
        fake.violateInfo(InfoViolation.NEGATIVE_LAST_SYNC_BYTES);
        Run r = run(
                "conformance",
                "--endpoint",
                fake.address(),
                "--volume",
                "pvc-1",
                "--secret",
                "user=admin",
                "--resync-timeout",
                "5s",
                "--call-timeout",
                "PT2S");

        assertThat(r.exit()).as(r.out()).isEqualTo(1);
        assertThat(r.out())
                .contains(
                        "FAIL            required GetVolumeReplicationInfo: last_sync_bytes MUST NOT " + "be negative")
                .contains("last_sync_bytes: MUST NOT be negative, got -1")
                .contains("NOT COMPLIANT")
                .contains("SKIPPED")
                .contains("no volume groups configured");
    }

    @Test
    void optionalFailuresDoNotBreakComplianceAndTagsFilter(@TempDir Path dir) {
        FakePlugin fake = grpc.register(FakePlugin.builder()
                .volume("pvc-1")
                .listen("unix://" + dir.resolve("p.sock"))
                .start());
        // PromoteVolume answers 2 UNKNOWN: only optional checks run, so the failures break nothing.
        fake.failNext(Rpc.PROMOTE_VOLUME, 1000, StatusCode.UNKNOWN);
        Run required =
                run("conformance", "--endpoint", fake.address(), "--volume", "pvc-1", "--include-tag", "optional");
        assertThat(required.out())
                .doesNotContainPattern("(?m)^(PASS|FAIL) +required")
                .contains("FAIL            optional");
        assertThat(required.exit()).isZero();
        // The checks whose preparation needs PromoteVolume (that step answers 2 UNKNOWN), PromoteVolume's simultaneous
        // calls and the deprecated form, are not run, each naming the check that failed (one defect, one FAIL); the
        // others reach their state along the lifecycle model's shortest path (enable makes a source primary), without
        // a promote. Identity's optional check (every optional RPC served is advertised) passes: nothing is off there.
        assertThat(required.out())
                .contains("optional checks: 23 passed, 3 failed")
                .contains("not run (consequences of a failed check, each names it): 2 checks");
        // No required check ran: the statement says so, and names the option that left them out.
        int requiredChecks =
                (int) run("conformance", "--endpoint", fake.address(), "--volume", "pvc-1", "--list-checks")
                        .out()
                        .lines()
                        .filter(l -> l.matches("\\S+ +required .*"))
                        .count();
        assertThat(required.out())
                .contains("COMPLIANT for the checks run; " + requiredChecks + " required checks not run ("
                        + requiredChecks + " were left out by --include-tag optional (run without it))")
                .doesNotContainPattern("(?m)^COMPLIANT: ");
    }

    @Test
    void requireAllFailsARunInWhichARequiredCheckDidNotRun() {
        // The embedded reference without its second site cannot be had; a volume group left out is the same case:
        // the group's required checks are skipped (fixtures not configured).
        Run lenient = run("conformance", "--volume", "vol-0", "--volume", "vol-1", "--include-tag", "required");
        assertThat(lenient.exit()).as(lenient.out()).isZero();
        assertThat(lenient.out())
                .containsPattern("(?m)^COMPLIANT for the checks run; \\d+ required checks not run \\(.*\\d+ need a"
                        + " volume group: --volume-group.*\\): ")
                .contains("--require-all makes this not compliant");

        Run strict = run(
                "conformance", "--volume", "vol-0", "--volume", "vol-1", "--include-tag", "required", "--require-all");
        assertThat(strict.exit()).as(strict.out()).isEqualTo(1);
        assertThat(strict.out())
                .containsPattern("(?m)^NOT COMPLIANT \\(--require-all\\): \\d+ required checks not run \\(.*\\d+"
                        + " need a volume group: --volume-group.*\\): ")
                .doesNotContainPattern("(?m)^FAIL ");

        Run all = run("conformance", "--require-all", "--include-tag", "required");
        assertThat(all.exit()).as(all.out()).isZero();
        assertThat(all.out()).containsPattern("(?m)^COMPLIANT: ");
    }

    @Test
    void skipIsListedInTheStatementAndTheWalkSizeIsReported() {
        long start = System.nanoTime();
        Run r = run("conformance", "--skip", "isolation/all-fixtures/concurrent", "--skip", "PromoteVolume/group/*");
        long millis = (System.nanoTime() - start) / 1_000_000;

        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(r.out())
                .contains("skipped on request: 11 checks (PromoteVolume/group/empty-id, "
                        + "PromoteVolume/group/not-found, PromoteVolume/group/disabled, PromoteVolume/group/disabled/force, "
                        + "PromoteVolume/group/primary, PromoteVolume/group/primary/force, PromoteVolume/group/secondary, "
                        + "PromoteVolume/group/secondary/force, PromoteVolume/group/auth-wrong, "
                        + "PromoteVolume/group/auth-missing, isolation/all-fixtures/concurrent)")
                .contains(
                        "SKIPPED         required Isolation: concurrent calls on distinct sources never draw 10 ABORTED")
                .contains("on request (--skip isolation/all-fixtures/concurrent)")
                .containsPattern(
                        "lifecycle exploration: 3 states x 24 actions x 2 source kinds, 4 histories, \\d+ edges"
                                + " planned, seed 0, \\d+ taken: \\d+ checks; \\d+ calls in the whole run")
                .contains("skipped (fixtures not configured): 0 checks");
        assertThat(r.err()).doesNotContain("former id");
        assertThat(millis).as("the whole embedded run, in ms").isLessThan(10_000);
    }

    @Test
    void aGlobSkipsWhatItsWordsSay() {
        Run list = run("conformance", "--list-checks");
        long groupChecks = list.out()
                .lines()
                .filter(l -> l.split(" +")[0].contains("/group/"))
                .count();
        long authChecks = list.out()
                .lines()
                .filter(l -> l.split(" +")[0].matches(".*/auth-.*"))
                .count();
        assertThat(groupChecks).isGreaterThan(50);

        Run groups = run("conformance", "--skip", "*/group/*");
        assertThat(groups.exit()).as(groups.out() + groups.err()).isZero();
        assertThat(groups.out()).contains("skipped on request: " + groupChecks + " checks (");
        assertThat(groups.out().lines().filter(l -> l.startsWith("PASS ")).filter(l -> l.contains("[volume group")))
                .as("no check of a group ran")
                .isEmpty();

        Run auth = run("conformance", "--skip", "*/auth-*", "--include-tag", "required");
        assertThat(auth.out()).contains("skipped on request: " + authChecks + " checks (");
        assertThat(auth.out().lines().filter(l -> l.startsWith("PASS ")).filter(l -> l.contains("UNAUTHENTICATED")))
                .isEmpty();
    }

    @Test
    void theIdsOfAVersionNeverReleasedAreUnknownIds() {
        // isolation/concurrent was an id before the grammar of the first release; no release ever had it (issue 48).
        Run r = run("conformance", "--skip", "isolation/concurrent", "--include-tag", "required");

        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(2);
        assertThat(r.err())
                .contains("--skip isolation/concurrent: no check has this id (see --list-checks)")
                .doesNotContain("former id");
    }

    @Test
    void listChecksPrintsIdsAndUnknownSkipIsAUsageError() {
        Run list = run("conformance", "--list-checks");
        assertThat(list.exit()).isZero();
        assertThat(list.out())
                .containsPattern("(?m)^PromoteVolume/volume/disabled +required +PromoteVolume: Replication"
                        + " Source is not replicated -> 9 FAILED_PRECONDITION \\[volume, replication disabled]$")
                .containsPattern("(?m)^isolation/all-fixtures/concurrent +required ")
                .doesNotContain("COMPLIANT");

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
        FakePlugin fake = grpc.register(FakePlugin.builder()
                .volumes(2)
                .groups(1)
                .requiredSecret("user", "admin")
                .listen("unix://" + dir.resolve("p.sock"))
                .start());
        Run r = run(
                "conformance",
                "--endpoint",
                fake.address(),
                "--volume",
                "vol-0",
                "--volume",
                "vol-1",
                "--volume-group",
                "grp-0",
                "--secret",
                "user=admin",
                "--include-tag",
                "required");

        assertThat(r.exit()).as(r.out()).isZero();
        assertThat(r.out())
                .contains("peer site none: the two-site checks report NOT RUN")
                .contains("NOT RUN         required ResyncVolume: ready becomes true within the resync timeout")
                .contains("-> NOT RUN: needs the peer site (--peer-endpoint")
                .containsPattern("not run \\(they need a peer site: --peer-endpoint\\): \\d+ checks")
                .contains("COMPLIANT")
                .doesNotContain("\nFAIL ");
    }

    @Test
    void peerEndpointNeedsAnEndpoint() {
        Run r = run("conformance", "--peer-endpoint", "unix:///tmp/b.sock");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("--peer-endpoint needs --endpoint");
    }
}
