package io.volrep.spi;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.volrep.api.Rpc;
import io.volrep.proto.replication.ControllerGrpc;
import io.volrep.testsupport.GrpcCleanup;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Where driver code runs: never on the transport thread by default, there with {@code Builder.directExecutor}. */
class DriverExecutorTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    @TempDir
    Path dir;

    @Test
    void aBlockedDriverCallDoesNotStallOtherCallsOnTheSameConnection() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        ReplicationDriver driver = new ReplicationDriver() {
            @Override
            public void enable(EnableRequest request) {
                if (request.source().id().equals("vol-blocked")) {
                    awaitQuietly(release);
                }
            }

            @Override
            public void disable(DisableRequest request) {}
        };
        ReplicationServer server = grpc.register(ReplicationServer.builder()
                .driver(driver)
                .listen("unix://" + dir.resolve("plugin.sock"))
                .build()
                .start());
        ManagedChannel channel =
                grpc.register(Grpc.newChannelBuilder(server.address(), InsecureChannelCredentials.create())
                        .overrideAuthority("localhost")
                        .build());
        try {
            var stub = ControllerGrpc.newBlockingStub(channel);
            CompletableFuture<Object> blocked = CompletableFuture.supplyAsync(() -> WireCalls.call(
                    stub.withDeadlineAfter(20, TimeUnit.SECONDS),
                    Rpc.ENABLE_VOLUME_REPLICATION,
                    WireCalls.Fields.volume("vol-blocked")));
            awaitInFlight(server);
            // One connection, one event loop: had the driver run there, this call would wait for the first.
            WireCalls.call(
                    stub.withDeadlineAfter(5, TimeUnit.SECONDS),
                    Rpc.ENABLE_VOLUME_REPLICATION,
                    WireCalls.Fields.volume("vol-free"));
            assertThat(blocked).isNotDone();
            release.countDown();
            blocked.get(5, TimeUnit.MINUTES);
        } finally {
            release.countDown();
        }
    }

    @Test
    void theDefaultExecutorIsNotTheCallersThread() throws Exception {
        AtomicReference<Thread> driverThread = new AtomicReference<>();
        String name = "executor-test-" + UUID.randomUUID();
        grpc.register(ReplicationServer.builder()
                .driver(recording(driverThread, null))
                .listen("inprocess:" + name)
                .build()
                .start());
        enableOverDirectChannel(name);
        assertThat(driverThread.get()).isNotNull().isNotSameAs(Thread.currentThread());
    }

    @Test
    void directExecutorRunsTheDriverOnTheTransportThreadInTheCallsContext() throws Exception {
        AtomicReference<Thread> driverThread = new AtomicReference<>();
        AtomicReference<Deadline> deadline = new AtomicReference<>();
        String name = "executor-test-" + UUID.randomUUID();
        grpc.register(ReplicationServer.builder()
                .driver(recording(driverThread, deadline))
                .directExecutor()
                .listen("inprocess:" + name)
                .build()
                .start());
        enableOverDirectChannel(name);
        // In-process, the transport thread is the caller's.
        assertThat(driverThread.get()).isSameAs(Thread.currentThread());
        // The driver still sees the call's deadline (the exec bridge bounds its process by it).
        assertThat(deadline.get()).isNotNull();
        assertThat(deadline.get().timeRemaining(TimeUnit.SECONDS)).isBetween(1L, 30L);
    }

    /** Enables vol-1 over a direct in-process channel: gRPC runs the client's side on this very thread. */
    private void enableOverDirectChannel(String name) {
        ManagedChannel channel = grpc.register(
                InProcessChannelBuilder.forName(name).directExecutor().build());
        WireCalls.call(
                ControllerGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS),
                Rpc.ENABLE_VOLUME_REPLICATION,
                WireCalls.Fields.volume("vol-1"));
    }

    private static ReplicationDriver recording(AtomicReference<Thread> thread, AtomicReference<Deadline> deadline) {
        return new ReplicationDriver() {
            @Override
            public void enable(EnableRequest request) {
                thread.set(Thread.currentThread());
                if (deadline != null) {
                    deadline.set(Context.current().getDeadline());
                }
            }

            @Override
            public void disable(DisableRequest request) {}
        };
    }

    private static void awaitInFlight(ReplicationServer server) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        while (server.busySources() == 0 && System.nanoTime() < end) {
            Thread.sleep(5);
        }
        assertThat(server.busySources()).isEqualTo(1);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(5, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
