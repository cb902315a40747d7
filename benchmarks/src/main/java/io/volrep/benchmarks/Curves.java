package io.volrep.benchmarks;

import io.grpc.ManagedChannel;
import io.volrep.client.ReplicationClient;
import io.volrep.spi.ReplicationServer;
import io.volrep.spi.exec.ExecDriver;
import io.volrep.testkit.ComplianceReport;
import io.volrep.testkit.ConformanceConfig;
import io.volrep.testkit.ConformanceRunner;
import io.volrep.testkit.reference.ReferenceDriver;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * How cost grows with the work: measures the curves of docs/benchmarks.md, writes each as CSV and renders it as a
 * PNG chart ({@link Charts}), and prints one {@code curve ...} line per figure. Run by {@code benchmarks/run
 * --curves}.
 *
 * <ul>
 *   <li>client: latency p50/p99 and bytes allocated per call against calls in flight (1, 64, 1,024 over 100k
 *       sources) and distinct sources (1k, 100k, 1M with 64 in flight), volrep's client and the raw baseline,
 *       over a unix socket to a stateless raw server;</li>
 *   <li>server: calls per second against connections (1, 16, 256; 256 calls in flight in all, spread over the
 *       connections), {@code ReplicationServer} and the raw baseline server;</li>
 *   <li>exec: time per call of the exec bridge (gRPC in-process, SPI runtime, {@link ExecDriver}) against starting
 *       the same executable with a plain {@link ProcessBuilder}, at 1, 4 and 16 calls in parallel;</li>
 *   <li>conformance: the suite's duration against the number of fixture volumes (1, 4, 16, 64);</li>
 *   <li>failover, conformance-latency, reconcile, ceph: wall time against the bound the plugin's latency and the
 *       allowed concurrency set, printed as {@code bound NAME VALUE} ({@link BoundCurves}).</li>
 * </ul>
 *
 * <pre>{@code
 * java -cp benchmarks/target/benchmarks.jar io.volrep.benchmarks.Curves --seconds 5 --out target/curves
 * }</pre>
 */
public final class Curves {
    static final int[] IN_FLIGHT = {1, 64, 1024};
    static final int[] SOURCES = {1_000, 100_000, 1_000_000};
    static final int[] CONNECTIONS = {1, 16, 256};
    static final int[] EXEC_PARALLEL = {1, 4, 16};
    static final int[] FIXTURES = {1, 4, 16, 64};
    private static final int SOURCES_FOR_IN_FLIGHT = 100_000;
    private static final int IN_FLIGHT_FOR_SOURCES = 64;
    private static final int SERVER_IN_FLIGHT = 256;
    private static final int MAX_SAMPLES = 1 << 22;

    private final double seconds;
    private final double maxSeconds;
    private final Path out;
    private final PrintStream report;
    private final String subtitle;

    Curves(double seconds, double maxSeconds, Path out, PrintStream report) {
        this.seconds = seconds;
        this.maxSeconds = maxSeconds;
        this.out = out;
        this.report = report;
        this.subtitle = trim(seconds) + " s per point, load average " + loadAverage() + " at start";
    }

    public static void main(String[] args) throws Exception {
        double seconds = 5;
        double maxSeconds = 60;
        Path out = Path.of("benchmarks/target/results/curves");
        Set<String> only = Set.of(
                "client", "server", "exec", "conformance", "failover", "conformance-latency", "reconcile", "ceph");
        boolean skipSlow = false;
        Path cephLog = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--seconds" -> seconds = Double.parseDouble(args[++i]);
                case "--max-seconds" -> maxSeconds = Double.parseDouble(args[++i]);
                case "--out" -> out = Path.of(args[++i]);
                case "--only" -> only = Set.of(args[++i].split(","));
                case "--skip-slow" -> skipSlow = true;
                case "--ceph-log" -> cephLog = Path.of(args[++i]);
                default -> {
                    System.err.println("usage: Curves [--seconds S] [--max-seconds S] [--out DIR] [--skip-slow]"
                            + " [--ceph-log FILE]"
                            + " [--only client,server,exec,conformance,failover,conformance-latency,reconcile,ceph]");
                    System.exit(2);
                }
            }
        }
        BenchmarkLogging.init();
        Files.createDirectories(out);
        if (seconds < 5) {
            Charts.titlePrefix = "Development run: ";
        }
        Curves curves = new Curves(seconds, Math.max(seconds, maxSeconds), out, System.out);
        if (only.contains("client")) {
            curves.client();
        }
        if (only.contains("server")) {
            curves.server();
        }
        if (only.contains("exec")) {
            curves.exec();
        }
        if (only.contains("conformance")) {
            curves.conformance();
        }
        BoundCurves bounds = new BoundCurves(out, System.out, skipSlow);
        if (only.contains("failover")) {
            bounds.failover();
        }
        if (only.contains("conformance-latency")) {
            bounds.conformance();
        }
        if (only.contains("reconcile")) {
            bounds.reconcile();
        }
        if (only.contains("ceph")) {
            bounds.ceph(cephLog);
        }
    }

    // ---------------------------------------------------------------- client

    /** Starts one call for a volume; the consumer gets null on success, else the failure. */
    interface AsyncCaller {
        void start(String volumeId, Consumer<Throwable> done);
    }

    /** One point of a client curve. */
    record ClientPoint(long calls, double p50Micros, double p99Micros, double bytesPerCall) {}

    void client() throws Exception {
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
                                ? byInFlight.get(side.getKey())[indexOf(IN_FLIGHT, IN_FLIGHT_FOR_SOURCES)]
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
                    categories.add(f + " / " + count(SOURCES_FOR_IN_FLIGHT));
                }
                for (int s : SOURCES) {
                    if (s != SOURCES_FOR_IN_FLIGHT) {
                        categories.add(IN_FLIGHT_FOR_SOURCES + " / " + count(s));
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
                        count(SOURCES[0]),
                        fewest.p99Micros(),
                        count(SOURCES[SOURCES.length - 1]),
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
                    java.util.Arrays.stream(ps)
                            .mapToDouble(ClientPoint::p50Micros)
                            .toArray());
            series.put(
                    side + " p99",
                    java.util.Arrays.stream(ps)
                            .mapToDouble(ClientPoint::p99Micros)
                            .toArray());
        });
        Charts.lines(
                out.resolve(name + ".png"),
                title,
                xTitle + " (" + subtitle + ")",
                "latency per call (us)",
                toDoubles(xs),
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
                count(sources),
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
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (long bytes : threads.getThreadAllocatedBytes(threads.getAllThreadIds())) {
            sum += Math.max(0, bytes);
        }
        return sum;
    }

    // ---------------------------------------------------------------- server

    void server() throws Exception {
        Map<String, double[]> throughput = new LinkedHashMap<>();
        throughput.put("raw", new double[CONNECTIONS.length]);
        throughput.put("volrep", new double[CONNECTIONS.length]);
        String rawAddress = Transports.address("unix");
        try (Transports.RawServer raw = Transports.startRaw(rawAddress, new InMemoryController());
                ReplicationServer volrep = ReplicationServer.builder()
                        .driver(new InMemoryDriver())
                        .listen(Transports.address("unix"))
                        .build()
                        .start()) {
            for (int i = 0; i < CONNECTIONS.length; i++) {
                throughput.get("raw")[i] = serverPoint("raw", rawAddress, CONNECTIONS[i]);
                throughput.get("volrep")[i] = serverPoint("volrep", volrep.address(), CONNECTIONS[i]);
            }
        }
        try (PrintWriter csv = new PrintWriter(Files.newBufferedWriter(out.resolve("server-connections.csv")))) {
            csv.println("side,connections,calls_per_second");
            throughput.forEach((side, values) -> {
                for (int i = 0; i < CONNECTIONS.length; i++) {
                    csv.printf(Locale.ROOT, "%s,%d,%.0f%n", side, CONNECTIONS[i], values[i]);
                }
            });
        }
        Charts.lines(
                out.resolve("server-connections.png"),
                "Server throughput vs connections (" + SERVER_IN_FLIGHT + " calls in flight, unix socket)",
                "connections (" + subtitle + ")",
                "calls per second",
                toDoubles(CONNECTIONS),
                throughput,
                true,
                false);
    }

    /** Calls per second with {@link #SERVER_IN_FLIGHT} calls kept in flight over {@code connections} channels. */
    private double serverPoint(String side, String address, int connections) throws InterruptedException {
        List<ManagedChannel> channels = new ArrayList<>();
        for (int c = 0; c < connections; c++) {
            channels.add(Transports.rawChannel(address));
        }
        try {
            lanes(channels, seconds / 2);
            long calls = lanes(channels, seconds);
            double perSecond = calls / seconds;
            report.printf(Locale.ROOT, "curve server %s connections %d: %,.0f calls/s%n", side, connections, perSecond);
            return perSecond;
        } finally {
            for (ManagedChannel channel : channels) {
                Transports.shutdown(channel);
            }
        }
    }

    /** Runs {@link #SERVER_IN_FLIGHT} lanes, each starting its next call when the last one ends; counts calls. */
    private long lanes(List<ManagedChannel> channels, double runSeconds) throws InterruptedException {
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong completed = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch stopped = new CountDownLatch(SERVER_IN_FLIGHT);
        for (int lane = 0; lane < SERVER_IN_FLIGHT; lane++) {
            ManagedChannel channel = channels.get(lane % channels.size());
            int first = lane;
            new Object() {
                int next = first;

                void call() {
                    RawUnary.enableAsync(channel, Transports.VOLUME_IDS[next & (Transports.VOLUMES - 1)], t -> {
                        if (t != null) {
                            failure.compareAndSet(null, t);
                        }
                        if (running.get() && t == null) {
                            completed.incrementAndGet();
                            next += SERVER_IN_FLIGHT;
                            call();
                        } else {
                            stopped.countDown();
                        }
                    });
                }
            }.call();
        }
        Thread.sleep((long) (runSeconds * 1000));
        long calls = completed.get();
        running.set(false);
        if (!stopped.await(30, TimeUnit.SECONDS) || failure.get() != null) {
            throw new IllegalStateException("lanes did not stop cleanly", failure.get());
        }
        return calls;
    }

    // ---------------------------------------------------------------- exec

    void exec() throws Exception {
        Path dir = Files.createTempDirectory("volrep-bench-exec");
        Path script = dir.resolve("driver");
        // The cheapest possible driver: one shell builtin, stdin ignored (the protocol allows it).
        Files.writeString(script, "#!/bin/sh\nprintf '{\"status\":\"Success\"}\\n'\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        Map<String, double[]> millis = new LinkedHashMap<>();
        millis.put("ProcessBuilder", new double[EXEC_PARALLEL.length]);
        millis.put("exec bridge (gRPC in-process)", new double[EXEC_PARALLEL.length]);
        String address = Transports.address("inprocess");
        try (ExecDriver driver = ExecDriver.builder().executable(script).build();
                ReplicationServer server = ReplicationServer.builder()
                        .driver(driver)
                        .listen(address)
                        .build()
                        .start()) {
            ManagedChannel channel = Transports.rawChannel(server.address());
            try {
                for (int i = 0; i < EXEC_PARALLEL.length; i++) {
                    int parallel = EXEC_PARALLEL[i];
                    millis.get("ProcessBuilder")[i] =
                            execPoint("ProcessBuilder", parallel, id -> plainProcess(script, id));
                    millis.get("exec bridge (gRPC in-process)")[i] =
                            execPoint("exec-bridge", parallel, id -> RawUnary.enable(channel, id));
                }
            } finally {
                Transports.shutdown(channel);
            }
        }
        try (PrintWriter csv = new PrintWriter(Files.newBufferedWriter(out.resolve("exec.csv")))) {
            csv.println("side,parallel,ms_per_call");
            millis.forEach((side, values) -> {
                for (int i = 0; i < EXEC_PARALLEL.length; i++) {
                    csv.printf(Locale.ROOT, "%s,%d,%.2f%n", side, EXEC_PARALLEL[i], values[i]);
                }
            });
        }
        Charts.lines(
                out.resolve("exec.png"),
                "Exec bridge vs plain ProcessBuilder (same executable)",
                "calls in parallel (" + subtitle + ")",
                "wall time per call (ms)",
                toDoubles(EXEC_PARALLEL),
                millis,
                true,
                true);
    }

    /** What a caller without volrep runs for one enable: start the driver, write "{}", read stdout, wait. */
    private static void plainProcess(Path script, String volumeId) {
        try {
            Process p = new ProcessBuilder(
                            script.toString(),
                            "enable",
                            "{\"source\":{\"kind\":\"volume\",\"id\":\"" + volumeId + "\"},\"parameters\":{}}")
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            try (OutputStream stdin = p.getOutputStream()) {
                stdin.write("{}".getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                // The driver may exit without reading stdin (a closed pipe): allowed by the protocol.
            }
            String stdout;
            try (InputStream in = p.getInputStream()) {
                stdout = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            if (p.waitFor() != 0 || !stdout.contains("Success")) {
                throw new IllegalStateException("driver failed: " + stdout);
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Wall time per call (ms) with {@code parallel} threads each calling in a loop on its own volumes. */
    private double execPoint(String side, int parallel, Consumer<String> call) throws InterruptedException {
        runThreads(parallel, seconds / 2, call);
        long[] calls = runThreads(parallel, seconds, call);
        double ms = seconds * 1000 * parallel / calls[0];
        report.printf(
                Locale.ROOT, "curve exec %s parallel %d: %.2f ms per call (%,d calls)%n", side, parallel, ms, calls[0]);
        return ms;
    }

    private static long[] runThreads(int parallel, double runSeconds, Consumer<String> call)
            throws InterruptedException {
        AtomicLong calls = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long end = System.nanoTime() + (long) (runSeconds * 1e9);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < parallel; t++) {
            int lane = t;
            Thread thread = new Thread(() -> {
                try {
                    for (int i = lane; System.nanoTime() < end; i += parallel) {
                        call.accept(Transports.VOLUME_IDS[i & (Transports.VOLUMES - 1)]);
                        calls.incrementAndGet();
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("a call failed", failure.get());
        }
        return new long[] {calls.get()};
    }

    // ---------------------------------------------------------------- conformance

    void conformance() throws Exception {
        double[] durations = new double[FIXTURES.length];
        // Warm-up: the first runs load JUnit's launcher and the suite's classes and compile the hot paths.
        conformanceRun(FIXTURES[FIXTURES.length - 1]);
        conformanceRun(1);
        for (int i = 0; i < FIXTURES.length; i++) {
            int n = FIXTURES[i];
            // The fastest of three runs: wall time on a shared machine only ever errs upwards.
            durations[i] = Double.MAX_VALUE;
            ComplianceReport result = null;
            for (int run = 0; run < 3; run++) {
                long start = System.nanoTime();
                result = conformanceRun(n);
                durations[i] = Math.min(durations[i], (System.nanoTime() - start) / 1e9);
            }
            report.printf(
                    Locale.ROOT,
                    "curve conformance fixtures %d: %.2f s (fastest of 3), %d checks," + " compliant %s%n",
                    n,
                    durations[i],
                    result.results().size(),
                    result.compliant());
        }
        try (PrintWriter csv = new PrintWriter(Files.newBufferedWriter(out.resolve("conformance.csv")))) {
            csv.println("fixture_volumes,seconds");
            for (int i = 0; i < FIXTURES.length; i++) {
                csv.printf(Locale.ROOT, "%d,%.3f%n", FIXTURES[i], durations[i]);
            }
        }
        Charts.lines(
                out.resolve("conformance.png"),
                "Conformance suite duration vs fixture volumes",
                "fixture volumes (reference plugin, one group; fastest of 3 runs, load average " + loadAverage() + ")",
                "seconds",
                toDoubles(FIXTURES),
                Map.of("volrep conformance", durations),
                true,
                false);
    }

    /** One suite run against a fresh reference plugin holding {@code n} fixture volumes and one group. */
    private static ComplianceReport conformanceRun(int n) {
        List<String> volumes = new ArrayList<>();
        ReferenceDriver.Builder reference = ReferenceDriver.builder().groups(1);
        for (int v = 0; v < n; v++) {
            volumes.add("vol-" + v);
            reference.volume("vol-" + v);
        }
        ConformanceConfig config = ConformanceConfig.builder()
                .driver(reference.build())
                .volumes(volumes)
                .volumeGroups(List.of("grp-0"))
                .build();
        return ConformanceRunner.of(config).run();
    }

    // ---------------------------------------------------------------- helpers

    static String loadAverage() {
        return String.format(
                Locale.ROOT,
                "%.1f",
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }

    static double[] toDoubles(int[] values) {
        double[] d = new double[values.length];
        for (int i = 0; i < values.length; i++) {
            d[i] = values[i];
        }
        return d;
    }

    private static int indexOf(int[] values, int value) {
        for (int i = 0; i < values.length; i++) {
            if (values[i] == value) {
                return i;
            }
        }
        throw new IllegalArgumentException(value + " not in the list");
    }

    private static String count(int n) {
        return n >= 1_000_000 ? n / 1_000_000 + "M" : n >= 1_000 ? n / 1_000 + "k" : Integer.toString(n);
    }

    private static String trim(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }
}
