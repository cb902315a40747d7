package io.volrep.it.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.cli.VolrepCommand;
import io.volrep.it.interop.Interop.Peer;
import io.volrep.it.interop.Interop.Result;
import io.volrep.testsupport.GrpcCleanup;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Issue 16's criterion through the CLI: {@code volrep failover} between two independent Node plugins
 * ({@code interop/plugin.js --revision upstream-2026}) as site A and site B with different ids, each guarding an
 * unforced promote by asking its peer (the storage's split-brain guard, see interop/README.md "Two sites").
 * The calls files of both sites give the order and the force flag of every call.
 */
class FailoverInteropIT {
    /** One entry of a calls file, with the force flag that the shared {@link CallsFile} reader leaves out. */
    record Call(String rpc, String source, String code, long atMs, boolean force) {}

    private static final Pattern ENTRY = Pattern.compile(
            "\\{\\s*\"rpc\": \"([^\"]+)\",\\s*\"source\": \"([^\"]*)\","
                    + "\\s*\"code\": \"([^\"]+)\",\\s*\"atMs\": (\\d+),\\s*\"secretKeys\": \\[[^\\]]*\\](,\\s*\"force\": true)?");
    private static final String[] SOURCES = {
        "--volume",
        "vol-0",
        "--volume",
        "vol-1",
        "--volume-group",
        "grp-0",
        "--destination",
        "vol-0=b-vol-0",
        "--destination",
        "vol-1=b-vol-1",
        "--destination",
        "grp-0=b-grp-0",
        "--secret",
        "user=admin"
    };

    @RegisterExtension
    final GrpcCleanup cleanup = new GrpcCleanup();

    @TempDir
    Path dir;

    Path socketA;
    Path socketB;
    Peer siteA;
    Peer siteB;

    @BeforeEach
    void twoSites() {
        Interop.assumeNodeAndJar();
        // a.sock and b.sock: the report names the sites after them (site A, site B)
        socketA = dir.resolve("a.sock");
        socketB = dir.resolve("b.sock");
    }

    private Peer startA(String callsFile) {
        Peer p = Peer.start(
                socketA,
                Interop.node(
                        "plugin.js",
                        "--revision",
                        "upstream-2026",
                        "--listen",
                        "unix://" + socketA,
                        "--name",
                        "site-a.interop.volrep.io",
                        "--volumes",
                        "3",
                        "--groups",
                        "1",
                        "--start-as",
                        "primary",
                        "--destination-prefix",
                        "b-",
                        "--group-members",
                        "grp-0=vol-0,vol-1",
                        "--peer",
                        "unix://" + socketB,
                        "--secret",
                        "user=admin",
                        "--calls-file",
                        dir.resolve(callsFile).toString()));
        cleanup.register(p);
        return p;
    }

    private Peer startB(String... extra) {
        List<String> args = new ArrayList<>(List.of(
                "--revision",
                "upstream-2026",
                "--listen",
                "unix://" + socketB,
                "--name",
                "site-b.interop.volrep.io",
                "--volumes",
                "3",
                "--groups",
                "1",
                "--volume-prefix",
                "b-vol-",
                "--group-prefix",
                "b-grp-",
                "--start-as",
                "secondary",
                "--destination-strip-prefix",
                "b-",
                "--group-members",
                "b-grp-0=b-vol-0,b-vol-1",
                "--peer",
                "unix://" + socketA,
                "--secret",
                "user=admin",
                "--calls-file",
                dir.resolve("b.json").toString()));
        args.addAll(List.of(extra));
        Peer p = Peer.start(socketB, Interop.node("plugin.js", args.toArray(String[]::new)));
        cleanup.register(p);
        return p;
    }

    private List<Call> calls(String file) throws IOException {
        List<Call> calls = new ArrayList<>();
        Path path = dir.resolve(file);
        if (Files.exists(path)) {
            Matcher m = ENTRY.matcher(Files.readString(path));
            while (m.find()) {
                calls.add(new Call(m.group(1), m.group(2), m.group(3), Long.parseLong(m.group(4)), m.group(5) != null));
            }
        }
        return calls;
    }

    private static List<Call> of(List<Call> calls, String rpc, String source) {
        return calls.stream()
                .filter(c -> c.rpc().equals(rpc) && c.source().equals(source))
                .toList();
    }

    private Result failover(String... extra) {
        List<String> args = new ArrayList<>(
                List.of("failover", "--from", "unix://" + socketA, "--to", "unix://" + socketB, "--timeout", "10s"));
        args.addAll(List.of(extra));
        return Interop.run(Interop.volrep(args.toArray(String[]::new)), Interop.RUN_TIMEOUT);
    }

    private static void kill(Peer peer) throws InterruptedException {
        ProcessHandle.of(peer.pid()).ifPresent(ProcessHandle::destroyForcibly);
        ProcessHandle.of(peer.pid()).ifPresent(h -> h.onExit().join());
    }

    @Test
    void plannedFailoverOfVolumesAndAGroupWithMembersDemotesOnAFirstAndARerunIsANoOp() throws Exception {
        siteA = startA("a.json");
        siteB = startB();
        Result run = failover(SOURCES);
        assertThat(run.exit()).as(run.output()).isZero();
        assertThat(run.output())
                .containsPattern("volume vol-0 +volume b-vol-0 +primary on site B +demoted +no +\\d{4}-")
                .containsPattern("volumegroup grp-0 +volumegroup b-grp-0 +primary on site B +demoted +no +\\d{4}-")
                .contains("failover: 3 of 3 primary on site B")
                .contains("total: 3 of 3 primary on site B, 0 refused, 0 failed, 0 in progress");

        List<Call> a = calls("a.json");
        List<Call> b = calls("b.json");
        for (String[] pair : new String[][] {
            {"volume vol-0", "volume b-vol-0"},
            {"volume vol-1", "volume b-vol-1"},
            {"volumegroup grp-0", "volumegroup b-grp-0"}
        }) {
            Call demote = of(a, "DemoteVolume", pair[0]).get(0);
            Call promote = of(b, "PromoteVolume", pair[1]).get(0);
            assertThat(demote.code()).isEqualTo("OK");
            assertThat(promote.code()).isEqualTo("OK");
            assertThat(promote.force()).isFalse();
            assertThat(promote.atMs()).isGreaterThanOrEqualTo(demote.atMs());
            // B's guard asked A about the source, and A answered "demoted": the unforced promote was allowed.
            assertThat(of(a, "GetVolumeReplicationInfo", pair[0]))
                    .extracting(Call::code)
                    .containsExactly("FAILED_PRECONDITION");
            // B checked before A was demoted (secondary: 9), and verified after the promote.
            assertThat(of(b, "GetVolumeReplicationInfo", pair[1]))
                    .extracting(Call::code)
                    .containsExactly("FAILED_PRECONDITION", "OK");
            assertThat(of(b, "GetVolumeReplicationInfo", pair[1]).get(0).atMs()).isLessThanOrEqualTo(demote.atMs());
        }

        Result again = failover(SOURCES);
        assertThat(again.exit()).as(again.output()).isZero();
        List<Call> aAfter = calls("a.json");
        List<Call> bAfter = calls("b.json");
        // Nothing to change: B's sources are primary already, so no promote (and no guard question to A); A is
        // demoted again, which changes nothing for a secondary.
        assertThat(aAfter.stream().filter(c -> c.rpc().equals("GetVolumeReplicationInfo")))
                .hasSize(3);
        assertThat(bAfter).noneMatch(Call::force);
        assertThat(aAfter.subList(a.size(), aAfter.size()))
                .extracting(Call::rpc)
                .containsOnly("DemoteVolume");
        assertThat(bAfter.subList(b.size(), bAfter.size()))
                .extracting(Call::rpc, Call::code)
                .containsOnly(Tuple.tuple("GetVolumeReplicationInfo", "OK"));
    }

    @Test
    void siteAKilledBeforeTheFailoverPromotesNothingUnlessForced() throws Exception {
        siteA = startA("a.json");
        siteB = startB();
        kill(siteA);
        Result refused = failover(
                "--volume",
                "vol-0",
                "--volume-group",
                "grp-0",
                "--destination",
                "vol-0=b-vol-0",
                "--destination",
                "grp-0=b-grp-0",
                "--secret",
                "user=admin");
        assertThat(refused.exit()).as(refused.output()).isEqualTo(1);
        assertThat(refused.output())
                .containsPattern("volume vol-0 +volume b-vol-0 +refused +unreachable +no")
                .contains("force not allowed: nothing promoted on site B")
                .containsPattern(
                        "error: 2 of 2 source\\(s\\) not primary on site B: site A unreachable \\((14 UNAVAILABLE|4 DEADLINE_EXCEEDED)");
        assertThat(calls("b.json")).extracting(Call::rpc).doesNotContain("PromoteVolume");

        Result forced = failover(
                "--volume",
                "vol-0",
                "--volume-group",
                "grp-0",
                "--destination",
                "vol-0=b-vol-0",
                "--destination",
                "grp-0=b-grp-0",
                "--secret",
                "user=admin",
                "--force-if-unreachable");
        assertThat(forced.exit()).as(forced.output()).isZero();
        assertThat(forced.output())
                .containsPattern("volumegroup grp-0 +volumegroup b-grp-0 +primary on site B +unreachable +yes");
        List<Call> promotes = calls("b.json").stream()
                .filter(c -> c.rpc().equals("PromoteVolume"))
                .toList();
        assertThat(promotes).hasSize(2).allSatisfy(c -> {
            assertThat(c.force()).isTrue();
            assertThat(c.code()).isEqualTo("OK");
        });
    }

    @Test
    void siteAKilledDuringTheFailoverThenTheSameFailoverResumedCompletesIt() throws Exception {
        siteA = startA("a.json");
        siteB = startB("--latency", "600"); // time to kill A between two sources
        StringWriter out = new StringWriter();
        CompletableFuture<Integer> running = CompletableFuture.supplyAsync(() -> {
            CommandLine cli = VolrepCommand.commandLine();
            cli.setOut(new PrintWriter(out, true));
            cli.setErr(new PrintWriter(out, true));
            List<String> args = new ArrayList<>(List.of(
                    "failover",
                    "--from",
                    "unix://" + socketA,
                    "--to",
                    "unix://" + socketB,
                    "--timeout",
                    "10s",
                    "--parallel",
                    "1"));
            args.addAll(List.of(SOURCES));
            return cli.execute(args.toArray(String[]::new));
        });
        long deadline = System.nanoTime() + Interop.RUN_TIMEOUT.toNanos();
        while (of(calls("b.json"), "PromoteVolume", "volume b-vol-0").stream()
                .noneMatch(c -> c.code().equals("OK"))) {
            assertThat(System.nanoTime()).as("b-vol-0 promoted on B").isLessThan(deadline);
            Thread.sleep(20);
        }
        kill(siteA);
        assertThat(running.get(Interop.RUN_TIMEOUT.toSeconds(), TimeUnit.SECONDS))
                .as(out.toString())
                .isEqualTo(1);
        assertThat(out.toString())
                .containsPattern("volume vol-0 +volume b-vol-0 +primary on site B +demoted +no")
                .containsPattern("volume vol-1 +volume b-vol-1 +refused +unreachable +no")
                .containsPattern("volumegroup grp-0 +volumegroup b-grp-0 +refused +unreachable +no");
        assertThat(of(calls("b.json"), "PromoteVolume", "volume b-vol-1")).isEmpty();

        // A is back; the same failover again completes it, forcing nothing.
        Files.deleteIfExists(socketA);
        siteA = startA("a2.json");
        Result resumed = failover(SOURCES);
        assertThat(resumed.exit()).as(resumed.output()).isZero();
        assertThat(resumed.output()).contains("failover: 3 of 3 primary on site B");
        List<Call> b = calls("b.json");
        assertThat(b).noneMatch(Call::force);
        assertThat(of(b, "PromoteVolume", "volume b-vol-1"))
                .extracting(Call::code)
                .containsExactly("OK");
        // b-vol-0 was primary already: its promote asked A nothing; vol-1 and grp-0 were confirmed demoted on A.
        List<Call> a2 = calls("a2.json");
        assertThat(of(a2, "GetVolumeReplicationInfo", "volume vol-0")).isEmpty();
        assertThat(of(a2, "GetVolumeReplicationInfo", "volume vol-1"))
                .extracting(Call::code)
                .containsExactly("FAILED_PRECONDITION");
        assertThat(of(a2, "GetVolumeReplicationInfo", "volumegroup grp-0"))
                .extracting(Call::code)
                .containsExactly("FAILED_PRECONDITION");
    }
}
