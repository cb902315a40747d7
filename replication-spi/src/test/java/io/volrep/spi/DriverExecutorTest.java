package io.volrep.spi;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.volrep.api.Rpc;
import io.volrep.proto.identity.IdentityGrpc;
import io.volrep.proto.identity.ProbeRequest;
import io.volrep.proto.replication.ControllerGrpc;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where driver code runs: never on the transport thread by default, on {@code Builder.executor} when given. */
class DriverExecutorTest {
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
            public void disable(DisableRequest request) {
            }
        };
        try (ReplicationServer server = ReplicationServer.builder().driver(driver)
                .listen("unix://" + dir.resolve("plugin.sock")).build().start()) {
            ManagedChannel channel = Grpc.newChannelBuilder(server.address(), InsecureChannelCredentials.create())
                    .overrideAuthority("localhost").build();
            try {
                var stub = ControllerGrpc.newBlockingStub(channel);
                CompletableFuture<Object> blocked = CompletableFuture.supplyAsync(() -> WireCalls.call(
                        stub.withDeadlineAfter(20, TimeUnit.SECONDS), Rpc.ENABLE_VOLUME_REPLICATION,
                        WireCalls.Fields.volume("vol-blocked")));
                awaitInFlight(server);
                // One connection, one event loop: had the driver run there, this call would wait for the first.
                WireCalls.call(stub.withDeadlineAfter(5, TimeUnit.SECONDS), Rpc.ENABLE_VOLUME_REPLICATION,
                        WireCalls.Fields.volume("vol-free"));
                assertThat(blocked).isNotDone();
                release.countDown();
                blocked.get(20, TimeUnit.SECONDS);
            } finally {
                release.countDown();
                channel.shutdownNow();
            }
        }
    }

    @Test
    void driverCallsAndProbesRunOnTheGivenExecutorInTheCallsContext() throws Exception {
        AtomicInteger handedOver = new AtomicInteger();
        Executor executor = task -> {
            handedOver.incrementAndGet();
            Thread thread = new Thread(task, "given-executor");
            thread.start();
        };
        List<String> threads = new CopyOnWriteArrayList<>();
        AtomicReference<Deadline> deadline = new AtomicReference<>();
        ReplicationDriver driver = new ReplicationDriver() {
            @Override
            public void enable(EnableRequest request) {
                threads.add(Thread.currentThread().getName());
                deadline.set(Context.current().getDeadline());
            }

            @Override
            public void disable(DisableRequest request) {
            }
        };
        String name = "executor-test-" + UUID.randomUUID();
        try (ReplicationServer server = ReplicationServer.builder().driver(driver).executor(executor)
                .readiness(() -> threads.add(Thread.currentThread().getName()))
                .listen("inprocess:" + name).build().start()) {
            ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
            try {
                WireCalls.call(ControllerGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS),
                        Rpc.ENABLE_VOLUME_REPLICATION, WireCalls.Fields.volume("vol-1"));
                assertThat(IdentityGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
                        .probe(ProbeRequest.getDefaultInstance()).getReady().getValue()).isTrue();
            } finally {
                channel.shutdownNow();
            }
        }
        assertThat(threads).containsExactly("given-executor", "given-executor");
        assertThat(handedOver).hasValue(2);
        // The driver sees the call's deadline (the exec bridge bounds its process by it).
        assertThat(deadline.get()).isNotNull();
        assertThat(deadline.get().timeRemaining(TimeUnit.SECONDS)).isBetween(1L, 30L);
    }

    @Test
    void theDefaultExecutorIsNotTheCallersThread() throws Exception {
        AtomicReference<Thread> driverThread = new AtomicReference<>();
        ReplicationDriver driver = new ReplicationDriver() {
            @Override
            public void enable(EnableRequest request) {
                driverThread.set(Thread.currentThread());
            }

            @Override
            public void disable(DisableRequest request) {
            }
        };
        String name = "executor-test-" + UUID.randomUUID();
        try (ReplicationServer server = ReplicationServer.builder().driver(driver).listen("inprocess:" + name)
                .build().start()) {
            // A direct in-process channel: gRPC would run the server's handler on this very thread.
            ManagedChannel channel = InProcessChannelBuilder.forName(name).directExecutor().build();
            try {
                WireCalls.call(ControllerGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS),
                        Rpc.ENABLE_VOLUME_REPLICATION, WireCalls.Fields.volume("vol-1"));
            } finally {
                channel.shutdownNow();
            }
        }
        assertThat(driverThread.get()).isNotNull().isNotSameAs(Thread.currentThread());
        assertThat(driverThread.get().isDaemon()).isTrue();
    }

    private static void awaitInFlight(ReplicationServer server) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (server.callsInFlight() == 0 && System.nanoTime() < end) {
            Thread.sleep(5);
        }
        assertThat(server.callsInFlight()).isEqualTo(1);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
