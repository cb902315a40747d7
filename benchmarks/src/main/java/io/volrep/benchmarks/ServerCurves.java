package io.volrep.benchmarks;

import io.grpc.ManagedChannel;
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
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The server suite's curves (run by {@link Curves}): calls per second against connections (1, 16, 256; 256 calls
 * in flight in all) for {@code ReplicationServer} and the raw baseline server; the exec bridge's time per call
 * against starting the same executable with a plain {@link ProcessBuilder} (1, 4, 16 in parallel); and the
 * conformance suite's duration against the number of fixture volumes (1, 4, 16, 64).
 *
 * <pre>{@code
 * java -cp benchmarks/target/benchmarks.jar io.volrep.benchmarks.Curves --only server,exec,conformance
 * }</pre>
 */
final class ServerCurves {
    static final int[] CONNECTIONS = {1, 16, 256};
    static final int[] EXEC_PARALLEL = {1, 4, 16};
    static final int[] FIXTURES = {1, 4, 16, 64};
    private static final int SERVER_IN_FLIGHT = 256;

    private final double seconds;
    private final Path out;
    private final PrintStream report;
    private final String subtitle;

    ServerCurves(Curves.Run run) {
        this.seconds = run.seconds();
        this.out = run.out();
        this.report = run.report();
        this.subtitle = run.subtitle();
    }

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
                Curves.toDoubles(CONNECTIONS),
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
                Curves.toDoubles(EXEC_PARALLEL),
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
            throw new UncheckedIOException(e);
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
                "fixture volumes (reference plugin, one group; fastest of 3 runs, load average " + Curves.loadAverage()
                        + ")",
                "seconds",
                Curves.toDoubles(FIXTURES),
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
}
