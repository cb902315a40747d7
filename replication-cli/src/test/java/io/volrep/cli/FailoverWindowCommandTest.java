package io.volrep.cli;

import static io.volrep.cli.CallCommandsTest.volrep;
import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.cli.CallCommandsTest.Run;
import io.volrep.testkit.fake.FakePlugin;
import io.volrep.testkit.fake.FaultInjector;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testkit.reference.ReferencePair;
import io.volrep.testkit.reference.ReferencePlugin;
import io.volrep.testsupport.GrpcCleanup;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code volrep failover} against a site B that refuses unforced promotes for a while after site A's demote and has no
 * completed sync to report for a while after its promote (the testkit's fakes on unix sockets, site A's demote opening
 * the window on site B).
 */
class FailoverWindowCommandTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    private static FakePlugin site(Path dir, String name) {
        return FakePlugin.builder()
                .volumes(2)
                .listen("unix://" + dir.resolve(name + ".sock"))
                .start();
    }

    /** vol-0 and vol-1 primary on A, secondary on B (same ids on both sites). */
    private static void prepare(FakePlugin a, FakePlugin b) {
        for (String id : new String[] {"vol-0", "vol-1"}) {
            assertThat(volrep("reconcile", "--endpoint", a.address(), "--volume", id, "--state", "primary")
                            .exit())
                    .isZero();
            assertThat(volrep("reconcile", "--endpoint", b.address(), "--volume", id, "--state", "secondary")
                            .exit())
                    .isZero();
        }
        a.clearCalls();
        b.clearCalls();
    }

    private static void demoteOnAOpensPromoteWindowOnB(FakePlugin a, FakePlugin b, Duration lasting) {
        a.faults()
                .onAnswered(
                        Rpc.DEMOTE_VOLUME,
                        source -> b.refuse(
                                Rpc.PROMOTE_VOLUME,
                                source,
                                StatusCode.FAILED_PRECONDITION,
                                FaultInjector.Window.lasting(lasting)));
    }

    @Test
    void oneRunWaitsOutBothWindowsSayingWhatItWaitsForAndNeverForces(@TempDir Path dir) {
        FakePlugin a = grpc.register(site(dir, "a"));
        FakePlugin b = grpc.register(site(dir, "b"));
        prepare(a, b);
        demoteOnAOpensPromoteWindowOnB(a, b, Duration.ofMillis(800));
        b.refuseAfter(
                Rpc.PROMOTE_VOLUME,
                Rpc.GET_VOLUME_REPLICATION_INFO,
                StatusCode.NOT_FOUND,
                FaultInjector.Window.lasting(Duration.ofMillis(600)));

        Run run = volrep(
                "failover",
                "--from",
                a.address(),
                "--to",
                b.address(),
                "--volume",
                "vol-0",
                "--volume",
                "vol-1",
                "--assume-same-ids",
                "--timeout",
                "10s");

        assertThat(run.exit()).as(run.all()).isZero();
        assertThat(run.err())
                .contains("volume vol-0 -> vol-0: promoting on site B (waiting for site A's demotion to"
                        + " reach site B: PromoteVolume answered 9 FAILED_PRECONDITION (try 1, again in")
                .contains("of 2m)")
                .contains("volume vol-0 -> vol-0: verifying on site B (waiting for site B's first completed sync:"
                        + " GetVolumeReplicationInfo answered 5 NOT_FOUND (try 1");
        assertThat(run.out())
                .containsPattern("volume vol-0 +volume vol-0 +primary on site B +demoted +no +\\d{4}-")
                .contains("failover: 2 of 2 primary on site B");
        assertThat(b.calls(Rpc.PROMOTE_VOLUME))
                .allSatisfy(c -> assertThat(c.request()).doesNotContain("force: true"));
        assertThat(b.driver().state(ReplicationSource.volume("vol-1")).role()).isEqualTo(ReferenceDriver.Role.PRIMARY);
    }

    @Test
    void beyondDemotionWaitItGivesUpWithTheRowThatFitsAndASecondRunCompletes(@TempDir Path dir) {
        FakePlugin a = grpc.register(site(dir, "a"));
        FakePlugin b = grpc.register(site(dir, "b"));
        prepare(a, b);
        demoteOnAOpensPromoteWindowOnB(a, b, Duration.ofSeconds(4));

        Run run = volrep(
                "failover",
                "--from",
                a.address(),
                "--to",
                b.address(),
                "--volume",
                "vol-0",
                "--assume-same-ids",
                "--timeout",
                "5s",
                "--demotion-wait",
                "1s");

        assertThat(run.exit()).as(run.all()).isEqualTo(1);
        assertThat(run.out())
                .containsPattern("volume vol-0 +volume vol-0 +failed +demoted +no +-")
                .contains("  why not: site B still refused the unforced PromoteVolume after waiting 1s for site A's"
                        + " demotion to reach it")
                .contains("If it cannot be promoted without force option (volrep's words; the spec gives this"
                        + " condition no recovery): Caller SHOULD retry without force");
        assertThat(run.err()).contains("error: 1 of 1 source(s) not primary on site B: site B still refused");
        assertThat(b.calls(Rpc.PROMOTE_VOLUME))
                .hasSizeGreaterThan(1)
                .allSatisfy(c -> assertThat(c.request()).doesNotContain("force: true"));

        // Re-run once the demotion has arrived: A's demote is repeated (idempotent), B's window is long over.
        a.faults().clearFaults();
        b.faults().clearFaults();
        Run again = volrep(
                "failover",
                "--from",
                a.address(),
                "--to",
                b.address(),
                "--volume",
                "vol-0",
                "--assume-same-ids",
                "--timeout",
                "5s");
        assertThat(again.exit()).as(again.all()).isZero();
        assertThat(b.driver().state(ReplicationSource.volume("vol-0")).role()).isEqualTo(ReferenceDriver.Role.PRIMARY);
    }

    @Test
    void againstAnInMemoryTwoSitePairItWaitsOutSiteBsDemotionWindowAndSucceeds(@TempDir Path dir) {
        // The reference pair (what serve-reference --listen A --peer-listen B serves): after A's demote, B refuses an
        // unforced promote with 9 FAILED_PRECONDITION for the demotion window, as RBD does until the demotion has
        // arrived; Info answers 5 for the first-sync delay after the promote. No fault injection: the pair's own rules.
        Duration window = Duration.ofMillis(1500);
        ReferencePair pair = ReferenceDriver.builder()
                .volumes(2)
                .groups(0)
                .demotionWindow(window)
                .firstSyncDelay(Duration.ofMillis(500))
                .buildPair();
        String a = "unix://" + dir.resolve("a.sock");
        String b = "unix://" + dir.resolve("b.sock");
        grpc.register(ReferencePlugin.start(pair.siteA(), a));
        grpc.register(ReferencePlugin.start(pair.siteB(), b));
        assertThat(volrep("enable", "--endpoint", a, "--volume", "vol-0").exit())
                .isZero();
        ReplicationSource vol = ReplicationSource.volume("vol-0");
        assertThat(pair.siteB().state(vol).role()).isEqualTo(ReferenceDriver.Role.SECONDARY);

        long start = System.nanoTime();
        Run run = volrep(
                "failover",
                "--from",
                a,
                "--to",
                b,
                "--volume",
                "vol-0",
                "--assume-same-ids",
                "--timeout",
                "20s",
                "--demotion-wait",
                "30s");
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(run.exit()).as(run.all()).isZero();
        assertThat(run.err())
                .contains("volume vol-0 -> vol-0: promoting on site B (waiting for site A's demotion to"
                        + " reach site B: PromoteVolume answered 9 FAILED_PRECONDITION (try 1, again in");
        assertThat(run.out()).contains("failover: 1 of 1 primary on site B");
        // A forced promote would have passed at once: the run took the window, so it waited without force.
        assertThat(took).as("waited out the demotion window").isGreaterThanOrEqualTo(window);
        assertThat(pair.siteB().state(vol).role()).isEqualTo(ReferenceDriver.Role.PRIMARY);
        assertThat(pair.siteA().state(vol).role()).isEqualTo(ReferenceDriver.Role.SECONDARY);
        assertThat(pair.siteB().effects(vol))
                .extracting(ReferenceDriver.Effect::change)
                .containsOnlyOnce(ReferenceDriver.Change.PROMOTED);
    }
}
