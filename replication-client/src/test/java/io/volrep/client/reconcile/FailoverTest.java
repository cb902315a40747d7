package io.volrep.client.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.client.ReplicationClient;
import io.volrep.client.RetryPolicy;
import io.volrep.client.SecretsProvider;
import io.volrep.testkit.fake.FakePlugin;
import io.volrep.testkit.fake.RecordedCall;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testsupport.GrpcCleanup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two-site failover between two reference plugins (each served by the fault-injecting fake, which records the
 * calls with their times) over unix sockets; site B names its sources differently from site A.
 */
class FailoverTest {
    static final RetryPolicy FAST = RetryPolicy.spec().toBuilder()
            .initialBackoff(Duration.ofMillis(20))
            .multiplier(2)
            .maxBackoff(Duration.ofMillis(100))
            .jitter(RetryPolicy.Jitter.NONE)
            .maxAttempts(5)
            .build();
    static final ReplicationSource VOL0 = ReplicationSource.volume("vol-0");
    static final ReplicationSource VOL1 = ReplicationSource.volume("vol-1");
    static final ReplicationSource GRP0 = ReplicationSource.volumeGroup("grp-0");
    static final ReplicationSource B_GRP0 = ReplicationSource.volumeGroup("b-grp-0");
    static final Map<String, String> MEMBERS = Map.of("vol-0", "b-vol-0", "vol-1", "b-vol-1");
    static final DestinationResolver RESOLVER = DestinationResolver.of(
                    Map.of(GRP0, Destination.of(B_GRP0).withMembers(MEMBERS)))
            .orElse(DestinationResolver.ids(Map.of("vol-0", "b-vol-0", "vol-1", "b-vol-1", "vol-2", "b-vol-2")));

    @TempDir
    Path dir;

    ReferenceDriver driverA;
    ReferenceDriver driverB;
    FakePlugin siteA;
    FakePlugin siteB;

    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    final List<FailoverProgress> progress = Collections.synchronizedList(new ArrayList<>());

    @BeforeEach
    void twoSites() {
        driverA = ReferenceDriver.builder()
                .volume("vol-0")
                .volume("vol-1")
                .volume("vol-2")
                .group("grp-0")
                .requiredSecret("user", "admin")
                .build();
        driverB = ReferenceDriver.builder()
                .volume("b-vol-0")
                .volume("b-vol-1")
                .volume("b-vol-2")
                .group("b-grp-0")
                .requiredSecret("user", "admin")
                .build();
        siteA = startA();
        siteB = grpc.register(FakePlugin.builder()
                .driver(driverB)
                .listen("unix://" + dir.resolve("b.sock"))
                .start());
        ReplicationClient a = grpc.register(client(siteA));
        ReplicationClient b = grpc.register(client(siteB));
        for (ReplicationSource s : List.of(VOL0, VOL1, GRP0)) {
            a.source(s).enable().call(); // primary on A
        }
        for (String id : List.of("b-vol-0", "b-vol-1")) {
            b.volume(id).enable().call();
            b.volume(id).demote().call(); // secondary on B: the failover target
        }
        b.source(B_GRP0).enable().call();
        b.source(B_GRP0).demote().call();
        siteA.clearCalls();
        siteB.clearCalls();
    }

    private FakePlugin startA() {
        return grpc.register(FakePlugin.builder()
                .driver(driverA)
                .listen("unix://" + dir.resolve("a.sock"))
                .start());
    }

    private ReplicationClient client(FakePlugin site) {
        return ReplicationClient.builder()
                .target(site.address())
                .retry(FAST)
                .secrets(SecretsProvider.of(Map.of("user", "admin")))
                .build();
    }

    private Failover.Builder failover(ReplicationSource... sources) {
        ReplicationClient a = client(siteA);
        ReplicationClient b = client(siteB);
        grpc.register(a);
        grpc.register(b);
        return Failover.builder()
                .from(a)
                .to(b)
                .sources(List.of(sources))
                .resolver(RESOLVER)
                .callBudget(Duration.ofSeconds(5))
                .listener(progress::add);
    }

    private static RecordedCall callFor(List<RecordedCall> calls, String id) {
        return calls.stream()
                .filter(c -> c.request().contains("\"" + id + "\""))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void plannedFailoverDemotesOnABeforePromotingOnBAndARerunChangesNothing() {
        FailoverReport report = failover(VOL0, VOL1, GRP0).build().run();

        assertThat(report.allPrimaryOnB()).as(report.toString()).isTrue();
        assertThat(report.sources()).extracting(SourceFailover::source).containsExactly(VOL0, VOL1, GRP0);
        for (SourceFailover s : report.sources()) {
            assertThat(s.siteA()).isEqualTo(SourceFailover.SiteA.DEMOTED);
            assertThat(s.forced()).isFalse();
            assertThat(s.lastSync()).isPresent();
            assertThat(s.calls())
                    .containsExactly(
                            "B GetVolumeReplicationInfo: 9 FAILED_PRECONDITION",
                            "A DemoteVolume: OK",
                            "B PromoteVolume: OK",
                            "B GetVolumeReplicationInfo: OK");
            String destination = s.destination().orElseThrow().source().id();
            assertThat(destination).isEqualTo("b-" + s.source().id());
            // In order: B's promote started only after A's demote was answered.
            RecordedCall demote =
                    callFor(siteA.calls(Rpc.DEMOTE_VOLUME), s.source().id());
            RecordedCall promote = callFor(siteB.calls(Rpc.PROMOTE_VOLUME), destination);
            assertThat(promote.started()).isAfterOrEqualTo(demote.finished());
            assertThat(promote.request()).doesNotContain("force: true");
            assertThat(driverA.state(s.source()).role()).isEqualTo(ReferenceDriver.Role.SECONDARY);
            assertThat(driverB.state(s.destination().orElseThrow().source()).role())
                    .isEqualTo(ReferenceDriver.Role.PRIMARY);
        }
        assertThat(report.sources().get(2).destination().orElseThrow().memberVolumeIds())
                .isEqualTo(MEMBERS);
        assertThat(progress.stream().filter(p -> p.source().equals(VOL0)).map(FailoverProgress::step))
                .containsExactly(
                        FailoverStep.PENDING,
                        FailoverStep.RESOLVING,
                        FailoverStep.CHECKING_B,
                        FailoverStep.DEMOTING_ON_A,
                        FailoverStep.PROMOTING_ON_B,
                        FailoverStep.VERIFYING_ON_B,
                        FailoverStep.PRIMARY_ON_B);

        int effectsA = driverA.effects().size();
        int effectsB = driverB.effects().size();
        FailoverReport again = failover(VOL0, VOL1, GRP0).build().run();
        assertThat(again.allPrimaryOnB()).isTrue();
        assertThat(driverA.effects()).hasSize(effectsA);
        assertThat(driverB.effects()).hasSize(effectsB);
        assertThat(again.sources())
                .allSatisfy(s ->
                        assertThat(s.calls()).containsExactly("B GetVolumeReplicationInfo: OK", "A DemoteVolume: OK"));
        assertThat(siteB.calls(Rpc.PROMOTE_VOLUME))
                .hasSize(3)
                .allSatisfy(c -> assertThat(c.request()).doesNotContain("force: true"));
    }

    @Test
    void siteAKilledBeforeTheFailoverPromotesNothingUnlessForcedAndAForcedRerunForcesNothingAgain() {
        siteA.close();
        int effectsB = driverB.effects().size();
        FailoverReport refused = failover(VOL0, GRP0).build().run();

        assertThat(refused.allPrimaryOnB()).isFalse();
        assertThat(refused.count(FailoverStep.REFUSED)).isEqualTo(2);
        for (SourceFailover s : refused.sources()) {
            assertThat(s.siteA()).isEqualTo(SourceFailover.SiteA.UNREACHABLE);
            assertThat(s.whyNot())
                    .hasValueSatisfying(w -> assertThat(w)
                            // with the plugin gone, waiting for it ends at the call's budget (wait-for-ready)
                            .containsPattern("^site A unreachable \\((14 UNAVAILABLE|4 DEADLINE_EXCEEDED)")
                            .contains("force not allowed: nothing promoted on site B"));
            assertThat(s.calls()).hasSize(2).first().isEqualTo("B GetVolumeReplicationInfo: 9 FAILED_PRECONDITION");
            assertThat(s.calls().get(1)).matches("A DemoteVolume: (14 UNAVAILABLE|4 DEADLINE_EXCEEDED)");
        }
        assertThat(siteB.calls(Rpc.PROMOTE_VOLUME)).isEmpty();
        assertThat(driverB.effects()).hasSize(effectsB);

        FailoverReport forced =
                failover(VOL0, GRP0).forceIfUnreachable(true).build().run();
        assertThat(forced.allPrimaryOnB()).as(forced.toString()).isTrue();
        assertThat(forced.sources()).allSatisfy(s -> assertThat(s.forced()).isTrue());
        assertThat(siteB.calls(Rpc.PROMOTE_VOLUME))
                .hasSize(2)
                .allSatisfy(c -> assertThat(c.request()).contains("force: true"));

        siteB.clearCalls();
        FailoverReport rerun =
                failover(VOL0, GRP0).forceIfUnreachable(true).build().run();
        assertThat(rerun.allPrimaryOnB()).isTrue();
        assertThat(rerun.sources()).allSatisfy(s -> {
            assertThat(s.forced()).isFalse();
            assertThat(s.calls()).hasSize(2).first().isEqualTo("B GetVolumeReplicationInfo: OK");
            assertThat(s.calls().get(1)).matches("A DemoteVolume: (14 UNAVAILABLE|4 DEADLINE_EXCEEDED)");
        });
        assertThat(siteB.calls(Rpc.PROMOTE_VOLUME)).isEmpty();
    }

    @Test
    void siteAKilledDuringTheFailoverThenResumedCompletesWithoutRedoingDoneSources() throws Exception {
        siteB.latency(Rpc.GET_VOLUME_REPLICATION_INFO, Duration.ofMillis(1500)); // time to kill A after vol-0
        CompletableFuture<FailoverReport> running =
                failover(VOL0, VOL1, GRP0).parallelism(1).build().runAsync();
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        while (driverB.effects(ReplicationSource.volume("b-vol-0")).stream()
                .noneMatch(e -> e.change() == ReferenceDriver.Change.PROMOTED)) {
            assertThat(System.nanoTime()).as("vol-0 promoted on B").isLessThan(deadline);
            Thread.sleep(10);
        }
        siteA.close();
        FailoverReport interrupted = running.get(5, TimeUnit.MINUTES);
        assertThat(interrupted.sources())
                .extracting(SourceFailover::step)
                .containsExactly(FailoverStep.PRIMARY_ON_B, FailoverStep.REFUSED, FailoverStep.REFUSED);
        assertThat(driverB.state(ReplicationSource.volume("b-vol-1")).role()).isEqualTo(ReferenceDriver.Role.SECONDARY);

        // A is back (its storage kept its state); the same failover again.
        siteB.latency(Rpc.GET_VOLUME_REPLICATION_INFO, Duration.ZERO);
        siteA = startA();
        List<ReferenceDriver.Effect> vol0Before = driverB.effects(ReplicationSource.volume("b-vol-0"));
        List<ReferenceDriver.Effect> vol0ABefore = driverA.effects(VOL0);
        FailoverReport resumed =
                failover(VOL0, VOL1, GRP0).parallelism(1).build().run();
        assertThat(resumed.allPrimaryOnB()).as(resumed.toString()).isTrue();
        assertThat(resumed.sources()).allSatisfy(s -> assertThat(s.forced()).isFalse());
        assertThat(driverB.effects(ReplicationSource.volume("b-vol-0"))).isEqualTo(vol0Before);
        assertThat(driverA.effects(VOL0)).isEqualTo(vol0ABefore);
        assertThat(driverA.state(VOL1).role()).isEqualTo(ReferenceDriver.Role.SECONDARY);
        assertThat(driverB.state(B_GRP0).role()).isEqualTo(ReferenceDriver.Role.PRIMARY);
    }

    @Test
    void aSourceWithoutDestinationOrNotReplicatedOnAFailsAloneAndNothingIsPromotedForIt() {
        FailoverReport report = failover(VOL0, ReplicationSource.volume("unmapped"), ReplicationSource.volume("vol-2"))
                .build()
                .run();
        assertThat(report.sources())
                .extracting(SourceFailover::step)
                .containsExactly(FailoverStep.PRIMARY_ON_B, FailoverStep.FAILED, FailoverStep.FAILED);
        SourceFailover unmapped = report.sources().get(1);
        assertThat(unmapped.siteA()).isEqualTo(SourceFailover.SiteA.NOT_TRIED);
        assertThat(unmapped.calls()).isEmpty();
        assertThat(unmapped.whyNot())
                .hasValueSatisfying(
                        w -> assertThat(w)
                                .isEqualTo(
                                        "destination not resolved: no destination given for volume unmapped; nothing sent to either site"));
        SourceFailover notReplicated = report.sources().get(2);
        assertThat(notReplicated.siteA()).isEqualTo(SourceFailover.SiteA.FAILED);
        assertThat(notReplicated.whyNot())
                .hasValueSatisfying(w -> assertThat(w)
                        .startsWith("DemoteVolume on site A answered 9 FAILED_PRECONDITION")
                        .endsWith("nothing promoted on site B"));
        assertThat(siteB.calls(Rpc.PROMOTE_VOLUME)).hasSize(1);
    }

    @Test
    void aWrongDestinationIdIsCaughtOnBBeforeADemotes() {
        ReplicationClient a = client(siteA);
        ReplicationClient b = client(siteB);
        grpc.register(a);
        grpc.register(b);
        FailoverReport report = Failover.builder()
                .from(a)
                .to(b)
                .source(VOL0)
                .resolver(DestinationResolver.ids(Map.of("vol-0", "b-typo")))
                .build()
                .run();
        SourceFailover s = report.sources().get(0);
        assertThat(s.step()).isEqualTo(FailoverStep.FAILED);
        assertThat(s.siteA()).isEqualTo(SourceFailover.SiteA.NOT_TRIED);
        // B's 5 alone could be a primary with no sync yet (a run stopped after its promote): A, primary, says not.
        assertThat(s.calls())
                .containsExactly("B GetVolumeReplicationInfo: 5 NOT_FOUND", "A GetVolumeReplicationInfo: OK");
        assertThat(s.whyNot())
                .hasValueSatisfying(w -> assertThat(w)
                        .startsWith("GetVolumeReplicationInfo on site B answered 5 NOT_FOUND")
                        .endsWith("nothing changed on either site"));
        assertThat(siteA.calls()).extracting(RecordedCall::rpc).containsExactly(Rpc.GET_VOLUME_REPLICATION_INFO);
        assertThat(driverA.state(VOL0).role()).isEqualTo(ReferenceDriver.Role.PRIMARY);
    }

    @Test
    void parallelismBoundsTheSourcesInProgress() {
        siteA.latency(Rpc.DEMOTE_VOLUME, Duration.ofMillis(150));
        AtomicInteger inProgress = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        FailoverReport report = failover(VOL0, VOL1, GRP0)
                .parallelism(2)
                .listener(p -> {
                    if (p.step() == FailoverStep.RESOLVING) {
                        most.accumulateAndGet(inProgress.incrementAndGet(), Math::max);
                    } else if (p.step().terminal()) {
                        inProgress.decrementAndGet();
                    }
                })
                .build()
                .run();
        assertThat(report.allPrimaryOnB()).isTrue();
        assertThat(most.get()).isEqualTo(2);
    }
}
