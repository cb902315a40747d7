package io.volrep.cli;

import static io.volrep.cli.CallCommandsTest.volrep;
import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.SpecDialect;
import io.volrep.api.StatusCode;
import io.volrep.cli.CallCommandsTest.Run;
import io.volrep.spi.ReplicationServer;
import io.volrep.testkit.fake.FakePlugin;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testkit.reference.ReferencePair;
import io.volrep.testkit.reference.ReferencePlugin;
import io.volrep.testsupport.GrpcCleanup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code volrep reconcile} and {@code volrep failover}, in-process, against reference plugins on unix sockets. */
class ReconcileAndFailoverCommandsTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    static final String SECRET = CallCommandsTest.SECRET;
    static final String SECRET_B = "An0ther-s3cret-for-B";

    @Test
    void reconcileReachesEachStateAndReportsTheConditions(@TempDir Path dir) {
        ReferenceDriver driver = ReferenceDriver.builder()
                .volumes(1)
                .groups(1)
                .requiredSecret("password", SECRET)
                .build();
        ReplicationServer server = grpc.register(ReferencePlugin.start(driver, "unix://" + dir.resolve("r.sock")));
        String endpoint = server.address();
        Run primary = volrep(
                "reconcile",
                "--endpoint",
                endpoint,
                "--volume",
                "vol-0",
                "--state",
                "primary",
                "--secret",
                "password=" + SECRET,
                "--parameter",
                "mode=snapshot");
        assertThat(primary.exit()).as(primary.all()).isZero();
        assertThat(primary.out())
                .contains("reached:    primary")
                .contains("Completed:  True (Promoted)")
                .contains("Degraded:   False")
                .contains("Replicating: True")
                .containsPattern("last sync:  \\d{4}-")
                .contains("calls:      GetVolumeReplicationInfo: 9 FAILED_PRECONDITION, EnableVolumeReplication: OK,"
                        + " PromoteVolume: OK, GetVolumeReplicationInfo: OK");
        assertThat(primary.all()).doesNotContain(SECRET);

        Run resync = volrep(
                "reconcile",
                "--endpoint",
                endpoint,
                "--volume-group",
                "grp-0",
                "--state",
                "RESYNC",
                "--secret",
                "password=" + SECRET,
                "--resync-timeout",
                "30s");
        assertThat(resync.exit()).as(resync.all()).isZero();
        assertThat(resync.out()).contains("reached:    resync").contains("Resyncing:  False");
        assertThat(driver.state(ReplicationSource.volumeGroup("grp-0")).role())
                .isEqualTo(ReferenceDriver.Role.SECONDARY);

        Run missing = volrep(
                "reconcile",
                "--endpoint",
                endpoint,
                "--volume",
                "nope",
                "--state",
                "secondary",
                "--secret",
                "password=" + SECRET);
        assertThat(missing.exit()).isEqualTo(1);
        assertThat(missing.err()).contains("error: EnableVolumeReplication answered 5 NOT_FOUND");

        Run bad = volrep("reconcile", "--endpoint", endpoint, "--volume", "vol-0", "--state", "sideways");
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err()).contains("not a state: \"sideways\" (use primary, secondary, resync or disabled)");
    }

    @Test
    void failoverThroughTheCliInOrderThenANoOpRerunThenWithSiteAGone(@TempDir Path dir) {
        ReferenceDriver a = ReferenceDriver.builder()
                .volume("vol-0")
                .volume("vol-1")
                .group("grp-0")
                .requiredSecret("password", SECRET)
                .build();
        ReferenceDriver b = ReferenceDriver.builder()
                .volume("b-vol-0")
                .volume("b-vol-1")
                .group("b-grp-0")
                .requiredSecret("password", SECRET_B)
                .build();
        ReplicationServer siteA = grpc.register(ReferencePlugin.start(a, "unix://" + dir.resolve("a.sock")));
        ReplicationServer siteB = grpc.register(ReferencePlugin.start(b, "unix://" + dir.resolve("b.sock")));
        for (String id : List.of("vol-0", "vol-1", "grp-0")) {
            String kind = id.startsWith("grp") ? "--volume-group" : "--volume";
            assertThat(volrep(
                                    "reconcile",
                                    "--endpoint",
                                    siteA.address(),
                                    kind,
                                    id,
                                    "--state",
                                    "primary",
                                    "--secret",
                                    "password=" + SECRET)
                            .exit())
                    .isZero();
            assertThat(volrep(
                                    "reconcile",
                                    "--endpoint",
                                    siteB.address(),
                                    kind,
                                    "b-" + id,
                                    "--state",
                                    "secondary",
                                    "--secret",
                                    "password=" + SECRET_B)
                            .exit())
                    .isZero();
        }
        String[] failover = {
            "failover",
            "--from",
            siteA.address(),
            "--to",
            siteB.address(),
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
            "password=" + SECRET,
            "--to-secret",
            "password=" + SECRET_B,
            "--timeout",
            "2s"
        };
        Run run = volrep(failover);
        assertThat(run.exit()).as(run.all()).isZero();
        assertThat(run.all()).doesNotContain(SECRET).doesNotContain(SECRET_B);
        assertThat(run.out())
                .containsPattern("volume vol-0 +volume b-vol-0 +primary on site B +demoted +no +\\d{4}-")
                .containsPattern("volumegroup grp-0 +volumegroup b-grp-0 +primary on site B +demoted +no")
                .contains("failover: 3 of 3 primary on site B");
        // Progress on stderr: each step of each source, and the total after each source.
        assertThat(run.err())
                .contains("volume vol-1 -> b-vol-1: demoting on site A")
                .contains("volume vol-1 -> b-vol-1: promoting on site B")
                .contains("volume vol-1 -> b-vol-1: primary on site B")
                .contains("total: 3 of 3 primary on site B, 0 refused, 0 failed, 0 in progress");
        // In order for every source: A demoted (sequence on A) before B promoted.
        for (String id : List.of("vol-0", "vol-1")) {
            assertThat(a.state(ReplicationSource.volume(id)).role()).isEqualTo(ReferenceDriver.Role.SECONDARY);
            assertThat(b.state(ReplicationSource.volume("b-" + id)).role()).isEqualTo(ReferenceDriver.Role.PRIMARY);
        }

        int effectsA = a.effects().size();
        int effectsB = b.effects().size();
        Run again = volrep(failover);
        assertThat(again.exit()).as(again.all()).isZero();
        assertThat(a.effects()).hasSize(effectsA);
        assertThat(b.effects()).hasSize(effectsB);

        siteA.close();
        Run gone = volrep(
                "failover",
                "--from",
                "unix://" + dir.resolve("a.sock"),
                "--to",
                siteB.address(),
                "--volume",
                "vol-0",
                "--destination",
                "vol-0=b-vol-0",
                "--volume",
                "unmapped",
                "--secret",
                "password=" + SECRET,
                "--to-secret",
                "password=" + SECRET_B,
                "--timeout",
                "3s");
        // vol-0 is already primary on B (the failover above): done without force; unmapped fails alone.
        assertThat(gone.exit()).isEqualTo(1);
        assertThat(gone.out())
                .containsPattern("volume vol-0 +volume b-vol-0 +primary on site B +unreachable +no")
                .contains("why not: destination not resolved: no destination given for volume unmapped")
                .contains("failover: 1 of 2 primary on site B");
        assertThat(gone.err()).contains("error: 1 of 2 source(s) not primary on site B: destination not resolved");
    }

    @Test
    void withoutDestinationsSiteAIsAskedAndNothingIsGuessed(@TempDir Path dir) {
        ReferenceDriver a = ReferenceDriver.builder()
                .volume("vol-0")
                .requiredSecret("password", SECRET)
                .build();
        // Site B has a volume of the same name; only site A can tell whether it is vol-0's replica.
        ReferenceDriver b = ReferenceDriver.builder()
                .volume("vol-0")
                .requiredSecret("password", SECRET)
                .build();
        FakePlugin siteA = grpc.register(FakePlugin.builder()
                .driver(a)
                .listen("unix://" + dir.resolve("a.sock"))
                .start());
        FakePlugin siteB = grpc.register(FakePlugin.builder()
                .driver(b)
                .listen("unix://" + dir.resolve("b.sock"))
                .start());
        assertThat(volrep(
                                "reconcile",
                                "--endpoint",
                                siteA.address(),
                                "--volume",
                                "vol-0",
                                "--state",
                                "primary",
                                "--secret",
                                "password=" + SECRET)
                        .exit())
                .isZero();
        assertThat(volrep(
                                "reconcile",
                                "--endpoint",
                                siteB.address(),
                                "--volume",
                                "vol-0",
                                "--state",
                                "secondary",
                                "--secret",
                                "password=" + SECRET)
                        .exit())
                .isZero();
        String[] failover = {
            "failover",
            "--from",
            siteA.address(),
            "--to",
            siteB.address(),
            "--volume",
            "vol-0",
            "--secret",
            "password=" + SECRET,
            "--timeout",
            "3s"
        };

        // "Not known yet" for longer than the budget: the source fails, nothing changes on either site.
        siteA.failNext(Rpc.GET_REPLICATION_DESTINATION_INFO, 1000, StatusCode.UNAVAILABLE);
        Run notYet = volrep(failover);
        assertThat(notYet.exit()).as(notYet.all()).isEqualTo(1);
        assertThat(notYet.out())
                .containsPattern("volume vol-0 +\\? +failed +not tried +no")
                .contains("why not: destination not resolved: GetReplicationDestinationInfo on site A answered"
                        + " 14 UNAVAILABLE")
                .contains("nothing changed on either site");
        assertThat(siteA.calls(Rpc.GET_REPLICATION_DESTINATION_INFO)).hasSizeGreaterThan(1); // retried
        assertThat(siteA.calls(Rpc.DEMOTE_VOLUME)).isEmpty();
        assertThat(siteB.calls(Rpc.PROMOTE_VOLUME)).isEmpty();
        assertThat(a.state(ReplicationSource.volume("vol-0")).role()).isEqualTo(ReferenceDriver.Role.PRIMARY);
        assertThat(b.state(ReplicationSource.volume("vol-0")).role()).isEqualTo(ReferenceDriver.Role.SECONDARY);

        // 13 INTERNAL: the same, without retries.
        siteA.faults().clearFaults();
        siteA.failNext(Rpc.GET_REPLICATION_DESTINATION_INFO, 1, StatusCode.INTERNAL);
        Run internal = volrep(failover);
        assertThat(internal.exit()).isEqualTo(1);
        assertThat(internal.out()).contains("GetReplicationDestinationInfo on site A answered 13 INTERNAL");
        assertThat(siteA.calls(Rpc.DEMOTE_VOLUME)).isEmpty();

        // 14 twice, then site A answers: its answer is used, and the report says so.
        siteA.failNext(Rpc.GET_REPLICATION_DESTINATION_INFO, 2, StatusCode.UNAVAILABLE);
        Run answered = volrep(failover);
        assertThat(answered.exit()).as(answered.all()).isZero();
        assertThat(answered.out())
                .containsPattern("volume vol-0 +volume vol-0 +primary on site B +demoted +no +\\S+ +site A");
        assertThat(b.state(ReplicationSource.volume("vol-0")).role()).isEqualTo(ReferenceDriver.Role.PRIMARY);

        // The same ids when asked for: site A is not asked.
        siteA.clearCalls();
        Run assumed = volrep(
                failover[0],
                failover[1],
                failover[2],
                failover[3],
                failover[4],
                failover[5],
                failover[6],
                failover[7],
                failover[8],
                failover[9],
                failover[10],
                "--assume-same-ids");
        assertThat(assumed.exit()).as(assumed.all()).isZero();
        assertThat(assumed.out())
                .containsPattern("volume vol-0 +volume vol-0 +primary on site B +demoted +no +\\S+ +same ids");
        assertThat(siteA.calls(Rpc.GET_REPLICATION_DESTINATION_INFO)).isEmpty();
    }

    @Test
    void helpAndGuideSayTheSameAboutFailoverWithoutDestinations() throws Exception {
        Run help = volrep("failover", "--help");
        assertThat(help.out()).contains("--assume-same-ids").contains("site A is asked");
        String guide = Files.readString(Path.of("..", "docs", "orchestrator-authors.md"));
        assertThat(guide).contains("without `--destination`, site A is asked").contains("`--assume-same-ids`");
    }

    @Test
    void withSiteANeverReachableNothingIsPromotedUnlessForced(@TempDir Path dir) {
        ReferenceDriver b = ReferenceDriver.builder()
                .volume("vol-0")
                .requiredSecret("password", SECRET)
                .build();
        ReplicationServer siteB = grpc.register(ReferencePlugin.start(b, "unix://" + dir.resolve("b.sock")));
        volrep(
                "reconcile",
                "--endpoint",
                siteB.address(),
                "--volume",
                "vol-0",
                "--state",
                "secondary",
                "--secret",
                "password=" + SECRET);
        String[] args = {
            "failover",
            "--from",
            "unix://" + dir.resolve("a.sock"),
            "--to",
            siteB.address(),
            "--volume",
            "vol-0",
            "--assume-same-ids",
            "--secret",
            "password=" + SECRET,
            "--timeout",
            "3s"
        };
        Run refused = volrep(args);
        assertThat(refused.exit()).isEqualTo(1);
        assertThat(refused.out())
                .containsPattern("volume vol-0 +volume vol-0 +refused +unreachable +no")
                .containsPattern("why not: site A unreachable \\((14 UNAVAILABLE|4 DEADLINE_EXCEEDED)");
        assertThat(refused.err()).contains("total: 0 of 1 primary on site B, 1 refused, 0 failed, 0 in progress");
        assertThat(b.state(ReplicationSource.volume("vol-0")).role()).isEqualTo(ReferenceDriver.Role.SECONDARY);

        List<String> forced = new ArrayList<>(List.of(args));
        forced.add("--force-if-unreachable");
        Run run = volrep(forced.toArray(String[]::new));
        assertThat(run.exit()).as(run.all()).isZero();
        assertThat(run.out()).containsPattern("volume vol-0 +volume vol-0 +primary on site B +unreachable +yes");
        assertThat(b.state(ReplicationSource.volume("vol-0")).role()).isEqualTo(ReferenceDriver.Role.PRIMARY);
    }

    @Test
    void failoverSpeaksALegacyDialectAndPrintsEachCallWithDashV(@TempDir Path dir) {
        ReferencePair pair = ReferenceDriver.builder().volume("vol-0").buildPair();
        String a = grpc.register(
                        ReferencePlugin.start(pair.siteA(), "unix://" + dir.resolve("a.sock"), SpecDialect.V0_1_3))
                .address();
        String b = grpc.register(
                        ReferencePlugin.start(pair.siteB(), "unix://" + dir.resolve("b.sock"), SpecDialect.V0_1_3))
                .address();
        assertThat(volrep("enable", "--endpoint", a, "--volume", "vol-0", "--dialect", "v0.1.3")
                        .exit())
                .isZero();

        Run run = volrep(
                "failover",
                "--from",
                a,
                "--to",
                b,
                "--volume",
                "vol-0",
                "--assume-same-ids",
                "--dialect",
                "v0.1.3",
                "-v",
                "--timeout",
                "20s");

        assertThat(run.exit()).as(run.all()).isZero();
        assertThat(run.out()).contains("failover: 1 of 1 primary on site B");
        assertThat(run.err())
                .as("each call, prefixed with its site")
                .contains(a + ": DemoteVolume volume vol-0 attempt 1: 0 OK")
                .contains(b + ": PromoteVolume volume vol-0 attempt 1: 0 OK");
    }

    @Test
    void usageErrors() {
        Run none = volrep("failover", "--from", "unix:///tmp/a.sock", "--to", "unix:///tmp/b.sock");
        assertThat(none.exit()).isEqualTo(2);
        assertThat(none.err()).contains("at least one '--volume=ID' or '--volume-group=ID'");
        Run parallel = volrep(
                "failover",
                "--from",
                "unix:///tmp/a.sock",
                "--to",
                "unix:///tmp/b.sock",
                "--volume",
                "v",
                "--parallel",
                "0");
        assertThat(parallel.exit()).isEqualTo(2);
        assertThat(parallel.err()).contains("--parallel must be at least 1");
    }
}
