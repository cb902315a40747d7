package io.volrep.client.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.client.ReplicationClient;
import io.volrep.client.RetryPolicy;
import io.volrep.client.SecretsProvider;
import io.volrep.testkit.fake.FakePlugin;
import io.volrep.testkit.fake.RecordedCall;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testsupport.GrpcCleanup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Desired-state reconciliation against the reference plugin, served by the fault-injecting fake over a unix socket. */
class ReconcilerTest {
    static final RetryPolicy FAST = RetryPolicy.spec().toBuilder()
            .initialBackoff(Duration.ofMillis(20))
            .multiplier(2)
            .maxBackoff(Duration.ofMillis(100))
            .jitter(RetryPolicy.Jitter.NONE)
            .maxAttempts(5)
            .build();

    @TempDir
    Path dir;

    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    FakePlugin plugin;
    ReplicationClient client;
    ReferenceDriver driver;

    void start(int resyncCallsUntilReady) {
        driver = ReferenceDriver.builder()
                .volumes(2)
                .groups(1)
                .requiredSecret("user", "admin")
                .resyncCallsUntilReady(resyncCallsUntilReady)
                .build();
        plugin = grpc.register(FakePlugin.builder()
                .driver(driver)
                .listen("unix://" + dir.resolve("p.sock"))
                .start());
        client = grpc.register(ReplicationClient.builder()
                .target(plugin.address())
                .retry(FAST)
                .secrets(SecretsProvider.of(Map.of("user", "admin")))
                .build());
    }

    private List<Rpc> rpcs() {
        return plugin.calls().stream().map(RecordedCall::rpc).toList();
    }

    @Test
    void primaryFromDisabledEnablesPromotesAndReadsTheFiguresThenARerunChangesNothing() {
        start(2);
        ReconcileResult r = Reconciler.of(client.volume("vol-0")).reconcile(DesiredState.PRIMARY);

        assertThat(r.done()).as(r.summary()).isTrue();
        assertThat(r.reached()).contains(DesiredState.PRIMARY);
        assertThat(r.whyNot()).isEmpty();
        assertThat(r.forced()).isFalse();
        assertThat(r.lastSync())
                .hasValueSatisfying(info -> assertThat(info.lastSyncBytes()).isPresent());
        assertThat(r.calls())
                .containsExactly(
                        "GetVolumeReplicationInfo: 9 FAILED_PRECONDITION",
                        "EnableVolumeReplication: OK",
                        "PromoteVolume: OK",
                        "GetVolumeReplicationInfo: OK");
        assertThat(r.condition(Condition.Type.COMPLETED).status()).isEqualTo(Condition.Status.TRUE);
        assertThat(r.condition(Condition.Type.DEGRADED).status()).isEqualTo(Condition.Status.FALSE);
        assertThat(r.condition(Condition.Type.RESYNCING).status()).isEqualTo(Condition.Status.FALSE);
        assertThat(r.condition(Condition.Type.REPLICATING).status()).isEqualTo(Condition.Status.TRUE);
        int effects = driver.effects().size();

        plugin.clearCalls();
        ReconcileResult again = Reconciler.of(client.volume("vol-0")).reconcile(DesiredState.PRIMARY);
        assertThat(again.done()).isTrue();
        assertThat(again.calls()).containsExactly("GetVolumeReplicationInfo: OK");
        assertThat(rpcs()).containsExactly(Rpc.GET_VOLUME_REPLICATION_INFO);
        assertThat(driver.effects()).hasSize(effects);
    }

    @Test
    void secondaryIsIdempotentFromPrimaryAndFromSecondary() {
        start(2);
        Reconciler.of(client.volume("vol-0")).reconcile(DesiredState.PRIMARY);
        ReconcileResult r = Reconciler.of(client.volume("vol-0")).reconcile(DesiredState.SECONDARY);
        assertThat(r.done()).isTrue();
        assertThat(r.calls()).containsExactly("EnableVolumeReplication: OK", "DemoteVolume: OK");
        assertThat(driver.state(ReplicationSource.volume("vol-0")).role()).isEqualTo(ReferenceDriver.Role.SECONDARY);
        int effects = driver.effects().size();

        assertThat(Reconciler.of(client.volume("vol-0"))
                        .reconcile(DesiredState.SECONDARY)
                        .done())
                .isTrue();
        assertThat(driver.effects()).hasSize(effects);
    }

    @Test
    void resyncPollsWithCappedBackoffUntilReady() {
        start(4);
        ReconcileResult r = Reconciler.of(client.volume("vol-1")).reconcile(DesiredState.RESYNC);
        assertThat(r.done()).as(r.summary()).isTrue();
        assertThat(r.reached()).contains(DesiredState.RESYNC);
        assertThat(r.condition(Condition.Type.RESYNCING).status()).isEqualTo(Condition.Status.FALSE);
        List<RecordedCall> resyncs = plugin.calls(Rpc.RESYNC_VOLUME);
        assertThat(resyncs).hasSize(4).allSatisfy(c -> assertThat(c.request()).contains("force: true"));
        // Back-off between polls: 20, 40, 80 ms (capped at 100): each gap at least its delay.
        assertThat(Duration.between(resyncs.get(2).finished(), resyncs.get(3).started()))
                .isGreaterThanOrEqualTo(Duration.ofMillis(80));
        assertThat(driver.state(ReplicationSource.volume("vol-1")).role()).isEqualTo(ReferenceDriver.Role.SECONDARY);
    }

    @Test
    void resyncNotReadyWithinTheDeadlineIsDegradedAndResyncing() {
        start(1000);
        ReconcileResult r = new Reconciler(
                        client.volume("vol-1"),
                        ReconcileOptions.builder()
                                .resyncTimeout(Duration.ofMillis(400))
                                .build())
                .reconcile(DesiredState.RESYNC);
        assertThat(r.done()).isFalse();
        assertThat(r.reached()).contains(DesiredState.SECONDARY);
        assertThat(r.whyNot())
                .hasValueSatisfying(
                        w -> assertThat(w).contains("4 DEADLINE_EXCEEDED").contains("not ready within PT0.4S"));
        assertThat(r.condition(Condition.Type.RESYNCING).status()).isEqualTo(Condition.Status.TRUE);
        assertThat(r.condition(Condition.Type.DEGRADED).status()).isEqualTo(Condition.Status.TRUE);
        assertThat(r.condition(Condition.Type.COMPLETED).status()).isEqualTo(Condition.Status.FALSE);
        // Capped: a 100 ms cap within 400 ms is at most 6 polls, never a poll storm.
        assertThat(plugin.calls(Rpc.RESYNC_VOLUME).size()).isBetween(3, 7);
    }

    @Test
    void refusedPromoteIsForcedOnlyWhenAllowed() {
        start(2);
        Reconciler.of(client.volume("vol-0")).reconcile(DesiredState.SECONDARY); // a failover target: promote is needed
        plugin.clearCalls();
        plugin.failNext(Rpc.PROMOTE_VOLUME, 1, StatusCode.FAILED_PRECONDITION);
        ReconcileResult refused = Reconciler.of(client.volume("vol-0")).reconcile(DesiredState.PRIMARY);
        assertThat(refused.done()).isFalse();
        assertThat(refused.forced()).isFalse();
        assertThat(refused.whyNot())
                .hasValueSatisfying(w -> assertThat(w)
                        .startsWith("PromoteVolume answered 9 FAILED_PRECONDITION")
                        .endsWith("force was not allowed (it may leave two primaries)"));
        assertThat(refused.condition(Condition.Type.COMPLETED).reason()).isEqualTo("PromoteRefused");
        assertThat(plugin.calls(Rpc.PROMOTE_VOLUME)).hasSize(1);

        plugin.clearCalls();
        plugin.failNext(Rpc.PROMOTE_VOLUME, 1, StatusCode.FAILED_PRECONDITION);
        ReconcileResult forced = new Reconciler(
                        client.volume("vol-0"),
                        ReconcileOptions.builder().allowForcePromote(true).build())
                .reconcile(DesiredState.PRIMARY);
        assertThat(forced.done()).as(forced.summary() + forced.calls()).isTrue();
        assertThat(forced.forced()).isTrue();
        assertThat(forced.calls()).contains("PromoteVolume: 9 FAILED_PRECONDITION", "PromoteVolume(force): OK");
        List<RecordedCall> promotes = plugin.calls(Rpc.PROMOTE_VOLUME);
        assertThat(promotes).hasSize(2);
        assertThat(promotes.get(0).request()).doesNotContain("force: true");
        assertThat(promotes.get(1).request()).contains("force: true");
        assertThat(forced.condition(Condition.Type.COMPLETED).reason()).isEqualTo("ForcePromoted");
    }

    @Test
    void groupAsyncWithEnableParametersAndHealthReader() throws Exception {
        start(2);
        ReconcileOptions opts = ReconcileOptions.builder()
                .parameter("schedulingInterval", "1m")
                .replicating(info -> Condition.Status.TRUE)
                .build();
        ReconcileResult r = new Reconciler(client.volumeGroup("grp-0"), opts)
                .reconcileAsync(DesiredState.PRIMARY)
                .get(5, TimeUnit.MINUTES);
        assertThat(r.done()).isTrue();
        assertThat(r.source()).isEqualTo(ReplicationSource.volumeGroup("grp-0"));
        assertThat(r.condition(Condition.Type.REPLICATING).status()).isEqualTo(Condition.Status.TRUE);
        assertThat(driver.state(ReplicationSource.volumeGroup("grp-0")).parameters())
                .containsEntry("schedulingInterval", "1m");
    }

    @Test
    void disabledCountsANonexistentSourceAsDisabled() {
        start(2);
        Reconciler.of(client.volume("vol-0")).reconcile(DesiredState.PRIMARY);
        ReconcileResult r = Reconciler.of(client.volume("vol-0")).reconcile(DesiredState.DISABLED);
        assertThat(r.done()).isTrue();
        assertThat(r.condition(Condition.Type.REPLICATING).status()).isEqualTo(Condition.Status.FALSE);
        assertThat(driver.state(ReplicationSource.volume("vol-0")).enabled()).isFalse();

        ReconcileResult missing = Reconciler.of(client.volume("no-such")).reconcile(DesiredState.DISABLED);
        assertThat(missing.done()).isTrue();
        assertThat(missing.calls()).containsExactly("DisableVolumeReplication: 5 NOT_FOUND");
        assertThat(missing.condition(Condition.Type.COMPLETED).reason()).isEqualTo("SourceNotFound");
    }

    @Test
    void aTerminalCodeEndsTheReconciliationWithWhyNotAndNoException() {
        start(2);
        ReconcileResult r = Reconciler.of(client.volume("no-such")).reconcile(DesiredState.SECONDARY);
        assertThat(r.done()).isFalse();
        assertThat(r.reached()).isEmpty();
        assertThat(r.failure()).hasValueSatisfying(e -> assertThat(e.code()).isEqualTo(StatusCode.NOT_FOUND));
        assertThat(r.whyNot())
                .hasValueSatisfying(w -> assertThat(w).startsWith("EnableVolumeReplication answered 5 NOT_FOUND"));
        assertThat(r.condition(Condition.Type.DEGRADED).status()).isEqualTo(Condition.Status.UNKNOWN);
        assertThat(rpcs()).containsExactly(Rpc.ENABLE_VOLUME_REPLICATION);
    }
}
