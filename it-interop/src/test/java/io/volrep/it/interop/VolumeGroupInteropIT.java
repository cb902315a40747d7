package io.volrep.it.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.cli.VolrepCommand;
import io.volrep.it.interop.Interop.Peer;
import io.volrep.it.interop.Interop.Result;
import io.volrep.testsupport.GrpcCleanup;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Issue 32's criterion with an independent plugin: a volume group created, replicated, resized, failed over and
 * deleted through volrep's CLI (the jar) against two {@code interop/plugin.js --revision upstream-2026} sites, whose
 * volumegroup.Controller is written from upstream's README, sharing no volrep code; site A answers upstream's literal
 * "7" for volumes that cannot be grouped. And the conformance kit's volume group checks against that plugin.
 */
class VolumeGroupInteropIT {
    private static final String[] SECRET = {"--secret", "user=admin"};

    @RegisterExtension
    final GrpcCleanup cleanup = new GrpcCleanup();

    @TempDir
    Path dir;

    Path socketA;
    Path socketB;

    @BeforeEach
    void twoSites() {
        Interop.assumeNodeAndJar();
        // a.sock and b.sock: the failover report names the sites after them (site A, site B)
        socketA = dir.resolve("a.sock");
        socketB = dir.resolve("b.sock");
    }

    /** A site; with {@code peer}, a promote without force asks the peer first (the storage's split-brain guard). */
    private Peer site(Path socket, Path peer, String... extra) {
        List<String> args = new ArrayList<>(List.of(
                "--revision",
                "upstream-2026",
                "--listen",
                "unix://" + socket,
                "--volumes",
                "3",
                "--groups",
                "1",
                "--secret",
                "user=admin",
                "--latency",
                "0",
                "--quiet"));
        if (peer != null) {
            args.addAll(List.of("--peer", "unix://" + peer));
        }
        args.addAll(List.of(extra));
        Peer p = Peer.start(socket, Interop.node("plugin.js", args.toArray(String[]::new)));
        cleanup.register(p);
        return p;
    }

    private static Result volrep(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of(SECRET));
        all.addAll(List.of("--timeout", "10s"));
        return Interop.run(Interop.volrep(all.toArray(String[]::new)), Interop.RUN_TIMEOUT);
    }

    @Test
    void aGroupIsCreatedReplicatedResizedFailedOverAndDeletedThroughTheCli() {
        Peer a = site(
                socketA,
                socketB,
                "--name",
                "site-a.interop.volrep.io",
                "--destination-prefix",
                "b-",
                "--cannot-group-code",
                "PERMISSION_DENIED");
        Peer b = site(
                socketB,
                socketA,
                "--name",
                "site-b.interop.volrep.io",
                "--volume-prefix",
                "b-vol-",
                "--group-prefix",
                "b-grp-",
                "--destination-strip-prefix",
                "b-");

        Result created = volrep(
                "group",
                "create",
                "--endpoint",
                a.endpoint(),
                "--name",
                "db",
                "--volume",
                "vol-0",
                "--volume",
                "vol-1");
        assertThat(created.exit()).as(created.output()).isZero();
        assertThat(created.output())
                .contains("group grp-db")
                .contains("  member vol-0")
                .contains("  member vol-1");
        assertThat(volrep(
                                "group",
                                "create",
                                "--endpoint",
                                b.endpoint(),
                                "--name",
                                "db",
                                "--volume",
                                "b-vol-0",
                                "--volume",
                                "b-vol-1")
                        .output())
                .contains("group b-grp-db");

        // Replicated: primary on A, secondary on B.
        assertThat(volrep("enable", "--endpoint", a.endpoint(), "--volume-group", "grp-db")
                        .exit())
                .isZero();
        assertThat(volrep("enable", "--endpoint", b.endpoint(), "--volume-group", "b-grp-db")
                        .exit())
                .isZero();
        assertThat(volrep("demote", "--endpoint", b.endpoint(), "--volume-group", "b-grp-db")
                        .exit())
                .isZero();

        // Resized while replicated, on both sites (the storage would add the replica on B).
        Result resized = volrep(
                "group",
                "modify",
                "--endpoint",
                a.endpoint(),
                "--id",
                "grp-db",
                "--volume",
                "vol-0",
                "--volume",
                "vol-1",
                "--volume",
                "vol-2");
        assertThat(resized.exit()).as(resized.output()).isZero();
        assertThat(resized.output()).contains("  member vol-2");
        assertThat(volrep(
                                "group",
                                "modify",
                                "--endpoint",
                                b.endpoint(),
                                "--id",
                                "b-grp-db",
                                "--volume",
                                "b-vol-0",
                                "--volume",
                                "b-vol-1",
                                "--volume",
                                "b-vol-2")
                        .exit())
                .isZero();
        assertThat(volrep("group", "get", "--endpoint", a.endpoint(), "--id", "grp-db")
                        .output())
                .contains("  member vol-0")
                .contains("  member vol-1")
                .contains("  member vol-2");
        Result destination = volrep("destination", "--endpoint", a.endpoint(), "--volume-group", "grp-db");
        assertThat(destination.output())
                .contains("destination: b-grp-db")
                .contains("vol-0 -> b-vol-0")
                .contains("vol-2 -> b-vol-2");

        // Failed over: destinations from site A (its member map), demote on A, promote on B (B's guard asks A).
        Result failover = volrep(
                "failover",
                "--from",
                a.endpoint(),
                "--to",
                b.endpoint(),
                "--volume-group",
                "grp-db",
                "--to-secret",
                "user=admin");
        assertThat(failover.exit()).as(failover.output()).isZero();
        assertThat(failover.output())
                .containsPattern("volumegroup grp-db +volumegroup b-grp-db +primary on site B")
                .contains("failover: 1 of 1 primary on site B");

        // Upstream's literal 7 for volumes that cannot be grouped: read as 9, not retried.
        Result ungroupable =
                volrep("group", "create", "--endpoint", a.endpoint(), "--name", "db2", "--volume", "vol-0");
        assertThat(ungroupable.exit()).isEqualTo(1);
        assertThat(ungroupable.output())
                .contains("failed with 7 PERMISSION_DENIED (read as 9 FAILED_PRECONDITION")
                .contains("code: 9 FAILED_PRECONDITION from CreateVolumeGroup after 1 attempt(s)")
                .contains("recovery (ENSURE_PRECONDITION)");

        // In use while replicated; deleted once its replication is disabled; gone after.
        Result inUse = volrep("group", "delete", "--endpoint", b.endpoint(), "--id", "b-grp-db");
        assertThat(inUse.exit()).isEqualTo(1);
        assertThat(inUse.output()).contains("code: 9 FAILED_PRECONDITION from DeleteVolumeGroup");
        for (String[] site : List.of(new String[] {a.endpoint(), "grp-db"}, new String[] {b.endpoint(), "b-grp-db"})) {
            assertThat(volrep("disable", "--endpoint", site[0], "--volume-group", site[1])
                            .exit())
                    .isZero();
            Result deleted = volrep("group", "delete", "--endpoint", site[0], "--id", site[1]);
            assertThat(deleted.exit()).as(deleted.output()).isZero();
            assertThat(volrep("group", "get", "--endpoint", site[0], "--id", site[1])
                            .output())
                    .contains("code: 5 NOT_FOUND from ControllerGetVolumeGroup");
        }
        assertThat(volrep("group", "list", "--endpoint", a.endpoint(), "--max-entries", "1")
                        .output())
                .contains("group grp-0")
                .doesNotContain("grp-db");
        assertThat(failover.output() + created.output()).doesNotContain("admin");
    }

    @Test
    void theKitsVolumeGroupChecksPassTheIndependentPlugin() {
        Peer p = site(socketA, null, "--cannot-group-code", "PERMISSION_DENIED");
        CommandLine cli = VolrepCommand.commandLine();
        StringWriter out = new StringWriter();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(out, true));
        cli.execute(
                "conformance",
                "--endpoint",
                p.endpoint(),
                "--volume",
                "vol-0",
                "--volume",
                "vol-1",
                "--volume-group",
                "grp-0",
                "--secret",
                "user=admin",
                "--resync-timeout",
                "2s");
        String report = out.toString();
        // One line per check: outcome, level, name; the volume group checks are named after their RPCs.
        List<String> groupLines = report.lines()
                .filter(l -> l.matches("(PASS|FAIL|NOT IMPLEMENTED|SKIPPED) +"
                        + "(required|optional) +(CreateVolumeGroup|ModifyVolumeGroupMembership|DeleteVolumeGroup"
                        + "|ListVolumeGroups|ControllerGetVolumeGroup|Volume groups|Lifecycle: a volume group).*"))
                .toList();
        assertThat(groupLines)
                .as(report)
                .hasSizeGreaterThanOrEqualTo(33)
                .allSatisfy(l -> assertThat(l).as(report).startsWith("PASS "));
    }
}
