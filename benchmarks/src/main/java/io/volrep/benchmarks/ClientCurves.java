package io.volrep.benchmarks;

import com.sun.management.ThreadMXBean;
import io.grpc.ManagedChannel;
import io.volrep.client.ReplicationClient;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The client suite's curves (run by {@link Curves}): latency p50/p99 and bytes allocated per call against calls in
 * flight (1, 64, 1,024 over 100k sources) and distinct sources (1k, 100k, 1M with 64 in flight), volrep's client
 * and the raw baseline, over a unix socket to a stateless raw server.
 *
 * <pre>{@code
 * java -cp benchmarks/target/benchmarks.jar io.volrep.benchmarks.Curves --only client --seconds 5
 * }</pre>
 */
final class ClientCurves {
    static final int[] IN_FLIGHT = {1, 64, 1024};
    static final int[] SOURCES = {1_000, 100_000, 1_000_000};
    private static final int SOURCES_FOR_IN_FLIGHT = 100_000;
    private static final int IN_FLIGHT_FOR_SOURCES = 64;
    private static final int MAX_SAMPLES = 1 << 22;

    private final double seconds;
    private final double maxSeconds;
    private final Path out;
    private final PrintStream report;
    private final String subtitle;

    ClientCurves(Curves.Run run) {
        this.seconds = run.seconds();
        this.maxSeconds = run.maxSeconds();
        this.out = run.out();
        this.report = run.report();
        this.subtitle = run.subtitle();
    }

    /** Starts one call for a volume; the consumer gets null on success, else the failure. */
    interface AsyncCaller {
        void start(String volumeId, Consumer<Throwable> done);
    }

    /** One point of a client curve. */
    record ClientPoint(long calls, double p50Micros, double p99Micros, double bytesPerCall) {}

    void run() throws Exception {
        String address = Transports.address("unix");
        try (Transports.RawServer server = Transports.startRaw(address, new StatelessController());
                ReplicationClient client =
                        ReplicationClient.builder().target(address).build()) {
            ManagedChannel channel = Transports.rawChannel(address);
            try {
                Map<String, AsyncCaller> sides = new LinkedHashMap<>();
                sides.put("raw", (id, done) -> RawUnary.enableAsync(channel, id, done));
                sides.put(
                        "volrep",
                        (id, done) -> client.volume(id).enable().callAsync().whenComplete((v, t) -> done.accept(t)));
                Map<String, ClientPoint[]> byInFlight = new LinkedHashMap<>();
                Map<String, ClientPoint[]> bySources = new LinkedHashMap<>();
                sides.keySet().forEach(s -> {
                    byInFlight.put(s, new ClientPoint[IN_FLIGHT.length]);
                    bySources.put(s, new ClientPoint[SOURCES.length]);
                });
                // Sides alternate at every point, so that a load change hits both.
                for (int i = 0; i < IN_FLIGHT.length; i++) {
                    for (Map.Entry<String, AsyncCaller> side : sides.entrySet()) {
                        byInFlight.get(side.getKey())[i] =
                                clientPoint(side.getKey(), side.getValue(), IN_FLIGHT[i], SOURCES_FOR_IN_FLIGHT);
                    }
                }
                for (int i = 0; i < SOURCES.length; i++) {
                    for (Map.Entry<String, AsyncCaller> side : sides.entrySet()) {
                        bySources.get(side.getKey())[i] = SOURCES[i] == SOURCES_FOR_IN_FLIGHT
                                ? byInFlight.get(side.getKey())[Curves.indexOf(IN_FLIGHT, IN_FLIGHT_FOR_SOURCES)]
                                : clientPoint(side.getKey(), side.getValue(), IN_FLIGHT_FOR_SOURCES, SOURCES[i]);
                    }
                }
                writeClient(
                        "client-inflight",
                        "calls in flight",
                        IN_FLIGHT,
                        byInFlight,
                        true,
                        "Client latency vs calls in flight (" + SOURCES_FOR_IN_FLIGHT + " sources, unix socket)");
                writeClient(
                        "client-sources",
                        "distinct sources",
                        SOURCES,
                        bySources,
                        false,
                        "Client latency vs distinct sources (" + IN_FLIGHT_FOR_SOURCES + " in flight, unix socket)");
                List<String> categories = new ArrayList<>();
                Map<String, List<Double>> alloc = new LinkedHashMap<>();
                for (int f : IN_FLIGHT) {
                    categories.add(f + " / " + Curves.count(SOURCES_FOR_IN_FLIGHT));
                }
                for (int s : SOURCES) {
                    if (s != SOURCES_FOR_IN_FLIGHT) {
                        categories.add(IN_FLIGHT_FOR_SOURCES + " / " + Curves.count(s));
                    }
                }
                for (String side : sides.keySet()) {
                    List<Double> values = new ArrayList<>();
                    for (ClientPoint p : byInFlight.get(side)) {
                        values.add(p.bytesPerCall());
                    }
                    for (int i = 0; i < SOURCES.length; i++) {
                        if (SOURCES[i] != SOURCES_FOR_IN_FLIGHT) {
                            values.add(bySources.get(side)[i].bytesPerCall());
                        }
                    }
                    alloc.put(side, values);
                }
                Charts.bars(
                        out.resolve("client-alloc.png"),
                        "Client allocation per call, unix socket",
                        "calls in flight / distinct sources (" + subtitle + ")",
                        "bytes per call, every thread (server's included)",
                        categories,
                        alloc);
                ClientPoint fewest = bySources.get("volrep")[0];
                ClientPoint most = bySources.get("volrep")[SOURCES.length - 1];
                double growth = most.p99Micros() / fewest.p99Micros();
                report.printf(
                        Locale.ROOT,
                        "curve client-p99-sources volrep %s %.0f us, %s %.0f us: x%.2f %s%n",
                        Curves.count(SOURCES[0]),
                        fewest.p99Micros(),
                        Curves.count(SOURCES[SOURCES.length - 1]),
                        most.p99Micros(),
                        growth,
                        growth <= 2 ? "pass" : "fail");
            } finally {
                Transports.shutdown(channel);
            }
        }
    }

    private void writeClient(
            String name, String xTitle, int[] xs, Map<String, ClientPoint[]> points, boolean logY, String title)
            throws IOException {
        try (PrintWriter csv = new PrintWriter(Files.newBufferedWriter(out.resolve(name + ".csv")))) {
            csv.println("side,x,calls,p50_us,p99_us,bytes_per_call");
            points.forEach((side, ps) -> {
                for (int i = 0; i < xs.length; i++) {
                    csv.printf(
                            Locale.ROOT,
                            "%s,%d,%d,%.1f,%.1f,%.0f%n",
                            side,
                            xs[i],
                            ps[i].calls(),
                            ps[i].p50Micros(),
                            ps[i].p99Micros(),
                            ps[i].bytesPerCall());
                }
            });
        }
        Map<String, double[]> series = new LinkedHashMap<>();
        points.forEach((side, ps) -> {
            series.put(
                    side + " p50",
                    Arrays.stream(ps).mapToDouble(ClientPoint::p50Micros).toArray());
            series.put(
                    side + " p99",
                    Arrays.stream(ps).mapToDouble(ClientPoint::p99Micros).toArray());
        });
        Charts.lines(
                out.resolve(name + ".png"),
                title,
                xTitle + " (" + subtitle + ")",
                "latency per call (us)",
                Curves.toDoubles(xs),
                series,
                true,
                logY);
    }

    /**
     * Keeps {@code inFlight} calls running on volumes {@code vol-0} .. {@code vol-(sources-1)} in turn: a warm-up of
     * half the time, then a measurement of at least {@link #seconds} that goes on until every source was called
     * once (at most {@link #maxSeconds}). Allocation is the growth of every live thread's allocated-bytes counter.
     */
    ClientPoint clientPoint(String side, AsyncCaller caller, int inFlight, int sources) throws InterruptedException {
        closedLoop(caller, inFlight, sources, seconds / 2, 0, null);
        long[] latencies = new long[MAX_SAMPLES];
        long allocatedBefore = allocatedBytes();
        long calls = closedLoop(caller, inFlight, sources, seconds, sources, latencies);
        long allocated = allocatedBytes() - allocatedBefore;
        int n = (int) Math.min(calls, MAX_SAMPLES);
        ClientPoint p = new ClientPoint(
                calls,
                Stats.percentile(latencies, n, 50) / 1e3,
                Stats.percentile(latencies, n, 99) / 1e3,
                (double) allocated / calls);
        report.printf(
                Locale.ROOT,
                "curve client %s in-flight %d sources %s: %,d calls, p50 %.0f us, p99 %.0f us," + " %.0f B/call%n",
                side,
                inFlight,
                Curves.count(sources),
                calls,
                p.p50Micros(),
                p.p99Micros(),
                p.bytesPerCall());
        return p;
    }

    private long closedLoop(
            AsyncCaller caller, int inFlight, int sources, double minSeconds, long minCalls, long[] latencies)
            throws InterruptedException {
        Semaphore slots = new Semaphore(inFlight);
        AtomicInteger recorded = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long start = System.nanoTime();
        long minEnd = start + (long) (minSeconds * 1e9);
        long maxEnd = start + (long) (maxSeconds * 1e9);
        long calls = 0;
        while (failure.get() == null) {
            long now = System.nanoTime();
            if (now >= maxEnd || (now >= minEnd && calls >= minCalls)) {
                break;
            }
            slots.acquire();
            long callStart = System.nanoTime();
            caller.start("vol-" + (calls % sources), t -> {
                if (t != null) {
                    failure.compareAndSet(null, t);
                } else if (latencies != null) {
                    int i = recorded.getAndIncrement();
                    if (i < latencies.length) {
                        latencies[i] = System.nanoTime() - callStart;
                    }
                }
                slots.release();
            });
            calls++;
        }
        slots.acquire(inFlight);
        if (failure.get() != null) {
            throw new IllegalStateException("a call failed", failure.get());
        }
        return calls;
    }

    private static long allocatedBytes() {
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (long bytes : threads.getThreadAllocatedBytes(threads.getAllThreadIds())) {
            sum += Math.max(0, bytes);
        }
        return sum;
    }
}
