package io.volrep.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.volrep.api.ReplicationException;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.client.ReplicationClient;
import io.volrep.client.RetryPolicy;
import io.volrep.proto.replication.ControllerGrpc;
import io.volrep.proto.replication.EnableVolumeReplicationRequest;
import io.volrep.proto.replication.ReplicationSource;
import io.volrep.spi.DisableRequest;
import io.volrep.spi.EnableRequest;
import io.volrep.spi.InfoRequest;
import io.volrep.spi.PromoteRequest;
import io.volrep.spi.ReplicationDriver;
import io.volrep.spi.ReplicationServer;
import io.volrep.testkit.fake.FaultInjector;
import io.volrep.testsupport.GrpcCleanup;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Scripted calls through a real (in-process) gRPC server and client, each bound to its own registry: the
 * client's figures must match what the plugin saw, and every meter carries only closed-set tags.
 */
class MetricsTest {
    private static final String SECRET = "s3cr3t-do-not-tag";

    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    private final MeterRegistry clientMeters = new SimpleMeterRegistry();
    private final MeterRegistry serverMeters = new SimpleMeterRegistry();
    private final FaultInjector faults = grpc.register(new FaultInjector());
    private final CountDownLatch releaseEnable = new CountDownLatch(1);
    private final CountDownLatch releasePromote = new CountDownLatch(1);
    private final CountDownLatch enableEntered = new CountDownLatch(1);
    private ReplicationClient client;
    private String name;

    /** Enables block on "vol-slow"; info fails unexpectedly; promotes block on "vol-timeout". */
    private final ReplicationDriver driver = new ReplicationDriver() {
        @Override
        public void enable(EnableRequest request) {
            if (request.source().id().equals("vol-slow")) {
                enableEntered.countDown();
                try {
                    releaseEnable.await(5, TimeUnit.MINUTES);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        @Override
        public void disable(DisableRequest request) {}

        @Override
        public void promote(PromoteRequest request) {
            if (request.source().id().equals("vol-timeout")) {
                try {
                    releasePromote.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        @Override
        public ReplicationInfo info(InfoRequest request) {
            throw new IllegalStateException("driver bug");
        }
    };

    @BeforeEach
    void start() {
        name = InProcessServerBuilder.generateName();
        grpc.register(VolrepServerMetrics.of(serverMeters, ObservationRegistry.NOOP)
                .bind(ReplicationServer.builder()
                        .driver(driver)
                        .interceptor(faults)
                        .listen("inprocess:" + name)
                        .gracePeriod(Duration.ZERO))
                .build()
                .start());
        client = grpc.register(VolrepClientMetrics.of(clientMeters, ObservationRegistry.NOOP)
                .bind(ReplicationClient.builder()
                        .target("inprocess:" + name)
                        .retry(RetryPolicy.spec().toBuilder()
                                .initialBackoff(Duration.ofMillis(1))
                                .maxBackoff(Duration.ofMillis(5))
                                .maxAttempts(3)
                                .build()))
                .build());
    }

    /** Before the extension closes the client and the server: a call held in the driver may end. */
    @AfterEach
    void releaseHeldCalls() {
        releaseEnable.countDown();
        releasePromote.countDown();
    }

    @Test
    void retriedCallsShowAttemptsAndRetriesMatchingWhatThePluginSaw() {
        faults.failNext(Rpc.ENABLE_VOLUME_REPLICATION, 2, StatusCode.ABORTED);

        client.volume("vol-1").enable().secrets(Map.of("user", SECRET)).call();

        awaitCalls(Rpc.ENABLE_VOLUME_REPLICATION, 3);
        assertThat(clientMeters
                        .get(VolrepClientMetrics.RETRIES)
                        .tags(RpcTags.STATUS_CODE, "10", RpcTags.METHOD, "EnableVolumeReplication")
                        .counter()
                        .count())
                .isEqualTo(2.0);
        var attempts = clientMeters
                .get(VolrepClientMetrics.ATTEMPTS)
                .tags(RpcTags.STATUS_CODE, "0")
                .summary();
        assertThat(attempts.count()).isEqualTo(1);
        assertThat(attempts.totalAmount()).isEqualTo(3.0);
        var calls = clientMeters
                .get(VolrepClientMetrics.CALLS)
                .tags(
                        RpcTags.SYSTEM,
                        "grpc",
                        RpcTags.SERVICE,
                        "replication.Controller",
                        RpcTags.METHOD,
                        "EnableVolumeReplication",
                        RpcTags.STATUS_CODE,
                        "0",
                        RpcTags.SOURCE_KIND,
                        "volume")
                .timer();
        assertThat(calls.count()).isEqualTo(1);
        // Only the attempt that got through the injected faults reached the runtime.
        assertThat(serverMeters
                        .get(VolrepServerMetrics.CALLS)
                        .tags(
                                RpcTags.METHOD,
                                "EnableVolumeReplication",
                                RpcTags.STATUS_CODE,
                                "0",
                                "volrep.outcome",
                                "ok")
                        .timer()
                        .count())
                .isEqualTo(1);
        assertNoIdOrSecretInTags(clientMeters, "vol-1");
        assertNoIdOrSecretInTags(serverMeters, "vol-1");
        assertThat(gauge(clientMeters, VolrepClientMetrics.ACTIVE)).isZero();
        assertThat(gauge(clientMeters, VolrepClientMetrics.QUEUED)).isZero();
        assertThat(gauge(serverMeters, VolrepServerMetrics.ACTIVE)).isZero();
    }

    @Test
    void identityCallsAreMeteredLikeEveryCallWithoutASourceKind() {
        faults.failNext(Rpc.GET_IDENTITY, 1, StatusCode.UNAVAILABLE);

        assertThat(client.identity().name()).isNotEmpty();
        client.probe();

        awaitCalls(Rpc.GET_IDENTITY, 2);
        assertThat(clientMeters
                        .get(VolrepClientMetrics.RETRIES)
                        .tags(RpcTags.STATUS_CODE, "14", RpcTags.METHOD, "GetIdentity")
                        .counter()
                        .count())
                .isEqualTo(1.0);
        for (String method : new String[] {"GetIdentity", "Probe"}) {
            var calls = clientMeters
                    .get(VolrepClientMetrics.CALLS)
                    .tags(
                            RpcTags.SYSTEM,
                            "grpc",
                            RpcTags.SERVICE,
                            "identity.Identity",
                            RpcTags.METHOD,
                            method,
                            RpcTags.STATUS_CODE,
                            "0",
                            RpcTags.SOURCE_KIND,
                            "none")
                    .timer();
            assertThat(calls.count()).as(method).isEqualTo(1);
        }
        assertThat(clientMeters
                        .get(VolrepClientMetrics.ATTEMPTS)
                        .tags(RpcTags.METHOD, "GetIdentity")
                        .summary()
                        .totalAmount())
                .isEqualTo(2.0);
        assertThat(gauge(clientMeters, VolrepClientMetrics.ACTIVE)).isZero();
        assertThat(gauge(clientMeters, VolrepClientMetrics.QUEUED)).isZero();
    }

    @Test
    void driverFailureIsCountedAsUnknownOnBothSidesAndNotRetried() {
        assertThatThrownBy(() -> client.volume("vol-2").info())
                .isInstanceOfSatisfying(
                        ReplicationException.class, e -> assertThat(e.code()).isEqualTo(StatusCode.UNKNOWN));

        assertThat(serverMeters
                        .get(VolrepServerMetrics.DRIVER_FAILURES)
                        .tags(RpcTags.METHOD, "GetVolumeReplicationInfo")
                        .counter()
                        .count())
                .isEqualTo(1.0);
        assertThat(serverMeters
                        .get(VolrepServerMetrics.CALLS)
                        .tags(RpcTags.STATUS_CODE, "2", "volrep.outcome", "driver_failure")
                        .timer()
                        .count())
                .isEqualTo(1);
        assertThat(clientMeters
                        .get(VolrepClientMetrics.ATTEMPTS)
                        .tags(RpcTags.STATUS_CODE, "2")
                        .summary()
                        .totalAmount())
                .isEqualTo(1.0);
        assertThat(clientMeters.find(VolrepClientMetrics.RETRIES).counters()).isEmpty();
    }

    @Test
    void aTimedOutAttemptAndTheGuardsAbortsAreCountedOnBothSidesAlike() {
        // Attempt 1 times out after 1 s while the driver still works (until released); attempts 2 and 3 find the
        // source busy on the plugin and draw ABORTED, each well within its own second.
        RetryPolicy quick = client.retryPolicy().toBuilder()
                .perAttemptTimeout(Duration.ofSeconds(1))
                .build();
        assertThatThrownBy(() -> client.volume("vol-timeout")
                        .promote()
                        .retryPolicy(quick)
                        .call())
                .isInstanceOfSatisfying(
                        ReplicationException.class, e -> assertThat(e.code()).isEqualTo(StatusCode.ABORTED));

        assertThat(clientMeters
                        .get(VolrepClientMetrics.RETRIES)
                        .tags(RpcTags.STATUS_CODE, "4")
                        .counter()
                        .count())
                .isEqualTo(1.0);
        assertThat(clientMeters
                        .get(VolrepClientMetrics.RETRIES)
                        .tags(RpcTags.STATUS_CODE, "10")
                        .counter()
                        .count())
                .isEqualTo(1.0);
        assertThat(clientMeters
                        .get(VolrepClientMetrics.ATTEMPTS)
                        .tags(RpcTags.STATUS_CODE, "10")
                        .summary()
                        .totalAmount())
                .isEqualTo(3.0);
        assertThat(serverMeters
                        .get(VolrepServerMetrics.ABORTED)
                        .tags(RpcTags.METHOD, "PromoteVolume")
                        .counter()
                        .count())
                .isEqualTo(2.0);
    }

    @Test
    void guardAbortsAndValidationRejectionsAreCountedOnTheServer() throws Exception {
        CompletableFuture<Void> first = client.volume("vol-slow").enable().callAsync();
        assertThat(enableEntered.await(5, TimeUnit.MINUTES)).isTrue();
        assertThat(gauge(serverMeters, VolrepServerMetrics.ACTIVE)).isEqualTo(1.0);
        assertThat(gauge(clientMeters, VolrepClientMetrics.ACTIVE)).isEqualTo(1.0);
        ManagedChannel raw = grpc.register(InProcessChannelBuilder.forName(name).build());
        ControllerGrpc.ControllerBlockingStub stub =
                ControllerGrpc.newBlockingStub(raw).withDeadlineAfter(5, TimeUnit.SECONDS);
        assertThatThrownBy(() -> stub.enableVolumeReplication(enable("vol-slow")))
                .isInstanceOfSatisfying(
                        StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode().value()).isEqualTo(10));
        assertThatThrownBy(() -> stub.enableVolumeReplication(enable("")))
                .isInstanceOfSatisfying(
                        StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode().value()).isEqualTo(3));
        releaseEnable.countDown();
        first.get(5, TimeUnit.MINUTES);

        assertThat(serverMeters
                        .get(VolrepServerMetrics.ABORTED)
                        .tags(RpcTags.METHOD, "EnableVolumeReplication")
                        .counter()
                        .count())
                .isEqualTo(1.0);
        Meter rejection = serverMeters.get(VolrepServerMetrics.REJECTIONS).meter();
        assertThat(rejection.getId().getTag("field")).isEqualTo("replication_source.volume.volume_id");
        assertThat(serverMeters
                        .get(VolrepServerMetrics.CALLS)
                        .tags("volrep.outcome", "invalid_request", RpcTags.STATUS_CODE, "3")
                        .timer()
                        .count())
                .isEqualTo(1);
        assertThat(gauge(serverMeters, VolrepServerMetrics.ACTIVE)).isZero();
    }

    @Test
    void queuedCallsAreMeasuredWhileTheyWaitForTheirSource() throws Exception {
        CompletableFuture<Void> first = client.volume("vol-slow").enable().callAsync();
        assertThat(enableEntered.await(5, TimeUnit.MINUTES)).isTrue();
        CompletableFuture<Void> second = client.volume("vol-slow").disable().callAsync();
        assertThat(gauge(clientMeters, VolrepClientMetrics.QUEUED)).isEqualTo(1.0);
        Thread.sleep(50);
        releaseEnable.countDown();
        first.get(5, TimeUnit.MINUTES);
        second.get(5, TimeUnit.MINUTES);

        assertThat(gauge(clientMeters, VolrepClientMetrics.QUEUED)).isZero();
        assertThat(clientMeters
                        .get(VolrepClientMetrics.WAIT)
                        .tags(RpcTags.METHOD, "DisableVolumeReplication")
                        .timer()
                        .totalTime(TimeUnit.MILLISECONDS))
                .isGreaterThanOrEqualTo(50.0);
    }

    @Test
    void callsRefusedBeforeSendingCountWithZeroAttempts() {
        assertThatThrownBy(() -> client.volume("vol-3")
                        .enable()
                        .parameter("k", "v".repeat(5000))
                        .call())
                .isInstanceOfSatisfying(
                        ReplicationException.class, e -> assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT));

        var attempts = clientMeters
                .get(VolrepClientMetrics.ATTEMPTS)
                .tags(RpcTags.STATUS_CODE, "3")
                .summary();
        assertThat(attempts.count()).isEqualTo(1);
        assertThat(attempts.totalAmount()).isZero();
        assertThat(gauge(clientMeters, VolrepClientMetrics.QUEUED)).isZero();
    }

    private void awaitCalls(Rpc rpc, int expected) {
        long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        while (faults.calls(rpc).size() < expected && System.nanoTime() < end) {
            Thread.onSpinWait();
        }
        assertThat(faults.calls(rpc)).hasSize(expected);
    }

    /** A raw EnableVolumeReplication of a volume, past the client's own checks. */
    private static EnableVolumeReplicationRequest enable(String volumeId) {
        return EnableVolumeReplicationRequest.newBuilder()
                .setReplicationSource(ReplicationSource.newBuilder()
                        .setVolume(ReplicationSource.VolumeSource.newBuilder().setVolumeId(volumeId)))
                .build();
    }

    private static double gauge(MeterRegistry registry, String name) {
        return registry.get(name).gauge().value();
    }

    private static void assertNoIdOrSecretInTags(MeterRegistry registry, String id) {
        for (Meter meter : registry.getMeters()) {
            meter.getId().getTags().forEach(tag -> {
                assertThat(tag.getValue()).doesNotContain(id).doesNotContain(SECRET);
            });
        }
    }
}
