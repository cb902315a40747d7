package io.volrep.spi;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.volrep.api.Rpc;
import io.volrep.proto.identity.IdentityGrpc;
import io.volrep.proto.identity.ProbeRequest;
import io.volrep.proto.replication.ControllerGrpc;
import io.volrep.spi.internal.runtime.SourceGuard;
import io.volrep.testsupport.CapturedStderr;
import io.volrep.testsupport.GrpcCleanup;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The per-source guard: one call in flight per source, ABORTED for the second, nothing kept when idle. */
class ConcurrencyTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    private final ExecutorService pool = Executors.newCachedThreadPool();
    private ScriptedDriver driver;
    private InProcessHarness harness;
    private final CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);

    @BeforeEach
    void start() {
        driver = new ScriptedDriver();
        harness = grpc.register(new InProcessHarness(driver));
    }

    @AfterEach
    void stop() {
        release.countDown(); // before GrpcCleanup closes the server: no call is left waiting on the driver
        pool.shutdownNow();
    }

    private CompletableFuture<Status> async(Rpc rpc, WireCalls.Fields fields) {
        return CompletableFuture.supplyAsync(
                () -> InProcessHarness.statusOf(() -> WireCalls.call(harness.stub, rpc, fields)), pool);
    }

    private void blockFirstCall() {
        AtomicInteger calls = new AtomicInteger();
        driver.onCall = () -> {
            if (calls.getAndIncrement() == 0) {
                entered.countDown();
                try {
                    release.await(5, TimeUnit.MINUTES);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
    }

    @Test
    void aSecondCallForTheSameSourceIsAbortedAtOnce() throws Exception {
        blockFirstCall();
        CompletableFuture<Status> first = async(Rpc.PROMOTE_VOLUME, WireCalls.Fields.volume("vol-1"));
        assertThat(entered.await(5, TimeUnit.MINUTES)).isTrue();
        assertThat(harness.server.busySources()).isEqualTo(1);

        // Any RPC for the same source, including the deprecated volume_id spelling of it.
        for (Rpc rpc : List.of(Rpc.PROMOTE_VOLUME, Rpc.DEMOTE_VOLUME, Rpc.GET_VOLUME_REPLICATION_INFO)) {
            Status second = InProcessHarness.statusOf(
                    () -> WireCalls.call(harness.stub, rpc, WireCalls.Fields.volume("vol-1")));
            assertThat(second.getCode()).isEqualTo(Status.Code.ABORTED);
            assertThat(second.getDescription()).isEqualTo("operation pending for volume vol-1");
        }
        assertThat(InProcessHarness.statusOf(() -> WireCalls.call(
                                harness.stub, Rpc.DEMOTE_VOLUME, new WireCalls.Fields("vol-1", null, null, null, null)))
                        .getCode())
                .isEqualTo(Status.Code.ABORTED);
        // Other sources are not held up, nor is a group with the same id.
        assertThat(InProcessHarness.statusOf(
                                () -> WireCalls.call(harness.stub, Rpc.DEMOTE_VOLUME, WireCalls.Fields.volume("vol-2")))
                        .getCode())
                .isEqualTo(Status.Code.OK);
        assertThat(InProcessHarness.statusOf(
                                () -> WireCalls.call(harness.stub, Rpc.DEMOTE_VOLUME, WireCalls.Fields.group("vol-1")))
                        .getCode())
                .isEqualTo(Status.Code.OK);

        release.countDown();
        assertThat(first.get(5, TimeUnit.MINUTES).getCode()).isEqualTo(Status.Code.OK);
        assertThat(harness.server.busySources()).isZero();
        // Once the first is done, the source is free again.
        assertThat(InProcessHarness.statusOf(
                                () -> WireCalls.call(harness.stub, Rpc.DEMOTE_VOLUME, WireCalls.Fields.volume("vol-1")))
                        .getCode())
                .isEqualTo(Status.Code.OK);
    }

    /**
     * Two calls in flight, one source busy: an Identity probe (never guarded) waits on the readiness check while a
     * promote holds vol-1. The shutdown log counts calls, busySources() counts sources.
     */
    @Test
    void theShutdownLogCountsCallsAndBusySourcesCountsSources() throws Exception {
        blockFirstCall();
        CountDownLatch probing = new CountDownLatch(1);
        String name = InProcessServerBuilder.generateName();
        ReplicationServer server = grpc.register(ReplicationServer.builder()
                .driver(driver)
                .identity("test.volrep.io", "1.0")
                .readiness(() -> {
                    probing.countDown();
                    try {
                        return release.await(5, TimeUnit.MINUTES);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return false;
                    }
                })
                .listen("inprocess:" + name)
                .build()
                .start());
        ManagedChannel channel =
                grpc.register(InProcessChannelBuilder.forName(name).build());
        var controller = ControllerGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
        CompletableFuture<Status> promote = CompletableFuture.supplyAsync(
                () -> InProcessHarness.statusOf(
                        () -> WireCalls.call(controller, Rpc.PROMOTE_VOLUME, WireCalls.Fields.volume("vol-1"))),
                pool);
        CompletableFuture<Boolean> probe = CompletableFuture.supplyAsync(
                () -> IdentityGrpc.newBlockingStub(channel)
                        .withDeadlineAfter(30, TimeUnit.SECONDS)
                        .probe(ProbeRequest.getDefaultInstance())
                        .getReady()
                        .getValue(),
                pool);
        assertThat(entered.await(5, TimeUnit.MINUTES)).isTrue();
        assertThat(probing.await(5, TimeUnit.MINUTES)).isTrue();
        assertThat(server.busySources()).isEqualTo(1);
        CompletableFuture.runAsync(
                () -> {
                    try {
                        Thread.sleep(300);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    release.countDown();
                },
                pool);

        String log = CapturedStderr.during(server::close);

        assertThat(log).contains("shutting down (2 call(s) in flight, grace period PT10S)");
        // Both were let finish within the grace period.
        assertThat(promote.get(5, TimeUnit.MINUTES).getCode()).isEqualTo(Status.Code.OK);
        assertThat(probe.get(5, TimeUnit.MINUTES)).isTrue();
        assertThat(server.busySources()).isZero();
    }

    @Test
    void failedCallsReleaseTheirSourceToo() {
        driver.onCall = () -> {
            throw new IllegalStateException("boom");
        };
        for (int i = 0; i < 3; i++) {
            assertThat(InProcessHarness.statusOf(() -> WireCalls.call(
                                    harness.stub, Rpc.ENABLE_VOLUME_REPLICATION, WireCalls.Fields.volume("vol-1")))
                            .getCode())
                    .isEqualTo(Status.Code.UNKNOWN);
        }
        assertThat(harness.server.busySources()).isZero();
    }

    @Test
    void manyConcurrentCallsOnOneSourceAreOkOrAborted() throws Exception {
        driver.onCall = () -> {
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        List<CompletableFuture<Status>> calls = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            calls.add(async(Rpc.ENABLE_VOLUME_REPLICATION, WireCalls.Fields.volume("vol-1")));
        }
        int ok = 0;
        for (CompletableFuture<Status> call : calls) {
            Status.Code code = call.get(5, TimeUnit.MINUTES).getCode();
            assertThat(code).isIn(Status.Code.OK, Status.Code.ABORTED);
            ok += code == Status.Code.OK ? 1 : 0;
        }
        assertThat(ok).isPositive();
        assertThat(driver.requests).hasSize(ok);
        assertThat(harness.server.busySources()).isZero();
    }

    @Test
    void theGuardKeepsNoMemoryOfIdleSources() {
        for (int i = 0; i < 1000; i++) {
            WireCalls.call(harness.stub, Rpc.ENABLE_VOLUME_REPLICATION, WireCalls.Fields.volume("vol-" + i));
        }
        assertThat(harness.server.busySources()).isZero();
    }

    @Test
    void guardUnit() {
        SourceGuard guard = new SourceGuard();
        SourceGuard.Permit first = guard.tryAcquire("a");
        assertThat(first).isNotNull();
        assertThat(guard.tryAcquire("a")).isNull();
        SourceGuard.Permit other = guard.tryAcquire("b");
        assertThat(guard.busyKeys()).isEqualTo(2);
        first.close();
        first.close(); // idempotent, and never releases someone else's permit
        SourceGuard.Permit again = guard.tryAcquire("a");
        first.close();
        assertThat(guard.tryAcquire("a")).isNull();
        again.close();
        other.close();
        assertThat(guard.busyKeys()).isZero();
    }
}
