package io.volrep.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Timestamp;
import io.grpc.Status;
import io.volrep.api.CsiLimits;
import io.volrep.api.DeadlineExceededException;
import io.volrep.api.InvalidArgumentException;
import io.volrep.api.OperationPendingException;
import io.volrep.api.ProtocolViolationException;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.client.ScriptedPlugin.Outcome;
import io.volrep.proto.replication.GetVolumeReplicationInfoResponse;
import io.volrep.proto.replication.ResyncVolumeResponse;
import io.volrep.testsupport.GrpcCleanup;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class ClientBehaviourTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    ScriptedPlugin plugin;
    ReplicationClient client;

    ReplicationClient start(ReplicationClient.Builder builder) throws Exception {
        plugin = grpc.register(ScriptedPlugin.inProcess());
        client = grpc.register(
                builder.target(plugin.target()).retry(RetryBehaviourTest.FAST).build());
        return client;
    }

    @Test
    void invalidRequestsFailBeforeAnyCall() throws Exception {
        start(ReplicationClient.builder());
        assertThatThrownBy(() -> client.volume(""))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("replication_source.volume.volume_id");
        assertThatThrownBy(() -> client.volumeGroup(null)).isInstanceOf(InvalidArgumentException.class);
        assertThatThrownBy(() -> client.volumeSnapshot("x".repeat(129)))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageContaining("128");

        Map<String, String> big = new HashMap<>();
        for (int i = 0; i < 100; i++) {
            big.put("key-" + i, "v".repeat(40));
        }
        assertThatThrownBy(() -> client.volume("vol-1").enable().parameters(big).call())
                .isInstanceOfSatisfying(InvalidArgumentException.class, e -> {
                    assertThat(e.attempts()).isZero();
                    assertThat(e.rpc()).isEqualTo(Rpc.ENABLE_VOLUME_REPLICATION);
                    assertThat(e.getMessage())
                            .startsWith("parameters:")
                            .contains(String.valueOf(CsiLimits.MAX_MAP_BYTES));
                });
        assertThatThrownBy(() -> client.volume("vol-1").promote().secrets(big).call())
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageStartingWith("secrets:")
                .hasMessageNotContaining("vvvv");
        assertThatThrownBy(() -> client.volume("vol-1")
                        .infoCall()
                        .replicationId("r".repeat(200))
                        .call())
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageStartingWith("replication_id:");
        assertThatThrownBy(() -> client.volume("vol-1").enable().parameter("k", null))
                .isInstanceOf(InvalidArgumentException.class);
        // The provider's secrets are checked too.
        client.close();
        client = grpc.register(ReplicationClient.builder()
                .target(plugin.target())
                .secrets(SecretsProvider.of(big))
                .build());
        assertThatThrownBy(() -> client.volume("vol-1").demote().call())
                .isInstanceOfSatisfying(
                        InvalidArgumentException.class,
                        e -> assertThat(e.attempts()).isZero());
        assertThat(plugin.calls).isEmpty();
    }

    @Test
    void infoIsTypedAndProtocolViolationsAreNotDefaulted() throws Exception {
        start(ReplicationClient.builder());
        ReplicationInfo info = client.volume("vol-1").info();
        assertThat(info.lastSyncTime()).isEqualTo(Instant.ofEpochSecond(1_700_000_000));
        assertThat(info.lastSyncBytes()).hasValue(4096);
        assertThat(info.lastSyncDuration()).isEmpty();

        plugin.script(
                Rpc.GET_VOLUME_REPLICATION_INFO,
                Outcome.respond(GetVolumeReplicationInfoResponse.getDefaultInstance()),
                Outcome.respond(GetVolumeReplicationInfoResponse.newBuilder()
                        .setLastSyncTime(Timestamp.newBuilder().setSeconds(5))
                        .setLastSyncBytes(-1)
                        .build()));
        assertThatThrownBy(() -> client.volume("vol-1").info())
                .isInstanceOf(ProtocolViolationException.class)
                .hasMessageContaining("last_sync_time");
        assertThatThrownBy(() -> client.volume("vol-1").infoAsync().join())
                .hasCauseInstanceOf(ProtocolViolationException.class)
                .hasMessageContaining("last_sync_bytes");
        // Not retried: one call each.
        assertThat(plugin.calls(Rpc.GET_VOLUME_REPLICATION_INFO)).hasSize(3);
    }

    @Test
    void timestampsAndDurationsOutOfRangeAreProtocolViolations() throws Exception {
        // Issue 13 point 8: never rolled into another instant, never an exception of the JDK's.
        start(ReplicationClient.builder());
        Timestamp ok = Timestamp.newBuilder().setSeconds(5).build();
        plugin.script(
                Rpc.GET_VOLUME_REPLICATION_INFO,
                Outcome.respond(GetVolumeReplicationInfoResponse.newBuilder()
                        .setLastSyncTime(Timestamp.newBuilder().setSeconds(5).setNanos(1_000_000_000))
                        .build()),
                Outcome.respond(GetVolumeReplicationInfoResponse.newBuilder()
                        .setLastSyncTime(Timestamp.newBuilder().setSeconds(5).setNanos(-1))
                        .build()),
                Outcome.respond(GetVolumeReplicationInfoResponse.newBuilder()
                        .setLastSyncTime(Timestamp.newBuilder().setSeconds(253_402_300_800L))
                        .build()),
                Outcome.respond(GetVolumeReplicationInfoResponse.newBuilder()
                        .setLastSyncTime(Timestamp.newBuilder().setSeconds(Long.MIN_VALUE))
                        .build()),
                Outcome.respond(GetVolumeReplicationInfoResponse.newBuilder()
                        .setLastSyncTime(ok)
                        .setLastSyncDuration(com.google.protobuf.Duration.newBuilder()
                                .setSeconds(1)
                                .setNanos(1_000_000_000))
                        .build()),
                Outcome.respond(GetVolumeReplicationInfoResponse.newBuilder()
                        .setLastSyncTime(ok)
                        .setLastSyncDuration(
                                com.google.protobuf.Duration.newBuilder().setSeconds(315_576_000_001L))
                        .build()),
                Outcome.respond(GetVolumeReplicationInfoResponse.newBuilder()
                        .setLastSyncTime(ok)
                        .setLastSyncDuration(com.google.protobuf.Duration.newBuilder()
                                .setSeconds(1)
                                .setNanos(-5))
                        .build()));
        String[] expected = {
            "last_sync_time.nanos",
            "last_sync_time.nanos",
            "last_sync_time.seconds",
            "last_sync_time.seconds",
            "last_sync_duration.nanos",
            "last_sync_duration.seconds",
            "last_sync_duration"
        };
        for (String field : expected) {
            assertThatThrownBy(() -> client.volume("vol-1").info())
                    .isInstanceOfSatisfying(
                            ProtocolViolationException.class,
                            e -> assertThat(e.field()).contains(field))
                    .hasMessageStartingWith(field + ": ");
        }
        assertThat(plugin.calls(Rpc.GET_VOLUME_REPLICATION_INFO)).hasSize(expected.length);
    }

    @Test
    void requestsCarrySourceKindParametersAndReplicationId() throws Exception {
        start(ReplicationClient.builder().secrets(SecretsProvider.of(Map.of("user", "admin"))));
        client.volumeGroup("grp-1")
                .enable()
                .parameter("mode", "snapshot")
                .replicationId("rid-9")
                .call();
        client.volumeSnapshot("snap-1").promote().force().call();
        assertThat(plugin.calls).extracting(ScriptedPlugin.Call::sourceId).containsExactly("grp-1", "snap-1");
        assertThat(plugin.calls.get(0).replicationId()).isEqualTo("rid-9");
        assertThat(plugin.calls.get(0).secrets()).containsEntry("user", "admin");
    }

    @Test
    void anObserverThatThrowsIsIgnoredAndTheOthersStillSeeTheCall() throws Exception {
        CallObservation throwing = new CallObservation() {
            @Override
            public void onStarted(Duration waited) {
                throw new IllegalStateException("onStarted");
            }

            @Override
            public void onAttempt(AttemptEvent event) {
                throw new IllegalStateException("onAttempt");
            }

            @Override
            public Scope openScope() {
                return () -> {
                    throw new IllegalStateException("Scope.close");
                };
            }

            @Override
            public void onFinished(StatusCode code, int attempts) {
                throw new IllegalStateException("onFinished");
            }
        };
        List<String> seen = new CopyOnWriteArrayList<>();
        start(ReplicationClient.builder()
                .observer((rpc, source) -> throwing)
                .observer((rpc, source) -> new CallObservation() {
                    @Override
                    public void onStarted(Duration waited) {
                        seen.add("started");
                    }

                    @Override
                    public void onAttempt(AttemptEvent event) {
                        seen.add("attempt " + event.code());
                    }

                    @Override
                    public Scope openScope() {
                        return () -> seen.add("scope closed");
                    }

                    @Override
                    public void onFinished(StatusCode code, int attempts) {
                        seen.add("finished " + code + " " + attempts);
                    }
                }));
        client.volume("vol-1").enable().callAsync().get(5, TimeUnit.MINUTES);
        assertThat(seen).containsExactly("started", "scope closed", "attempt OK", "finished OK 1");
    }

    @Test
    void awaitReadyPollsUntilReadyWithGrowingDelays() throws Exception {
        start(ReplicationClient.builder());
        ResyncVolumeResponse notReady =
                ResyncVolumeResponse.newBuilder().setReady(false).build();
        plugin.script(Rpc.RESYNC_VOLUME, Outcome.respond(notReady), Outcome.respond(notReady));
        ResyncStatus status = client.volume("vol-1")
                .resync()
                .awaitReady(Duration.ofSeconds(10))
                .get(5, TimeUnit.MINUTES);
        assertThat(status.ready()).isTrue();
        var calls = plugin.calls(Rpc.RESYNC_VOLUME);
        assertThat(calls).hasSize(3);
        assertThat((calls.get(1).nanoTime() - calls.get(0).nanoTime()) / 1_000_000)
                .isGreaterThanOrEqualTo(20);
        assertThat((calls.get(2).nanoTime() - calls.get(1).nanoTime()) / 1_000_000)
                .isGreaterThanOrEqualTo(40);

        plugin.byDefault(Rpc.RESYNC_VOLUME, r -> Outcome.respond(notReady));
        assertThatThrownBy(() -> client.volume("vol-1").resync().awaitReadyBlocking(Duration.ofMillis(150)))
                .isInstanceOf(DeadlineExceededException.class)
                .hasMessageContaining("not ready within PT0.15S");
    }

    @Test
    void singleFlightRunsOneCallPerSourceInSubmissionOrder() throws Exception {
        start(ReplicationClient.builder());
        plugin.byDefault(Rpc.PROMOTE_VOLUME, r -> Outcome.ok().delayed(30));
        List<CompletableFuture<Void>> futures = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            futures.add(
                    client.volume("vol-1").promote().replicationId("call-" + i).callAsync());
            futures.add(
                    client.volume("vol-2").promote().replicationId("call-" + i).callAsync());
        }
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES);
        assertThat(plugin.maxInFlightSameSource).hasValue(1);
        assertThat(plugin.calls(Rpc.PROMOTE_VOLUME).stream()
                        .filter(c -> c.sourceId().equals("vol-1"))
                        .map(ScriptedPlugin.Call::replicationId))
                .containsExactly("call-0", "call-1", "call-2", "call-3", "call-4", "call-5");
        // The two sources ran side by side: 12 calls of 30 ms took well under 12 * 30 ms... at least the
        // plugin saw both sources in flight at once.
        assertThat(client.activeSources()).isZero();
    }

    @Test
    void theInFlightSlotCoversTheWholeRetrySequence() throws Exception {
        start(ReplicationClient.builder());
        plugin.script(Rpc.PROMOTE_VOLUME, Outcome.fail(Status.Code.ABORTED), Outcome.fail(Status.Code.ABORTED));
        CompletableFuture<Void> first =
                client.volume("vol-1").promote().replicationId("first").callAsync();
        CompletableFuture<Void> second =
                client.volume("vol-1").promote().replicationId("second").callAsync();
        CompletableFuture.allOf(first, second).get(5, TimeUnit.MINUTES);
        assertThat(plugin.calls(Rpc.PROMOTE_VOLUME))
                .extracting(ScriptedPlugin.Call::replicationId)
                .containsExactly("first", "first", "first", "second");
    }

    @Test
    void queueOverflowFailsFastAndIdleSourcesAreForgotten() throws Exception {
        start(ReplicationClient.builder().maxQueuedPerSource(2));
        plugin.script(Rpc.DEMOTE_VOLUME, Outcome.hangUntilCancelled());
        CompletableFuture<Void> inFlight = client.volume("vol-1").demote().callAsync();
        CompletableFuture<Void> queued1 = client.volume("vol-1").demote().callAsync();
        CompletableFuture<Void> queued2 = client.volume("vol-1").demote().callAsync();
        CompletableFuture<Void> overflow = client.volume("vol-1").demote().callAsync();
        assertThat(overflow).isCompletedExceptionally();
        assertThatThrownBy(overflow::join)
                .hasCauseInstanceOf(CallQueueFullException.class)
                .cause()
                .isInstanceOf(OperationPendingException.class)
                .hasMessageContaining("single-flight queue is full");
        // A different source is not affected. (Its call waits until vol-1's reached the plugin: on a loaded machine
        // it could overtake it and take the scripted hang.)
        long until = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        while (plugin.calls(Rpc.DEMOTE_VOLUME).isEmpty() && System.nanoTime() < until) {
            Thread.sleep(5);
        }
        assertThat(plugin.calls(Rpc.DEMOTE_VOLUME)).as("vol-1's call in flight").hasSize(1);
        client.volume("vol-2").demote().call();

        inFlight.cancel(true);
        CompletableFuture.allOf(queued1, queued2).get(5, TimeUnit.MINUTES);
        assertThat(plugin.calls(Rpc.DEMOTE_VOLUME)).hasSize(4);
        for (int i = 0; i < 500; i++) {
            client.volume("many-" + i).demote().call();
        }
        assertThat(client.activeSources()).isZero();
    }

    @Test
    void cancellingCancelsTheRpcInFlight() throws Exception {
        start(ReplicationClient.builder());
        plugin.script(Rpc.ENABLE_VOLUME_REPLICATION, Outcome.hangUntilCancelled());
        CompletableFuture<Void> call = client.volume("vol-1").enable().callAsync();
        awaitCalls(Rpc.ENABLE_VOLUME_REPLICATION, 1);
        assertThat(call.cancel(true)).isTrue();
        assertThat(plugin.cancelled.await(5, TimeUnit.MINUTES))
                .as("the plugin saw the cancellation")
                .isTrue();
        Thread.sleep(200);
        assertThat(plugin.calls(Rpc.ENABLE_VOLUME_REPLICATION)).hasSize(1);
        assertThat(client.activeSources()).isZero();
    }

    @Test
    void cancellingDuringBackOffStopsFurtherAttempts() throws Exception {
        start(ReplicationClient.builder());
        plugin.byDefault(Rpc.ENABLE_VOLUME_REPLICATION, r -> Outcome.fail(Status.Code.ABORTED));
        RetryPolicy slow = RetryBehaviourTest.FAST.toBuilder()
                .initialBackoff(Duration.ofMillis(300))
                .maxBackoff(Duration.ofSeconds(1))
                .build();
        CompletableFuture<Void> call =
                client.volume("vol-1").enable().retryPolicy(slow).callAsync();
        awaitCalls(Rpc.ENABLE_VOLUME_REPLICATION, 1);
        call.cancel(true);
        Thread.sleep(700);
        assertThat(plugin.calls(Rpc.ENABLE_VOLUME_REPLICATION)).hasSize(1);
        // The queue moves on at once.
        client.volume("vol-1").info();
    }

    @Test
    void awaitReadyCanBeCancelled() throws Exception {
        start(ReplicationClient.builder());
        plugin.byDefault(
                Rpc.RESYNC_VOLUME,
                r -> Outcome.respond(
                        ResyncVolumeResponse.newBuilder().setReady(false).build()));
        CompletableFuture<ResyncStatus> ready = client.volume("vol-1")
                .resync()
                .retryPolicy(RetryBehaviourTest.FAST.toBuilder()
                        .initialBackoff(Duration.ofMillis(200))
                        .build())
                .awaitReady(Duration.ofMinutes(1));
        awaitCalls(Rpc.RESYNC_VOLUME, 1);
        ready.cancel(true);
        Thread.sleep(500);
        assertThat(plugin.calls(Rpc.RESYNC_VOLUME)).hasSize(1);
    }

    private void awaitCalls(Rpc rpc, int n) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        while (plugin.calls(rpc).size() < n && System.nanoTime() < end) {
            Thread.sleep(5);
        }
        assertThat(plugin.calls(rpc)).hasSizeGreaterThanOrEqualTo(n);
    }
}
