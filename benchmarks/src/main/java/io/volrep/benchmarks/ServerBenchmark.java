package io.volrep.benchmarks;

import io.grpc.ManagedChannel;
import io.volrep.spi.ReplicationServer;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The SPI runtime's cost: {@code ReplicationServer} serving {@link InMemoryDriver} (validation, per-source guard,
 * exception mapping, one INFO line per call formatted and written by slf4j-simple to a file) against a
 * bare grpc-java handler with the same in-memory behaviour ({@link InMemoryController}), served on the transport
 * thread (a direct executor: it never blocks). The caller is the same raw blocking call
 * ({@link RawUnary#enable}) for both. Like for like: {@link #volrep()} (gRPC's default executor, as a server whose
 * driver may block needs) against {@link #rawDefaultExecutor()} (the raw handler on that same executor), and
 * {@link #volrepDirect()} ({@code directExecutor()}) against {@link #raw()} (the raw handler on the transport
 * thread). The {@link Harness} switches the per-call INFO line off by configuration on both sides of these pairs
 * (the raw handler logs nothing) and reports the line's own cost separately.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(2)
public class ServerBenchmark {
    @Param({"inprocess", "unix"})
    public String transport;

    /** The two sides {@link #alternating()} alternates between ({@link AlternatingSides}). */
    @Param({"rawDefaultExecutor,volrep"})
    public String alternate;

    private AlternatingSides sides;

    private Transports.RawServer rawServer;
    private Transports.RawServer rawDefaultExecutorServer;
    private ReplicationServer volrepServer;
    private ReplicationServer volrepDirectServer;
    private ManagedChannel rawChannel;
    private ManagedChannel rawDefaultExecutorChannel;
    private ManagedChannel volrepChannel;
    private ManagedChannel volrepDirectChannel;
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
        BenchmarkLogging.init();
        String rawAddress = Transports.address(transport);
        rawServer = Transports.startRaw(rawAddress, new InMemoryController());
        rawChannel = Transports.rawChannel(rawAddress);
        String rawDefaultAddress = Transports.address(transport);
        rawDefaultExecutorServer = Transports.startRaw(rawDefaultAddress, new InMemoryController(), false);
        rawDefaultExecutorChannel = Transports.rawChannel(rawDefaultAddress);

        volrepServer = ReplicationServer.builder()
                .driver(new InMemoryDriver())
                .listen(Transports.address(transport))
                .build()
                .start();
        volrepChannel = Transports.rawChannel(volrepServer.address());

        // The driver never blocks, as the raw handler: it may run on the transport thread, as the raw one does.
        volrepDirectServer = ReplicationServer.builder()
                .driver(new InMemoryDriver())
                .directExecutor()
                .listen(Transports.address(transport))
                .build()
                .start();
        volrepDirectChannel = Transports.rawChannel(volrepDirectServer.address());
        sides = AlternatingSides.of(alternate, method -> switch (method) {
            case "raw" -> this::raw;
            case "rawDefaultExecutor" -> this::rawDefaultExecutor;
            case "volrep" -> this::volrep;
            case "volrepDirect" -> this::volrepDirect;
            default -> throw new IllegalArgumentException("no benchmark method " + method);
        });
    }

    @Setup(Level.Iteration)
    public void nextSide() {
        sides.next();
    }

    /** Both sides of one pair ({@link #alternate}), one per iteration. */
    @Benchmark
    public Object alternating() throws Exception {
        return sides.call();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        Transports.shutdown(rawChannel);
        Transports.shutdown(rawDefaultExecutorChannel);
        Transports.shutdown(volrepChannel);
        Transports.shutdown(volrepDirectChannel);
        rawServer.close();
        rawDefaultExecutorServer.close();
        volrepServer.close();
        volrepDirectServer.close();
    }

    private String nextVolume() {
        return Transports.VOLUME_IDS[next++ & (Transports.VOLUMES - 1)];
    }

    @Benchmark
    public Object raw() {
        return RawUnary.enable(rawChannel, nextVolume());
    }

    /** The raw handler on gRPC's default executor, as {@code ReplicationServer} runs its driver by default. */
    @Benchmark
    public Object rawDefaultExecutor() {
        return RawUnary.enable(rawDefaultExecutorChannel, nextVolume());
    }

    /** The default server: calls handed to gRPC's default executor (a pool), since a driver may block. */
    @Benchmark
    public Object volrep() {
        return RawUnary.enable(volrepChannel, nextVolume());
    }

    /** A server told its driver never blocks ({@code directExecutor()}): no hand-over at all. */
    @Benchmark
    public Object volrepDirect() {
        return RawUnary.enable(volrepDirectChannel, nextVolume());
    }
}
