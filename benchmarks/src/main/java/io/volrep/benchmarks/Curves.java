package io.volrep.benchmarks;

import io.volrep.spi.exec.ExecDriver;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Set;

/**
 * How cost grows with the work: runs the curves of docs/benchmarks.md, suite by suite ({@link ClientCurves},
 * {@link ServerCurves}, then the bounds of {@link BoundCurves}), each written as CSV and rendered as a PNG chart
 * ({@link Charts}), with one {@code curve ...} line per figure. Run by {@code benchmarks/run --curves}.
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
    private Curves() {}

    /**
     * What every curve of one run shares: the seconds per point (at most {@code maxSeconds} where a point must
     * reach every source), where the CSV and PNG files go, where the {@code curve ...} lines are printed, and the
     * charts' subtitle.
     */
    record Run(double seconds, double maxSeconds, Path out, PrintStream report, String subtitle) {
        static Run of(double seconds, double maxSeconds, Path out, PrintStream report) {
            return new Run(
                    seconds,
                    maxSeconds,
                    out,
                    report,
                    trim(seconds) + " s per point, load average " + loadAverage() + " at start");
        }
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
        Run run = Run.of(seconds, Math.max(seconds, maxSeconds), out, System.out);
        if (only.contains("client")) {
            new ClientCurves(run).run();
        }
        ServerCurves server = new ServerCurves(run);
        if (only.contains("server")) {
            server.server();
        }
        if (only.contains("exec")) {
            server.exec();
        }
        if (only.contains("conformance")) {
            server.conformance();
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

    static int indexOf(int[] values, int value) {
        for (int i = 0; i < values.length; i++) {
            if (values[i] == value) {
                return i;
            }
        }
        throw new IllegalArgumentException(value + " not in the list");
    }

    static String count(int n) {
        return n >= 1_000_000 ? n / 1_000_000 + "M" : n >= 1_000 ? n / 1_000 + "k" : Integer.toString(n);
    }

    static String trim(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }
}
