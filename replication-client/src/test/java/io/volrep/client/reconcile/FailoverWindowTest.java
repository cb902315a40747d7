package io.volrep.client.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.client.ReplicationClient;
import io.volrep.client.RetryPolicy;
import io.volrep.client.SecretsProvider;
import io.volrep.testkit.fake.FakePlugin;
import io.volrep.testkit.fake.FaultInjector;
import io.volrep.testkit.fake.RecordedCall;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testsupport.GrpcCleanup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Failover against a site B that behaves as real storage does right after a failover (measured on two Ceph RBD sites):
 * it refuses an unforced promote for a while after site A's demote (9 FAILED_PRECONDITION, or 10 ABORTED), and has no
 * completed sync to report for a while after the promote (GetVolumeReplicationInfo 5 NOT_FOUND "details not available
 * at the moment", or 14 UNAVAILABLE). Both sites are the testkit's fakes over unix sockets; site A's demote opens the
 * window on site B, for the destination of the source it demoted. One run must succeed without force within the
 * windows, give up with the matching row's text beyond them, and never force while site A answers.
 */
class FailoverWindowTest {
    static final RetryPolicy FAST = FailoverTest.FAST;
    static final ReplicationSource VOL0 = ReplicationSource.volume("vol-0");
    static final ReplicationSource VOL1 = ReplicationSource.volume("vol-1");
    static final ReplicationSource VOL2 = ReplicationSource.volume("vol-2");
    static final DestinationResolver RESOLVER =
            DestinationResolver.ids(Map.of("vol-0", "b-vol-0", "vol-1", "b-vol-1", "vol-2", "b-vol-2"));
    static final String NEEDS_FORCE_RECOVERY = "If it cannot be promoted without force option (volrep's words; the"
            + " spec gives this condition no recovery): Caller SHOULD retry without force";
    static final String ABORTED_RECOVERY = "Caller SHOULD ensure that there are no other calls pending for the"
            + " specified `replication_source`, and then retry with exponential back off.";

    @TempDir
    Path dir;

    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    ReferenceDriver driverA;
    ReferenceDriver driverB;
    FakePlugin siteA;
    FakePlugin siteB;
    final List<FailoverProgress> progress = Collections.synchronizedList(new ArrayList<>());

    @BeforeEach
    void twoSites() {
        driverA = ReferenceDriver.builder()
                .volumes(3)
                .requiredSecret("user", "admin")
                .build();
        driverB = ReferenceDriver.builder()
                .volume("b-vol-0")
                .volume("b-vol-1")
                .volume("b-vol-2")
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
        for (ReplicationSource s : List.of(VOL0, VOL1, VOL2)) {
            a.source(s).enable().call();
            ReplicationSource onB = ReplicationSource.volume("b-" + s.id());
            b.source(onB).enable().call();
            b.source(onB).demote().call();
        }
        siteA.clearCalls();
        siteB.clearCalls();
    }

    /** Site A's demote of a source makes site B refuse unforced promotes of its destination within {@code window}. */
    private void promoteRefusedOnBAfterDemoteOnA(StatusCode code, FaultInjector.Window window) {
        siteA.faults()
                .onAnswered(
                        Rpc.DEMOTE_VOLUME,
                        source -> siteB.refuse(
                                Rpc.PROMOTE_VOLUME, ReplicationSource.volume("b-" + source.id()), code, window));
    }

    private ReplicationClient client(FakePlugin site) {
        return ReplicationClient.builder()
                .target(site.address())
                .retry(FAST)
                .secrets(SecretsProvider.of(Map.of("user", "admin")))
                .build();
    }

    private Failover.Builder failover(ReplicationSource... sources) {
        return Failover.builder()
                .from(grpc.register(client(siteA)))
                .to(grpc.register(client(siteB)))
                .sources(List.of(sources))
                .resolver(RESOLVER)
                .callBudget(Duration.ofSeconds(10))
                .listener(progress::add);
    }

    private void assertNeverForced() {
        assertThat(siteB.calls(Rpc.PROMOTE_VOLUME))
                .isNotEmpty()
                .allSatisfy(c -> assertThat(c.request()).doesNotContain("force: true"));
    }

    private List<String> details(ReplicationSource source, FailoverStep step) {
        return progress.stream()
                .filter(p -> p.source().equals(source) && p.step() == step)
                .map(FailoverProgress::detail)
                .toList();
    }

    @Test
    void oneRunWaitsOutTheDemotionWindowAndTheFirstSyncWithoutForce() {
        promoteRefusedOnBAfterDemoteOnA(StatusCode.FAILED_PRECONDITION, FaultInjector.Window.calls(3));
        siteB.refuseAfter(
                Rpc.PROMOTE_VOLUME,
                Rpc.GET_VOLUME_REPLICATION_INFO,
                StatusCode.NOT_FOUND,
                FaultInjector.Window.calls(2));

        FailoverReport report = failover(VOL0, VOL1, VOL2).build().run();

        assertThat(report.allPrimaryOnB()).as(report.toString()).isTrue();
        assertNeverForced();
        for (SourceFailover s : report.sources()) {
            assertThat(s.forced()).isFalse();
            assertThat(s.siteA()).isEqualTo(SourceFailover.SiteA.DEMOTED);
            assertThat(s.lastSync()).as("B's first completed sync").isPresent();
            assertThat(s.calls())
                    .startsWith(
                            "B GetVolumeReplicationInfo: 9 FAILED_PRECONDITION",
                            "A DemoteVolume: OK",
                            "B PromoteVolume: 9 FAILED_PRECONDITION")
                    .endsWith("B GetVolumeReplicationInfo: OK")
                    .contains("B PromoteVolume: OK", "B GetVolumeReplicationInfo: 5 NOT_FOUND");
            ReplicationSource b = s.destination().orElseThrow().source();
            assertThat(driverB.state(b).role()).isEqualTo(ReferenceDriver.Role.PRIMARY);
            // Promoted only once the window had passed: every earlier unforced promote was refused.
            List<RecordedCall> promotes = siteB.calls(Rpc.PROMOTE_VOLUME).stream()
                    .filter(c -> c.request().contains("\"" + b.id() + "\""))
                    .toList();
            assertThat(promotes).hasSizeGreaterThan(1);
            assertThat(promotes.subList(0, promotes.size() - 1))
                    .allSatisfy(c -> assertThat(c.injected()).isTrue());
            assertThat(promotes.get(promotes.size() - 1).code()).isEqualTo(StatusCode.OK);
        }
        // The progress line says what it waits for.
        assertThat(details(VOL0, FailoverStep.PROMOTING_ON_B))
                .anySatisfy(d -> assertThat(d)
                        .startsWith(
                                "waiting for site A's demotion to reach site B: PromoteVolume answered 9 FAILED_PRECONDITION")
                        .contains("of 2m"));
        assertThat(details(VOL0, FailoverStep.VERIFYING_ON_B))
                .anySatisfy(
                        d -> assertThat(d)
                                .startsWith(
                                        "waiting for site B's first completed sync: GetVolumeReplicationInfo answered 5 NOT_FOUND"));
    }

    @Test
    void abortedPromotesAndUnavailableInfoAreWaitedOutToo() {
        // More refusals than one call's own retries (5 attempts): the failover's window, not the call, waits them out.
        promoteRefusedOnBAfterDemoteOnA(StatusCode.ABORTED, FaultInjector.Window.calls(12));
        siteB.refuseAfter(
                Rpc.PROMOTE_VOLUME,
                Rpc.GET_VOLUME_REPLICATION_INFO,
                StatusCode.UNAVAILABLE,
                FaultInjector.Window.calls(12));

        FailoverReport report =
                failover(VOL0).demotionWait(Duration.ofSeconds(20)).build().run();

        SourceFailover s = report.sources().get(0);
        assertThat(s.primaryOnB()).as(report.toString()).isTrue();
        assertThat(s.forced()).isFalse();
        assertThat(s.lastSync()).isPresent();
        assertThat(s.calls())
                .contains(
                        "B PromoteVolume: 10 ABORTED",
                        "B PromoteVolume: OK",
                        "B GetVolumeReplicationInfo: 14 UNAVAILABLE")
                .endsWith("B GetVolumeReplicationInfo: OK");
        assertThat(siteB.calls(Rpc.PROMOTE_VOLUME)).hasSize(13);
        assertNeverForced();
        assertThat(details(VOL0, FailoverStep.PROMOTING_ON_B))
                .anySatisfy(d -> assertThat(d)
                        .startsWith("waiting for site A's demotion to reach site B: PromoteVolume answered 10 ABORTED")
                        .contains("of 20s"));
    }

    @Test
    void aRefusalBeyondTheDemotionWaitGivesUpWithTheMatchingRowsTextAndNeverForces() {
        promoteRefusedOnBAfterDemoteOnA(
                StatusCode.FAILED_PRECONDITION, FaultInjector.Window.lasting(Duration.ofMinutes(10)));

        FailoverReport report =
                failover(VOL0).demotionWait(Duration.ofMillis(800)).build().run();

        // It gave up at the end of its demotion wait, long before the refusals end (no clock of this test decides).
        assertThat(siteB.faults().pendingRefusals(Rpc.PROMOTE_VOLUME)).isEqualTo(1);
        SourceFailover s = report.sources().get(0);
        assertThat(s.step()).isEqualTo(FailoverStep.FAILED);
        assertThat(s.siteA()).isEqualTo(SourceFailover.SiteA.DEMOTED);
        assertThat(s.forced()).isFalse();
        assertThat(s.whyNot())
                .hasValueSatisfying(w -> assertThat(w)
                        .startsWith(
                                "site B still refused the unforced PromoteVolume after waiting 800ms for site A's demotion"
                                        + " to reach it")
                        .contains("9 FAILED_PRECONDITION")
                        .contains(NEEDS_FORCE_RECOVERY)
                        .contains("site A is demoted: re-run the failover once the cause is fixed"));
        assertThat(s.calls())
                .filteredOn(c -> c.startsWith("B PromoteVolume"))
                .hasSizeGreaterThan(1)
                .allSatisfy(c -> assertThat(c).isEqualTo("B PromoteVolume: 9 FAILED_PRECONDITION"));
        assertNeverForced();
        assertThat(driverB.state(ReplicationSource.volume("b-vol-0")).role()).isEqualTo(ReferenceDriver.Role.SECONDARY);
        assertThat(driverA.state(VOL0).role()).isEqualTo(ReferenceDriver.Role.SECONDARY);
    }

    @Test
    void anAbortedRefusalBeyondTheDemotionWaitQuotesTheAbortedRow() {
        promoteRefusedOnBAfterDemoteOnA(StatusCode.ABORTED, FaultInjector.Window.lasting(Duration.ofMinutes(10)));

        FailoverReport report =
                failover(VOL0).demotionWait(Duration.ofMillis(600)).build().run();

        SourceFailover s = report.sources().get(0);
        assertThat(s.step()).isEqualTo(FailoverStep.FAILED);
        assertThat(s.whyNot())
                .hasValueSatisfying(w -> assertThat(w)
                        .contains("10 ABORTED")
                        .contains("recovery: " + ABORTED_RECOVERY)
                        .doesNotContain("without force option"));
        assertNeverForced();
    }

    @Test
    void noCompletedSyncWithinTheBudgetIsAFailureOfThatSourceThoughItIsPromoted() {
        siteB.refuseAfter(
                Rpc.PROMOTE_VOLUME,
                Rpc.GET_VOLUME_REPLICATION_INFO,
                StatusCode.NOT_FOUND,
                FaultInjector.Window.lasting(Duration.ofMinutes(10)));

        FailoverReport report =
                failover(VOL0, VOL1).callBudget(Duration.ofSeconds(3)).build().run();

        assertThat(report.allPrimaryOnB()).isFalse();
        for (SourceFailover s : report.sources()) {
            assertThat(s.step()).isEqualTo(FailoverStep.FAILED);
            assertThat(s.forced()).isFalse();
            assertThat(s.lastSync()).isEmpty();
            assertThat(s.whyNot())
                    .hasValueSatisfying(w -> assertThat(w)
                            .startsWith("promoted, but site B reported no completed sync within the budget of 3s:"
                                    + " GetVolumeReplicationInfo answered 5 NOT_FOUND"));
            assertThat(driverB.state(s.destination().orElseThrow().source()).role())
                    .isEqualTo(ReferenceDriver.Role.PRIMARY);
        }
        // Each source's verify polled more than once before it gave up.
        assertThat(siteB.calls(Rpc.GET_VOLUME_REPLICATION_INFO).stream()
                        .filter(RecordedCall::injected)
                        .count())
                .isGreaterThan(2);
    }

    @Test
    void aForcedPromoteInDisasterModeIsNotRetriedOnNine() {
        siteA.close();
        driverB.reset(); // b-vol-0 not replicated: even a forced promote is refused, for good

        FailoverReport report = failover(VOL0)
                .forceIfUnreachable(true)
                .callBudget(Duration.ofSeconds(3))
                .build()
                .run();

        SourceFailover s = report.sources().get(0);
        assertThat(s.step()).isEqualTo(FailoverStep.FAILED);
        assertThat(s.siteA()).isEqualTo(SourceFailover.SiteA.UNREACHABLE);
        assertThat(s.calls())
                .filteredOn(c -> c.startsWith("B PromoteVolume"))
                .containsExactly("B PromoteVolume(force): 9 FAILED_PRECONDITION");
        // A forced promote cannot be refused for want of force: only "not enabled" is quoted.
        assertThat(s.whyNot())
                .hasValueSatisfying(w -> assertThat(w)
                        .contains("(precondition: Caller SHOULD ensure that replication is enabled.)")
                        .doesNotContain("without force option"));
    }
}
