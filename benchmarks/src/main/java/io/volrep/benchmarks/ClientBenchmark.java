package io.volrep.benchmarks;

import io.grpc.ManagedChannel;
import io.grpc.stub.StreamObserver;
import io.volrep.client.ReplicationClient;
import io.volrep.proto.replication.ControllerGrpc;
import io.volrep.proto.replication.EnableVolumeReplicationResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The client's cost: {@code ReplicationClient} against the raw grpc-java stubs, both calling the same raw
 * in-memory server ({@link InMemoryController}) over the same transport. Pairs: {@code rawBlocking} /
 * {@code volrepBlocking} (one call at a time) and {@code rawAsync64} / {@code volrepAsync64} (64 calls in
 * flight, each on its own volume; time per call). Both sides set the same 3-minute deadline on every call
 * (the client's default per-attempt deadline), as a careful orchestrator would.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(2)
public class ClientBenchmark {
    static final int IN_FLIGHT = 64;
    private static final long DEADLINE_MINUTES = 3;

    @Param({"inprocess", "unix"})
    public String transport;

    private Transports.RawServer server;
    private ManagedChannel rawChannel;
    private ControllerGrpc.ControllerBlockingStub blockingStub;
    private ControllerGrpc.ControllerStub asyncStub;
    private ReplicationClient client;
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
        BenchmarkLogging.init();
        String address = Transports.address(transport);
        server = Transports.startRaw(address, new InMemoryController());
        rawChannel = Transports.rawChannel(address);
        blockingStub = ControllerGrpc.newBlockingStub(rawChannel);
        asyncStub = ControllerGrpc.newStub(rawChannel);
        client = ReplicationClient.builder().target(address).build();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        client.close();
        Transports.shutdown(rawChannel);
        server.close();
    }

    private String nextVolume() {
        return Transports.VOLUME_IDS[next++ & (Transports.VOLUMES - 1)];
    }

    @Benchmark
    public Object rawBlocking() {
        return blockingStub.withDeadlineAfter(DEADLINE_MINUTES, TimeUnit.MINUTES)
                .enableVolumeReplication(Transports.enableRequest(nextVolume()));
    }

    @Benchmark
    public Object volrepBlocking() {
        return client.volume(nextVolume()).enable().call();
    }

    @Benchmark
    @OperationsPerInvocation(IN_FLIGHT)
    public void rawAsync64() throws InterruptedException {
        CountDownLatch done = new CountDownLatch(IN_FLIGHT);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        StreamObserver<EnableVolumeReplicationResponse> observer = new StreamObserver<>() {
            @Override
            public void onNext(EnableVolumeReplicationResponse value) {
            }

            @Override
            public void onError(Throwable t) {
                failure.set(t);
                done.countDown();
            }

            @Override
            public void onCompleted() {
                done.countDown();
            }
        };
        for (int i = 0; i < IN_FLIGHT; i++) {
            asyncStub.withDeadlineAfter(DEADLINE_MINUTES, TimeUnit.MINUTES)
                    .enableVolumeReplication(Transports.enableRequest(nextVolume()), observer);
        }
        done.await();
        if (failure.get() != null) {
            throw new IllegalStateException(failure.get());
        }
    }

    @Benchmark
    @OperationsPerInvocation(IN_FLIGHT)
    public void volrepAsync64() {
        CompletableFuture<?>[] calls = new CompletableFuture<?>[IN_FLIGHT];
        for (int i = 0; i < IN_FLIGHT; i++) {
            calls[i] = client.volume(nextVolume()).enable().callAsync();
        }
        CompletableFuture.allOf(calls).join();
    }
}
