package io.volrep.spi;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.volrep.api.Rpc;
import io.volrep.spi.runtime.SourceGuard;
import io.volrep.testsupport.CapturedStderr;
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

/** The per-source guard: one call in flight per source, ABORTED for the second, nothing kept when idle. */
class ConcurrencyTest {
    private final ExecutorService pool = Executors.newCachedThreadPool();
    private ScriptedDriver driver;
    private InProcessHarness harness;
    private final CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);

    @BeforeEach
    void start() {
        driver = new ScriptedDriver();
        harness = new InProcessHarness(driver);
    }

    @AfterEach
    void stop() {
        release.countDown();
        harness.close();
        pool.shutdownNow();
    }

    private CompletableFuture<Status> async(Rpc rpc, WireCalls.Fields fields) {
        return CompletableFuture.supplyAsync(() -> InProcessHarness.statusOf(
                () -> WireCalls.call(harness.stub, rpc, fields)), pool);
    }

    private void blockFirstCall() {
        AtomicInteger calls = new AtomicInteger();
        driver.onCall = () -> {
            if (calls.getAndIncrement() == 0) {
                entered.countDown();
                try {
                    release.await(20, TimeUnit.SECONDS);
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
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(harness.server.busySources()).isEqualTo(1);

        // Any RPC for the same source, including the deprecated volume_id spelling of it.
        for (Rpc rpc : List.of(Rpc.PROMOTE_VOLUME, Rpc.DEMOTE_VOLUME, Rpc.GET_VOLUME_REPLICATION_INFO)) {
            Status second = InProcessHarness.statusOf(() -> WireCalls.call(harness.stub, rpc,
                    WireCalls.Fields.volume("vol-1")));
            assertThat(second.getCode()).isEqualTo(Status.Code.ABORTED);
            assertThat(second.getDescription()).isEqualTo("operation pending for volume vol-1");
        }
        assertThat(InProcessHarness.statusOf(() -> WireCalls.call(harness.stub, Rpc.DEMOTE_VOLUME,
                new WireCalls.Fields("vol-1", null, null, null, null))).getCode()).isEqualTo(Status.Code.ABORTED);
        // Other sources are not held up, nor is a group with the same id.
        assertThat(InProcessHarness.statusOf(() -> WireCalls.call(harness.stub, Rpc.DEMOTE_VOLUME,
                WireCalls.Fields.volume("vol-2"))).getCode()).isEqualTo(Status.Code.OK);
        assertThat(InProcessHarness.statusOf(() -> WireCalls.call(harness.stub, Rpc.DEMOTE_VOLUME,
                WireCalls.Fields.group("vol-1"))).getCode()).isEqualTo(Status.Code.OK);

        release.countDown();
        assertThat(first.get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.OK);
        assertThat(harness.server.busySources()).isZero();
        // Once the first is done, the source is free again.
        assertThat(InProcessHarness.statusOf(() -> WireCalls.call(harness.stub, Rpc.DEMOTE_VOLUME,
                WireCalls.Fields.volume("vol-1"))).getCode()).isEqualTo(Status.Code.OK);
    }

    @Test
    void theShutdownLogCountsTheSourcesWithACallInFlight() throws Exception {
        blockFirstCall();
        CompletableFuture<Status> first = async(Rpc.PROMOTE_VOLUME, WireCalls.Fields.volume("vol-1"));
        assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
        // A second call for the source is answered ABORTED at once: it never held the source.
        assertThat(async(Rpc.DEMOTE_VOLUME, WireCalls.Fields.volume("vol-1")).get(10, TimeUnit.SECONDS).getCode())
                .isEqualTo(Status.Code.ABORTED);
        String log = CapturedStderr.during(harness::close);

        assertThat(log).contains("shutting down (1 source(s) with a call in flight, grace period");
        release.countDown();
        first.get(10, TimeUnit.SECONDS);
    }

    @Test
    void failedCallsReleaseTheirSourceToo() {
        driver.onCall = () -> {
            throw new IllegalStateException("boom");
        };
        for (int i = 0; i < 3; i++) {
            assertThat(InProcessHarness.statusOf(() -> WireCalls.call(harness.stub, Rpc.ENABLE_VOLUME_REPLICATION,
                    WireCalls.Fields.volume("vol-1"))).getCode()).isEqualTo(Status.Code.UNKNOWN);
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
            Status.Code code = call.get(10, TimeUnit.SECONDS).getCode();
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
        first.close();   // idempotent, and never releases someone else's permit
        SourceGuard.Permit again = guard.tryAcquire("a");
        first.close();
        assertThat(guard.tryAcquire("a")).isNull();
        again.close();
        other.close();
        assertThat(guard.busyKeys()).isZero();
    }
}
