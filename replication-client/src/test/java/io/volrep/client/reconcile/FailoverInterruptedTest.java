package io.volrep.client.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.client.ReplicationClient;
import io.volrep.client.SecretsProvider;
import io.volrep.testkit.fake.FakePlugin;
import io.volrep.testkit.fake.FaultInjector;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testsupport.GrpcCleanup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An orchestrator stopped for good between two steps of a failover (issue 44: check B, demote A, promote B, verify
 * B), then the same failover run again by a new one: it completes without force from whatever state the first left,
 * and reports, for a run that cannot complete, in which state each source is. Site B behaves as real storage does
 * (measured on two Ceph RBD sites): it refuses an unforced promote for a while after site A's demote, and has no
 * completed sync to report for a while after its promote (Info 5 NOT_FOUND); both windows count calls, not time, so
 * that a slow machine changes nothing. The orchestrator "dies" in its progress listener, which never returns: nothing
 * it would have sent next is sent.
 */
class FailoverInterruptedTest {
    static final ReplicationSource VOL0 = ReplicationSource.volume("vol-0");
    static final ReplicationSource B_VOL0 = ReplicationSource.volume("b-vol-0");
    static final DestinationResolver RESOLVER = DestinationResolver.ids(Map.of("vol-0", "b-vol-0"));
    /** Generous: the windows count calls, and a loaded machine must not turn a slow call into "unreachable". */
    static final Duration BUDGET = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    /** Released after each test: the listeners of the runs stopped for good return (to clients already closed). */
    final List<CountDownLatch> stopped = new CopyOnWriteArrayList<>();

    ReferenceDriver driverA;
    ReferenceDriver driverB;
    FakePlugin siteA;
    FakePlugin siteB;

    @BeforeEach
    void twoSites() {
        driverA = ReferenceDriver.builder()
                .volume("vol-0")
                .requiredSecret("user", "admin")
                .build();
        driverB = ReferenceDriver.builder()
                .volume("b-vol-0")
                .requiredSecret("user", "admin")
                .build();
        siteA = grpc.register(FakePlugin.builder()
                .driver(driverA)
                .listen("unix://" + dir.resolve("a.sock"))
                .start());
        siteB = grpc.register(FakePlugin.builder()
                .driver(driverB)
                .listen("unix://" + dir.resolve("b.sock"))
                .start());
        ReplicationClient a = grpc.register(client(siteA));
        ReplicationClient b = grpc.register(client(siteB));
        a.source(VOL0).enable().call();
        b.source(B_VOL0).enable().call();
        b.source(B_VOL0).demote().call();
        // Real storage's windows: B refuses an unforced promote twice after A's demote, and answers Info 5 three times
        // after its promote.
        promoteRefusedOnBAfterDemoteOnA(2);
        siteB.refuseAfter(
                Rpc.PROMOTE_VOLUME,
                Rpc.GET_VOLUME_REPLICATION_INFO,
                StatusCode.NOT_FOUND,
                FaultInjector.Window.calls(3));
        siteA.clearCalls();
        siteB.clearCalls();
    }

    @AfterEach
    void releaseTheStoppedRuns() {
        stopped.forEach(CountDownLatch::countDown);
    }

    /** Site A's demote makes B refuse its next {@code calls} unforced promotes (9), as real storage does for a while. */
    private void promoteRefusedOnBAfterDemoteOnA(int calls) {
        siteA.faults()
                .onAnswered(
                        Rpc.DEMOTE_VOLUME,
                        source -> siteB.refuse(
                                Rpc.PROMOTE_VOLUME,
                                B_VOL0,
                                StatusCode.FAILED_PRECONDITION,
                                FaultInjector.Window.calls(calls)));
    }

    private ReplicationClient client(FakePlugin site) {
        return ReplicationClient.builder()
                .target(site.address())
                .retry(FailoverTest.FAST)
                .secrets(SecretsProvider.of(Map.of("user", "admin")))
                .build();
    }

    /** The failover of vol-0 with new clients: a new orchestrator process. */
    private Failover.Builder failover() {
        return Failover.builder()
                .from(grpc.register(client(siteA)))
                .to(grpc.register(client(siteB)))
                .source(VOL0)
                .resolver(RESOLVER)
                .callBudget(BUDGET);
    }

    /**
     * Runs the failover until vol-0 enters {@code boundary} (before that step's call is sent), and stops it there for
     * good: its listener never returns, and its clients are closed, as a killed process's connections are.
     */
    private void killedAt(FailoverStep boundary) throws InterruptedException {
        CountDownLatch reached = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        stopped.add(never);
        ReplicationClient a = client(siteA);
        ReplicationClient b = client(siteB);
        CompletableFuture<FailoverReport> run = Failover.builder()
                .from(a)
                .to(b)
                .source(VOL0)
                .resolver(RESOLVER)
                .callBudget(BUDGET)
                .listener(p -> {
                    if (p.step() == boundary) {
                        reached.countDown();
                        try {
                            never.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                })
                .build()
                .runAsync();
        assertThat(reached.await(5, TimeUnit.MINUTES))
                .as("the failover reached " + boundary)
                .isTrue();
        a.close();
        b.close();
        assertThat(run).isNotDone();
    }

    private void assertPrimaryOnBOnlyAndNeverForced() {
        assertThat(driverA.state(VOL0).role()).isEqualTo(ReferenceDriver.Role.SECONDARY);
        assertThat(driverB.state(B_VOL0).role()).isEqualTo(ReferenceDriver.Role.PRIMARY);
        assertThat(siteB.calls(Rpc.PROMOTE_VOLUME))
                .allSatisfy(c -> assertThat(c.request()).doesNotContain("force: true"));
    }

    @ParameterizedTest
    @EnumSource(
            value = FailoverStep.class,
            names = {"DEMOTING_ON_A", "PROMOTING_ON_B", "VERIFYING_ON_B", "PRIMARY_ON_B"})
    void killedAtAStepBoundaryTheSameFailoverAgainCompletesWithoutForce(FailoverStep boundary)
            throws InterruptedException {
        killedAt(boundary);

        FailoverReport again = failover().build().run();

        SourceFailover s = again.sources().get(0);
        assertThat(s.step()).as(again.toString()).isEqualTo(FailoverStep.PRIMARY_ON_B);
        assertThat(s.state()).isEqualTo(SourceFailover.State.PRIMARY_ON_B);
        assertThat(s.forced()).isFalse();
        assertThat(s.siteA()).isEqualTo(SourceFailover.SiteA.DEMOTED);
        assertThat(s.lastSync()).as("B's sync, reported by B").isPresent();
        assertPrimaryOnBOnlyAndNeverForced();
    }

    @Test
    void killedAfterThePromoteWhileBHasNoSyncToReportTheRerunWaitsForBInsteadOfFailing() throws InterruptedException {
        killedAt(FailoverStep.VERIFYING_ON_B);

        FailoverReport again = failover().build().run();

        SourceFailover s = again.sources().get(0);
        assertThat(s.primaryOnB()).as(again.toString()).isTrue();
        // B's 5 alone cannot tell a missing destination from a primary without a sync: A, not primary, tells.
        assertThat(s.calls())
                .containsExactly(
                        "B GetVolumeReplicationInfo: 5 NOT_FOUND",
                        "A GetVolumeReplicationInfo: 9 FAILED_PRECONDITION",
                        "B GetVolumeReplicationInfo: 5 NOT_FOUND",
                        "B GetVolumeReplicationInfo: 5 NOT_FOUND",
                        "B GetVolumeReplicationInfo: OK",
                        "A DemoteVolume: OK");
        assertThat(siteB.calls(Rpc.PROMOTE_VOLUME)).hasSize(3); // the first run's: refused twice, then OK
        assertPrimaryOnBOnlyAndNeverForced();
    }

    @Test
    void aMissingDestinationWhileSiteAIsPrimaryStillFailsAtOnceWithNothingChanged() {
        FailoverReport report = Failover.builder()
                .from(grpc.register(client(siteA)))
                .to(grpc.register(client(siteB)))
                .source(VOL0)
                .resolver(DestinationResolver.ids(Map.of("vol-0", "b-typo")))
                .callBudget(BUDGET)
                .build()
                .run();

        SourceFailover s = report.sources().get(0);
        assertThat(s.step()).isEqualTo(FailoverStep.FAILED);
        assertThat(s.state()).isEqualTo(SourceFailover.State.UNCHANGED);
        assertThat(s.calls())
                .containsExactly("B GetVolumeReplicationInfo: 5 NOT_FOUND", "A GetVolumeReplicationInfo: OK");
        assertThat(s.whyNot())
                .hasValueSatisfying(w -> assertThat(w)
                        .startsWith("GetVolumeReplicationInfo on site B answered 5 NOT_FOUND")
                        .contains("site A is primary")
                        .endsWith("nothing changed on either site"));
        assertThat(siteA.calls(Rpc.DEMOTE_VOLUME)).isEmpty();
        assertThat(driverA.state(VOL0).role()).isEqualTo(ReferenceDriver.Role.PRIMARY);
    }

    @Test
    void eachUnfinishedSourceSaysWhereItStands() {
        // B refuses the unforced promote beyond the demotion wait: A demoted, B not primary.
        siteA.faults().clearFaults();
        promoteRefusedOnBAfterDemoteOnA(1000);
        SourceFailover noPrimary = failover()
                .demotionWait(Duration.ofMillis(300))
                .build()
                .run()
                .sources()
                .get(0);
        assertThat(noPrimary.step()).isEqualTo(FailoverStep.FAILED);
        assertThat(noPrimary.state()).isEqualTo(SourceFailover.State.NO_PRIMARY);

        // The refusals end (the cause is fixed); now B has no sync to report within the budget after its promote.
        siteA.faults().clearFaults();
        siteB.faults().clearFaults();
        siteB.refuseAfter(
                Rpc.PROMOTE_VOLUME,
                Rpc.GET_VOLUME_REPLICATION_INFO,
                StatusCode.NOT_FOUND,
                FaultInjector.Window.calls(1000));
        SourceFailover unverified = failover()
                .callBudget(Duration.ofSeconds(3))
                .build()
                .run()
                .sources()
                .get(0);
        assertThat(unverified.step()).isEqualTo(FailoverStep.FAILED);
        assertThat(unverified.state()).isEqualTo(SourceFailover.State.PROMOTED_NOT_VERIFIED);
        assertThat(driverB.state(B_VOL0).role()).isEqualTo(ReferenceDriver.Role.PRIMARY);

        siteB.faults().clearFaults();
        SourceFailover done = failover().build().run().sources().get(0);
        assertThat(done.state()).isEqualTo(SourceFailover.State.PRIMARY_ON_B);
        assertThat(done.calls()).containsExactly("B GetVolumeReplicationInfo: OK", "A DemoteVolume: OK");
        assertPrimaryOnBOnlyAndNeverForced();
    }

    @Test
    void siteAGoneBeforeItsDemoteAnsweredIsReportedAsUnknownOnA() {
        siteA.close();
        SourceFailover refused = failover()
                .callBudget(Duration.ofSeconds(3))
                .build()
                .run()
                .sources()
                .get(0);
        assertThat(refused.step()).isEqualTo(FailoverStep.REFUSED);
        assertThat(refused.state()).isEqualTo(SourceFailover.State.DEMOTE_UNANSWERED);
        assertThat(driverB.state(B_VOL0).role()).isEqualTo(ReferenceDriver.Role.SECONDARY);
    }

    @Test
    void siteNamesNameTheSitesInEveryText() {
        siteA.faults().clearFaults();
        promoteRefusedOnBAfterDemoteOnA(1000);
        List<FailoverProgress> progress = new CopyOnWriteArrayList<>();
        SourceFailover s = failover()
                .siteNames("site-b", "site-a")
                .demotionWait(Duration.ofMillis(300))
                .listener(progress::add)
                .build()
                .run()
                .sources()
                .get(0);
        assertThat(s.whyNot())
                .hasValueSatisfying(w -> assertThat(w)
                        .startsWith("site-a still refused the unforced PromoteVolume after waiting 300ms for"
                                + " site-b's demotion to reach it")
                        .contains("site-b is demoted")
                        .doesNotContain("site A")
                        .doesNotContain("site B"));
        assertThat(progress)
                .anySatisfy(p -> assertThat(p.detail()).startsWith("waiting for site-b's demotion to reach site-a"));
    }
}
