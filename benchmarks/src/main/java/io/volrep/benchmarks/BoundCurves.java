package io.volrep.benchmarks;

import io.volrep.api.ReplicationSource;
import io.volrep.client.ReplicationClient;
import io.volrep.client.reconcile.DesiredState;
import io.volrep.client.reconcile.Failover;
import io.volrep.client.reconcile.FailoverReport;
import io.volrep.client.reconcile.ReconcileResult;
import io.volrep.client.reconcile.Reconciler;
import io.volrep.spi.ReplicationServer;
import io.volrep.testkit.ComplianceReport;
import io.volrep.testkit.ConformanceConfig;
import io.volrep.testkit.ConformanceRunner;
import io.volrep.testkit.reference.ReferenceDriver;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The costs users feel, each against the lower bound that the plugin's per-call latency and the allowed concurrency
 * set: {@code bound NAME VALUE} is the measured wall time divided by that bound (1.00 is as fast as the plugin
 * allows; "inf" at zero latency, where the bound is zero and the {@code curve} line gives the wall time). The
 * plugins are {@link ReferenceDriver}s behind {@link LatencyDriver} (every call sleeps the latency and is counted),
 * served by {@code ReplicationServer} over unix sockets in this JVM; the bound counts the calls that really reached
 * the plugins.
 *
 * <ul>
 *   <li>failover: {@code vol-0} .. {@code vol-(N-1)} from site A to site B ({@link Failover}, destinations assumed
 *       the same ids, {@link #FAILOVER_PARALLELISM} in progress), N = 100, 1,000, 10,000, latency 0, 20, 100 ms;
 *       bound = calls x latency / parallelism (each source's calls are sequential); target at most 1.25 at 20 and
 *       100 ms; also the peak heap of this process (both plugins included);</li>
 *   <li>conformance: the whole suite against the reference plugin at latency 0, 50, 200 ms; this suite runs its
 *       checks one after another, so the bound is all its calls x latency (with a parallel suite it would be its
 *       longest fixture's calls);</li>
 *   <li>reconcile: 10,000 sources driven to {@link DesiredState#PRIMARY}, {@link #RECONCILE_CONCURRENCY} at once,
 *       latency 0 and 20 ms: sources per second, bound = calls x latency / concurrency.</li>
 * </ul>
 */
final class BoundCurves {
    static final int[] FAILOVER_VOLUMES = {100, 1_000, 10_000};
    static final int[] FAILOVER_LATENCY_MS = {0, 20, 100};
    static final int FAILOVER_PARALLELISM = 64;
    static final int[] CONFORMANCE_LATENCY_MS = {0, 50, 200};
    static final int RECONCILE_SOURCES = 10_000;
    static final int[] RECONCILE_LATENCY_MS = {0, 20};
    static final int RECONCILE_CONCURRENCY = 64;
    /** Failover target: wall time at most this times the bound, at 20 and 100 ms. */
    static final double FAILOVER_TARGET = 1.25;

    private final Path out;
    private final PrintStream report;
    private final boolean skipSlow;

    BoundCurves(Path out, PrintStream report, boolean skipSlow) {
        this.out = out;
        this.report = report;
        this.skipSlow = skipSlow;
    }

    /** {@code measured / bound}, "inf" when the bound is zero. */
    static String ratio(double measuredSeconds, double boundSeconds) {
        return boundSeconds <= 0 ? "inf" : String.format(Locale.ROOT, "%.2f", measuredSeconds / boundSeconds);
    }

    /** The slow points a quick run (--skip-slow) leaves out: 10,000 volumes at 100 ms (about 65 s or more each). */
    static boolean slow(int volumes, int latencyMs) {
        return (long) volumes * latencyMs >= 1_000_000L;
    }

    // ---------------------------------------------------------------- failover

    void failover() throws Exception {
        Map<String, double[]> wall = new LinkedHashMap<>();
        Map<String, double[]> bounds = new LinkedHashMap<>();
        Map<String, double[]> heap = new LinkedHashMap<>();
        try (PrintWriter csv = new PrintWriter(Files.newBufferedWriter(out.resolve("failover.csv")))) {
            csv.println("volumes,latency_ms,parallelism,calls,seconds,bound_seconds,ratio,peak_heap_mb");
            for (int latency : FAILOVER_LATENCY_MS) {
                double[] w = new double[FAILOVER_VOLUMES.length];
                double[] b = new double[FAILOVER_VOLUMES.length];
                double[] h = new double[FAILOVER_VOLUMES.length];
                for (int i = 0; i < FAILOVER_VOLUMES.length; i++) {
                    int volumes = FAILOVER_VOLUMES[i];
                    String name = "failover-" + volumes + "-" + latency + "ms";
                    if (skipSlow && slow(volumes, latency)) {
                        report.printf(Locale.ROOT, "curve %s skipped (--skip-slow)%n", name);
                        w[i] = b[i] = h[i] = Double.NaN;
                        continue;
                    }
                    double[] point = failoverPoint(volumes, latency);
                    w[i] = point[1];
                    b[i] = point[2];
                    h[i] = point[3];
                    String r = ratio(point[1], point[2]);
                    csv.printf(
                            Locale.ROOT,
                            "%d,%d,%d,%.0f,%.3f,%.3f,%s,%.0f%n",
                            volumes,
                            latency,
                            FAILOVER_PARALLELISM,
                            point[0],
                            point[1],
                            point[2],
                            r,
                            point[3]);
                    csv.flush();
                    report.printf(
                            Locale.ROOT,
                            "curve %s: %.0f calls in %.2f s, bound %.2f s (parallelism %d)," + " peak heap %.0f MB%s%n",
                            name,
                            point[0],
                            point[1],
                            point[2],
                            FAILOVER_PARALLELISM,
                            point[3],
                            latency == 0
                                    ? ""
                                    : point[1] / point[2] <= FAILOVER_TARGET
                                            ? ", within " + FAILOVER_TARGET + "x: pass"
                                            : ", over " + FAILOVER_TARGET + "x: fail");
                    report.printf(Locale.ROOT, "bound %s %s%n", name, r);
                }
                wall.put(latency + " ms measured", w);
                if (latency > 0) {
                    bounds.put(latency + " ms bound", b);
                }
                heap.put(latency + " ms", h);
            }
        }
        Map<String, double[]> ratios = new LinkedHashMap<>();
        for (Map.Entry<String, double[]> e : wall.entrySet()) {
            String latency = e.getKey().replace(" measured", "");
            double[] b = bounds.get(latency + " bound");
            if (b != null) {
                double[] r = new double[b.length];
                for (int i = 0; i < b.length; i++) {
                    r[i] = e.getValue()[i] / b[i];
                }
                ratios.put(latency, r);
            }
        }
        double[] target = new double[FAILOVER_VOLUMES.length];
        Arrays.fill(target, FAILOVER_TARGET);
        ratios.put("target " + FAILOVER_TARGET, target);
        Charts.lines(
                out.resolve("failover-bound.png"),
                "Failover: wall time / (calls x latency / parallelism)",
                "volumes (parallelism " + FAILOVER_PARALLELISM + ", load average " + Curves.loadAverage() + " at end)",
                "x the bound",
                Curves.toDoubles(FAILOVER_VOLUMES),
                without(ratios),
                true,
                false);
        Map<String, double[]> both = new LinkedHashMap<>(wall);
        both.putAll(bounds);
        double[] x = Curves.toDoubles(FAILOVER_VOLUMES);
        Charts.lines(
                out.resolve("failover.png"),
                "Failover wall time vs volumes (two plugins, parallelism " + FAILOVER_PARALLELISM + ")",
                "volumes (load average " + Curves.loadAverage() + " at end)",
                "seconds",
                x,
                without(both),
                true,
                true);
        Charts.lines(
                out.resolve("failover-heap.png"),
                "Failover: peak heap of the process (both plugins included)",
                "volumes",
                "MB",
                x,
                without(heap),
                true,
                false);
    }

    /** Charts take no NaN (a skipped point): such series are left out. */
    private static Map<String, double[]> without(Map<String, double[]> series) {
        Map<String, double[]> kept = new LinkedHashMap<>();
        series.forEach((k, v) -> {
            if (Arrays.stream(v).noneMatch(Double::isNaN)) {
                kept.put(k, v);
            }
        });
        return kept;
    }

    /** {calls, seconds, bound seconds, peak heap MB} of one failover of {@code volumes} at {@code latencyMs}. */
    private double[] failoverPoint(int volumes, int latencyMs) throws Exception {
        LatencyDriver a =
                new LatencyDriver(ReferenceDriver.builder().volumes(volumes).build());
        LatencyDriver b =
                new LatencyDriver(ReferenceDriver.builder().volumes(volumes).build());
        List<ReplicationSource> sources = new ArrayList<>();
        for (int v = 0; v < volumes; v++) {
            sources.add(ReplicationSource.volume("vol-" + v));
        }
        try (ReplicationServer siteA = ReplicationServer.builder()
                        .driver(a)
                        .listen(Transports.address("unix"))
                        .build()
                        .start();
                ReplicationServer siteB = ReplicationServer.builder()
                        .driver(b)
                        .listen(Transports.address("unix"))
                        .build()
                        .start();
                ReplicationClient clientA =
                        ReplicationClient.builder().target(siteA.address()).build();
                ReplicationClient clientB =
                        ReplicationClient.builder().target(siteB.address()).build()) {
            // Set-up at zero latency: primary on A, secondary on B.
            forEach(sources, s -> clientA.source(s).enable().callAsync());
            forEach(
                    sources,
                    s -> clientB.source(s)
                            .enable()
                            .callAsync()
                            .thenCompose(x -> clientB.source(s).demote().callAsync()));
            a.latency(Duration.ofMillis(latencyMs));
            b.latency(Duration.ofMillis(latencyMs));
            long callsBefore = a.calls() + b.calls();
            System.gc();
            resetPeakHeap();
            long start = System.nanoTime();
            FailoverReport result = Failover.builder()
                    .from(clientA)
                    .to(clientB)
                    .sources(sources)
                    .assumeSameIds(true)
                    .parallelism(FAILOVER_PARALLELISM)
                    .build()
                    .run();
            double seconds = (System.nanoTime() - start) / 1e9;
            double peak = peakHeapMegabytes();
            if (!result.allPrimaryOnB()) {
                throw new IllegalStateException("failover of " + volumes + " volumes left sources behind: " + result);
            }
            long calls = a.calls() + b.calls() - callsBefore;
            return new double[] {calls, seconds, calls * latencyMs / 1000.0 / FAILOVER_PARALLELISM, peak};
        }
    }

    /** Runs {@code call} for every source, at most 256 at once, and waits for all; a failure fails the point. */
    private static void forEach(List<ReplicationSource> sources, Function<ReplicationSource, CompletableFuture<?>> call)
            throws InterruptedException {
        Semaphore slots = new Semaphore(256);
        List<CompletableFuture<?>> all = new ArrayList<>();
        for (ReplicationSource s : sources) {
            slots.acquire();
            all.add(call.apply(s).whenComplete((v, t) -> slots.release()));
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
    }

    private static void resetPeakHeap() {
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                pool.resetPeakUsage();
            }
        }
    }

    /** The sum of the heap pools' peaks since {@link #resetPeakHeap()}: an upper bound of the heap's peak. */
    private static double peakHeapMegabytes() {
        long sum = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                sum += pool.getPeakUsage().getUsed();
            }
        }
        return sum / 1048576.0;
    }

    // ---------------------------------------------------------------- conformance

    void conformance() throws Exception {
        double[] wall = new double[CONFORMANCE_LATENCY_MS.length];
        double[] bound = new double[CONFORMANCE_LATENCY_MS.length];
        conformanceRun(0); // warm-up: JUnit's launcher, the suite's classes
        try (PrintWriter csv = new PrintWriter(Files.newBufferedWriter(out.resolve("conformance-latency.csv")))) {
            csv.println("latency_ms,calls,seconds,bound_seconds,ratio,checks,compliant");
            for (int i = 0; i < CONFORMANCE_LATENCY_MS.length; i++) {
                int latency = CONFORMANCE_LATENCY_MS[i];
                LatencyDriver driver = new LatencyDriver(
                        ReferenceDriver.builder().volume("vol-0").groups(1).build());
                driver.latency(Duration.ofMillis(latency));
                long start = System.nanoTime();
                ComplianceReport result = ConformanceRunner.of(ConformanceConfig.builder()
                                .driver(driver)
                                .volumes(List.of("vol-0"))
                                .volumeGroups(List.of("grp-0"))
                                .build())
                        .run();
                wall[i] = (System.nanoTime() - start) / 1e9;
                bound[i] = driver.calls() * latency / 1000.0;
                String name = "conformance-" + latency + "ms";
                csv.printf(
                        Locale.ROOT,
                        "%d,%d,%.3f,%.3f,%s,%d,%s%n",
                        latency,
                        driver.calls(),
                        wall[i],
                        bound[i],
                        ratio(wall[i], bound[i]),
                        result.results().size(),
                        result.compliant());
                report.printf(
                        Locale.ROOT,
                        "curve %s: %d calls in %.2f s, bound %.2f s (the suite runs its checks"
                                + " one after another), %d checks, compliant %s%n",
                        name,
                        driver.calls(),
                        wall[i],
                        bound[i],
                        result.results().size(),
                        result.compliant());
                report.printf(Locale.ROOT, "bound %s %s%n", name, ratio(wall[i], bound[i]));
            }
        }
        Map<String, double[]> series = new LinkedHashMap<>();
        series.put("measured", wall);
        series.put("bound (calls x latency)", bound);
        Charts.lines(
                out.resolve("conformance-latency.png"),
                "Conformance suite vs plugin latency (reference plugin)",
                "per-call latency, ms (load average " + Curves.loadAverage() + " at end)",
                "seconds",
                Curves.toDoubles(CONFORMANCE_LATENCY_MS),
                series,
                false,
                false);
    }

    private static void conformanceRun(int latency) {
        LatencyDriver driver = new LatencyDriver(
                ReferenceDriver.builder().volume("vol-0").groups(1).build());
        driver.latency(Duration.ofMillis(latency));
        ConformanceRunner.of(ConformanceConfig.builder()
                        .driver(driver)
                        .volumes(List.of("vol-0"))
                        .volumeGroups(List.of("grp-0"))
                        .build())
                .run();
    }

    // ---------------------------------------------------------------- reconcile

    void reconcile() throws Exception {
        double[] perSecond = new double[RECONCILE_LATENCY_MS.length];
        double[] boundPerSecond = new double[RECONCILE_LATENCY_MS.length];
        try (PrintWriter csv = new PrintWriter(Files.newBufferedWriter(out.resolve("reconcile.csv")))) {
            csv.println("sources,latency_ms,concurrency,calls,seconds,bound_seconds,ratio,sources_per_second");
            for (int i = 0; i < RECONCILE_LATENCY_MS.length; i++) {
                int latency = RECONCILE_LATENCY_MS[i];
                LatencyDriver driver = new LatencyDriver(
                        ReferenceDriver.builder().volumes(RECONCILE_SOURCES).build());
                driver.latency(Duration.ofMillis(latency));
                List<ReplicationSource> sources = new ArrayList<>();
                for (int v = 0; v < RECONCILE_SOURCES; v++) {
                    sources.add(ReplicationSource.volume("vol-" + v));
                }
                try (ReplicationServer server = ReplicationServer.builder()
                                .driver(driver)
                                .listen(Transports.address("unix"))
                                .build()
                                .start();
                        ReplicationClient client = ReplicationClient.builder()
                                .target(server.address())
                                .build()) {
                    Semaphore slots = new Semaphore(RECONCILE_CONCURRENCY);
                    List<CompletableFuture<ReconcileResult>> all = new ArrayList<>();
                    long start = System.nanoTime();
                    for (ReplicationSource s : sources) {
                        slots.acquire();
                        all.add(Reconciler.of(client.source(s))
                                .reconcileAsync(DesiredState.PRIMARY)
                                .whenComplete((r, t) -> slots.release()));
                    }
                    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new))
                            .join();
                    double seconds = (System.nanoTime() - start) / 1e9;
                    long notDone = all.stream()
                            .map(CompletableFuture::join)
                            .filter(r -> !r.done())
                            .count();
                    if (notDone > 0) {
                        throw new IllegalStateException(notDone + " sources not reconciled to PRIMARY");
                    }
                    double boundSeconds = driver.calls() * latency / 1000.0 / RECONCILE_CONCURRENCY;
                    perSecond[i] = RECONCILE_SOURCES / seconds;
                    boundPerSecond[i] = boundSeconds <= 0 ? Double.NaN : RECONCILE_SOURCES / boundSeconds;
                    String name = "reconcile-" + RECONCILE_SOURCES + "-" + latency + "ms";
                    csv.printf(
                            Locale.ROOT,
                            "%d,%d,%d,%d,%.3f,%.3f,%s,%.0f%n",
                            RECONCILE_SOURCES,
                            latency,
                            RECONCILE_CONCURRENCY,
                            driver.calls(),
                            seconds,
                            boundSeconds,
                            ratio(seconds, boundSeconds),
                            perSecond[i]);
                    report.printf(
                            Locale.ROOT,
                            "curve %s: %.0f sources/s (%d calls in %.2f s, %d at once), bound" + " %.2f s%n",
                            name,
                            perSecond[i],
                            driver.calls(),
                            seconds,
                            RECONCILE_CONCURRENCY,
                            boundSeconds);
                    report.printf(Locale.ROOT, "bound %s %s%n", name, ratio(seconds, boundSeconds));
                }
            }
        }
        List<String> categories = new ArrayList<>();
        List<Double> measured = new ArrayList<>();
        for (int i = 0; i < RECONCILE_LATENCY_MS.length; i++) {
            categories.add(RECONCILE_LATENCY_MS[i] + " ms");
            measured.add(perSecond[i]);
        }
        Map<String, List<Double>> series = new LinkedHashMap<>();
        series.put("measured", measured);
        Charts.bars(
                out.resolve("reconcile.png"),
                "Desired-state reconcile of " + RECONCILE_SOURCES + " sources to PRIMARY, " + RECONCILE_CONCURRENCY
                        + " at once",
                "per-call latency (load average " + Curves.loadAverage() + " at end)",
                "sources per second",
                categories,
                series);
    }

    // ---------------------------------------------------------------- Ceph

    /** The figure CephEightVolumeFailoverIT recorded on 2026-11 (docs/orchestrator-authors.md). */
    static final double CEPH_RECORDED_SECONDS = 10.3;

    private static final Pattern CEPH_LINE =
            Pattern.compile("\\[ceph] failover of vol-0 \\.\\. vol-7 in one run:" + " (\\d+) ms");

    /**
     * The Ceph RTO is not measured here (it needs the two-site lab's containers, minutes to start): it is read from
     * the output of {@code CephEightVolumeFailoverIT} when {@code itOutput} is given, else the recorded figure.
     */
    void ceph(Path itOutput) throws IOException {
        double seconds = CEPH_RECORDED_SECONDS;
        String from = "recorded by CephEightVolumeFailoverIT (docs/orchestrator-authors.md)";
        if (itOutput != null) {
            Matcher m = CEPH_LINE.matcher(Files.readString(itOutput));
            if (!m.find()) {
                throw new IllegalArgumentException(
                        itOutput + " has no line \"[ceph] failover of vol-0 .. vol-7 in" + " one run: N ms\"");
            }
            seconds = Long.parseLong(m.group(1)) / 1000.0;
            from = "read from " + itOutput;
        }
        report.printf(
                Locale.ROOT,
                "curve ceph-rto-8: failover of vol-0 .. vol-7 on the two-site lab in %.1f s (%s)%n",
                seconds,
                from);
    }
}
