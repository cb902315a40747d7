package io.volrep.benchmarks;

import io.grpc.ManagedChannel;
import io.volrep.spi.ReplicationServer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

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
public class ServerBenchmark extends PairBenchmark {
    @Param({"inprocess", "unix"})
    public String transport;

    /** The two sides {@link #alternating()} alternates between ({@link AlternatingSides}). */
    @Param({"rawDefaultExecutor,volrep"})
    public String alternate;

    /** The volumes the calls go to, one after the other. */
    private final Transports.VolumeCycle volumes = new Transports.VolumeCycle();

    private AlternatingSides sides;

    /** The raw handler on the transport thread, and on gRPC's default executor. */
    private Transports.RawSide rawDirect;

    private Transports.RawSide rawOnDefaultExecutor;
    private ReplicationServer volrepServer;
    private ReplicationServer volrepDirectServer;
    private ManagedChannel volrepChannel;
    private ManagedChannel volrepDirectChannel;

    @Setup(Level.Trial)
    public void setUp() {
        BenchmarkLogging.init();
        rawDirect = Transports.RawSide.start(transport, true);
        rawOnDefaultExecutor = Transports.RawSide.start(transport, false);

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
        Transports.shutdown(volrepChannel);
        Transports.shutdown(volrepDirectChannel);
        rawDirect.close();
        rawOnDefaultExecutor.close();
        volrepServer.close();
        volrepDirectServer.close();
    }

    @Benchmark
    public Object raw() {
        return RawUnary.enable(rawDirect.channel(), volumes.next());
    }

    /** The raw handler on gRPC's default executor, as {@code ReplicationServer} runs its driver by default. */
    @Benchmark
    public Object rawDefaultExecutor() {
        return RawUnary.enable(rawOnDefaultExecutor.channel(), volumes.next());
    }

    /** The default server: calls handed to gRPC's default executor (a pool), since a driver may block. */
    @Benchmark
    public Object volrep() {
        return RawUnary.enable(volrepChannel, volumes.next());
    }

    /** A server told its driver never blocks ({@code directExecutor()}): no hand-over at all. */
    @Benchmark
    public Object volrepDirect() {
        return RawUnary.enable(volrepDirectChannel, volumes.next());
    }
}
