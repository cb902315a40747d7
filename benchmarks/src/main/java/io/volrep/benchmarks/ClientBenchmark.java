package io.volrep.benchmarks;

import io.grpc.ManagedChannel;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.volrep.client.ReplicationClient;
import io.volrep.micrometer.VolrepClientMetrics;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The client's cost: {@code ReplicationClient} against the raw grpc-java stubs, both calling the same raw
 * in-memory server ({@link InMemoryController}) over the same transport. Pairs: {@code rawBlocking} /
 * {@code volrepBlocking} (one call at a time), {@code rawAsync64} / {@code volrepAsync64} (64 calls in
 * flight, each on its own volume; time per call) and {@code rawAsync64} / {@code volrepDirectAsync64} (the same,
 * the client built with {@code directExecutor()}), {@code rawExecutorAsync64} / {@code volrepAsync64} (the default
 * client against raw calls whose answers gRPC hands to a fixed pool of the client's default size, as the client's
 * channel does), {@code rawAsync64} / {@code rawGrpcRetryAsync64} (a diagnostic: what gRPC's retry layer, which
 * neither side's channel has, would cost a raw call). Both sides set the same 3-minute deadline on every call
 * (the client's default per-attempt deadline), as a careful orchestrator would. The raw side is the strongest
 * baseline grpc-java allows ({@link RawUnary}, {@link Transports#rawChannel}); docs/benchmarks.md says why.
 * {@code benchmarks/run} runs each pair's sides in alternating forks ({@link Harness}).
 */
@State(Scope.Benchmark)
public class ClientBenchmark extends PairBenchmark {
    static final int IN_FLIGHT = 64;

    @Param({"inprocess", "unix"})
    public String transport;

    /** The two sides {@link #alternating()} alternates between ({@link AlternatingSides}). */
    @Param({"rawBlocking,volrepBlocking"})
    public String alternate;

    /** The two sides {@link #alternating64()} alternates between. */
    @Param({"rawExecutorAsync64,volrepAsync64"})
    public String alternate64;

    /** The volumes the calls go to, one after the other. */
    private final Transports.VolumeCycle volumes = new Transports.VolumeCycle();

    /** The raw server every side calls, and the raw side's channel to it. */
    private Transports.RawSide raw;

    private ManagedChannel rawChannel;
    /** The raw channel with gRPC's retry layer kept (grpc-java's default): what that layer costs a raw call. */
    private ManagedChannel rawGrpcRetryChannel;
    /** Raw calls whose callbacks gRPC runs on {@link #rawPool}: the hand-over the default client makes. */
    private ManagedChannel rawExecutorChannel;

    private ExecutorService rawPool;
    private AlternatingSides sides;
    private AlternatingSides sides64;
    private ReplicationClient client;
    /** The same client bound to Micrometer (meters in a SimpleMeterRegistry, no tracer): the binding's cost. */
    private ReplicationClient metered;
    /** The same client completing successes on the transport thread ({@code Builder.directExecutor()}). */
    private ReplicationClient direct;

    @Setup(Level.Trial)
    public void setUp() {
        BenchmarkLogging.init();
        raw = Transports.RawSide.start(transport, true);
        String address = raw.address();
        rawChannel = raw.channel();
        rawGrpcRetryChannel = Transports.rawChannel(address, null, true);
        // The same kind of executor as the client's default (ClientResources.executor): max(2, cores) threads.
        rawPool = Executors.newFixedThreadPool(Math.max(2, Runtime.getRuntime().availableProcessors()), r -> {
            Thread t = new Thread(r, "raw-client-pool");
            t.setDaemon(true);
            return t;
        });
        rawExecutorChannel = Transports.rawChannel(address, rawPool);
        client = ReplicationClient.builder().target(address).build();
        metered = VolrepClientMetrics.of(new SimpleMeterRegistry(), ObservationRegistry.NOOP)
                .bind(ReplicationClient.builder().target(address))
                .build();
        direct = ReplicationClient.builder().target(address).directExecutor().build();
        sides = AlternatingSides.of(alternate, this::side);
        sides64 = AlternatingSides.of(alternate64, this::side);
    }

    private AlternatingSides.Side side(String method) {
        return switch (method) {
            case "rawBlocking" -> this::rawBlocking;
            case "volrepBlocking" -> this::volrepBlocking;
            case "meteredBlocking" -> this::meteredBlocking;
            case "rawAsync64" ->
                () -> {
                    rawAsync64();
                    return null;
                };
            case "rawGrpcRetryAsync64" ->
                () -> {
                    rawGrpcRetryAsync64();
                    return null;
                };
            case "rawExecutorAsync64" ->
                () -> {
                    rawExecutorAsync64();
                    return null;
                };
            case "volrepAsync64" ->
                () -> {
                    volrepAsync64();
                    return null;
                };
            case "volrepDirectAsync64" ->
                () -> {
                    volrepDirectAsync64();
                    return null;
                };
            default -> throw new IllegalArgumentException("no benchmark method " + method);
        };
    }

    @Setup(Level.Iteration)
    public void nextSide() {
        sides.next();
        sides64.next();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        client.close();
        metered.close();
        direct.close();
        Transports.shutdown(rawGrpcRetryChannel);
        Transports.shutdown(rawExecutorChannel);
        rawPool.shutdownNow();
        raw.close();
    }

    @Benchmark
    public Object rawBlocking() {
        return RawUnary.enable(rawChannel, volumes.next());
    }

    @Benchmark
    public Object volrepBlocking() {
        return client.volume(volumes.next()).enable().call();
    }

    @Benchmark
    public Object meteredBlocking() {
        return metered.volume(volumes.next()).enable().call();
    }

    /** Both sides of one blocking pair ({@link #alternate}), one per iteration. */
    @Benchmark
    public Object alternating() throws Exception {
        return sides.call();
    }

    /** Both sides of one 64-in-flight pair ({@link #alternate64}), one per iteration; time per call. */
    @Benchmark
    @OperationsPerInvocation(IN_FLIGHT)
    public Object alternating64() throws Exception {
        return sides64.call();
    }

    @Benchmark
    @OperationsPerInvocation(IN_FLIGHT)
    public void rawAsync64() throws InterruptedException {
        rawAsync64(rawChannel);
    }

    /** The raw calls on a channel with gRPC's retry layer, grpc-java's default (a diagnostic: what it costs). */
    @Benchmark
    @OperationsPerInvocation(IN_FLIGHT)
    public void rawGrpcRetryAsync64() throws InterruptedException {
        rawAsync64(rawGrpcRetryChannel);
    }

    /** The raw calls, each answer handed by gRPC to a pool like the default client's (like for like). */
    @Benchmark
    @OperationsPerInvocation(IN_FLIGHT)
    public void rawExecutorAsync64() throws InterruptedException {
        rawAsync64(rawExecutorChannel);
    }

    private void rawAsync64(ManagedChannel channel) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(IN_FLIGHT);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Consumer<Throwable> onDone = t -> {
            if (t != null) {
                failure.compareAndSet(null, t);
            }
            done.countDown();
        };
        for (int i = 0; i < IN_FLIGHT; i++) {
            RawUnary.enableAsync(channel, volumes.next(), onDone);
        }
        done.await();
        if (failure.get() != null) {
            throw new IllegalStateException(failure.get());
        }
    }

    @Benchmark
    @OperationsPerInvocation(IN_FLIGHT)
    public void volrepAsync64() {
        async64(client);
    }

    @Benchmark
    @OperationsPerInvocation(IN_FLIGHT)
    public void volrepDirectAsync64() {
        async64(direct);
    }

    private void async64(ReplicationClient client) {
        CompletableFuture<?>[] calls = new CompletableFuture<?>[IN_FLIGHT];
        for (int i = 0; i < IN_FLIGHT; i++) {
            calls[i] = client.volume(volumes.next()).enable().callAsync();
        }
        CompletableFuture.allOf(calls).join();
    }
}
