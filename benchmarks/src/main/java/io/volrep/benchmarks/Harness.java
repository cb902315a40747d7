package io.volrep.benchmarks;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * Runs every raw/volrep pair of benchmarks through JMH's {@link Runner} with the two sides interleaved, and prints
 * one {@code ratio NAME VALUE [LOW, HIGH] pass|fail|unresolved} line per pair ({@link Stats}).
 *
 * <p>A run is {@code rounds} rounds; in each round every pair runs its raw side and its volrep side once, one
 * JMH fork each, raw first in even rounds and volrep first in odd ones. Then, up to {@code maxRounds}, more rounds
 * run for the pairs whose interval is still wider than {@code maxWidth}. A load change on the machine therefore
 * lands on both sides of a pair in turn instead of on one block of forks, and fork-to-fork variation (JIT
 * decisions, memory layout) shows in the interval instead of in the value.
 *
 * <pre>{@code
 * java -cp benchmarks/target/benchmarks.jar io.volrep.benchmarks.Harness --rounds 10
 * java -cp benchmarks/target/benchmarks.jar io.volrep.benchmarks.Harness --rounds 2 --only 'client-blocking-.*'
 * }</pre>
 */
public final class Harness {
    /** A comparison: the same benchmark class and parameters, the raw and the volrep method. */
    record Pair(String name, Class<?> benchmark, String rawMethod, String volrepMethod, String transport) {
        String include(String method) {
            return "^" + Pattern.quote(benchmark.getName() + "." + method) + "$";
        }
    }

    /** One fork's figures: time per operation and bytes allocated per operation. */
    record Score(double time, String unit, double bytesPerOp) {
    }

    static final List<Pair> PAIRS = pairs();

    private final Settings settings;
    private final PrintStream out;
    private final PrintStream progress;

    Harness(Settings settings, PrintStream out, PrintStream progress) {
        this.settings = settings;
        this.out = out;
        this.progress = progress;
    }

    private static List<Pair> pairs() {
        List<Pair> pairs = new ArrayList<>();
        for (String transport : List.of("inprocess", "unix")) {
            pairs.add(new Pair("client-blocking-" + transport, ClientBenchmark.class, "rawBlocking", "volrepBlocking",
                    transport));
            pairs.add(new Pair("client-async64-" + transport, ClientBenchmark.class, "rawAsync64", "volrepAsync64",
                    transport));
            // The same, successes completed on the transport thread (directExecutor()), as the raw listener is.
            pairs.add(new Pair("client-direct-async64-" + transport, ClientBenchmark.class, "rawAsync64",
                    "volrepDirectAsync64", transport));
            pairs.add(new Pair("server-" + transport, ServerBenchmark.class, "raw", "volrep", transport));
            // The same, the driver declared non-blocking (directExecutor()), as the raw handler is.
            pairs.add(new Pair("server-direct-" + transport, ServerBenchmark.class, "raw", "volrepDirect",
                    transport));
            // A diagnostic, not a target: both sides on gRPC's default executor, so the ratio is what volrep's
            // runtime adds to a server that hands calls over as ReplicationServer does by default.
            pairs.add(new Pair("server-same-executor-" + transport, ServerBenchmark.class, "rawDefaultExecutor",
                    "volrep", transport));
        }
        // The Micrometer binding's cost per call: the bound client against the same client unbound.
        pairs.add(new Pair("micrometer-binding-inprocess", ClientBenchmark.class, "volrepBlocking", "meteredBlocking",
                "inprocess"));
        return List.copyOf(pairs);
    }

    static final int DEFAULT_MAX_ROUNDS = 20;

    /** The options of a run; see {@link #usage()}. */
    record Settings(int rounds, int maxRounds, Pattern only, int warmupIterations, int iterations, int seconds,
                    double target, double maxWidth, Path outDir, boolean list, List<String> jvmArgs) {
        static Settings parse(String... args) {
            int rounds = 10;
            Integer maxRounds = null;
            Pattern only = Pattern.compile(".*");
            int warmup = 3;
            int iterations = 3;
            int seconds = 1;
            double target = 1.05;
            double maxWidth = 0.10;
            Path outDir = Path.of("benchmarks/target/results");
            boolean list = false;
            List<String> jvmArgs = new ArrayList<>();
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--rounds" -> rounds = positive(a, args, ++i);
                    case "--max-rounds" -> maxRounds = positive(a, args, ++i);
                    case "--only" -> only = Pattern.compile(value(a, args, ++i));
                    case "--warmup" -> warmup = nonNegative(a, args, ++i);
                    case "--iterations" -> iterations = positive(a, args, ++i);
                    case "--time" -> seconds = positive(a, args, ++i);
                    case "--target" -> target = Double.parseDouble(value(a, args, ++i));
                    case "--max-width" -> maxWidth = Double.parseDouble(value(a, args, ++i));
                    case "--out" -> outDir = Path.of(value(a, args, ++i));
                    case "--list" -> list = true;
                    case "--jvm-arg" -> jvmArgs.add(value(a, args, ++i));
                    default -> throw new IllegalArgumentException("unknown option " + a + "\n" + usage());
                }
            }
            if (maxRounds != null && maxRounds < rounds) {
                throw new IllegalArgumentException("--max-rounds " + maxRounds + " is below --rounds " + rounds);
            }
            // Unless told, a run adds rounds up to 20 (or none beyond --rounds when more were asked for).
            int max = maxRounds != null ? maxRounds : Math.max(rounds, DEFAULT_MAX_ROUNDS);
            return new Settings(rounds, max, only, warmup, iterations, seconds, target, maxWidth, outDir, list,
                    List.copyOf(jvmArgs));
        }

        private static String value(String option, String[] args, int i) {
            if (i >= args.length) {
                throw new IllegalArgumentException(option + " needs a value\n" + usage());
            }
            return args[i];
        }

        private static int nonNegative(String option, String[] args, int i) {
            int n = Integer.parseInt(value(option, args, i));
            if (n < 0) {
                throw new IllegalArgumentException(option + " must not be negative: " + n);
            }
            return n;
        }

        private static int positive(String option, String[] args, int i) {
            int n = nonNegative(option, args, i);
            if (n == 0) {
                throw new IllegalArgumentException(option + " must be positive");
            }
            return n;
        }
    }

    static String usage() {
        return """
                usage: Harness [--rounds N] [--max-rounds N] [--only REGEX] [--warmup N] [--iterations N] [--time SECONDS]
                               [--target RATIO] [--max-width FRACTION] [--out DIR] [--jvm-arg ARG]... [--list]
                  --rounds N        rounds; each runs both sides of every pair once, in alternating order (10)
                  --max-rounds N    then more rounds, only for the pairs whose ratio is still unresolved, until
                                    each is resolved or has N rounds (20, or --rounds when that is more)
                  --only REGEX      only the pairs whose name matches (see --list)
                  --warmup N        JMH warm-up iterations per fork (3)
                  --iterations N    JMH measured iterations per fork (3)
                  --time SECONDS    length of each iteration (1)
                  --target RATIO    a resolved ratio at most this passes (1.05)
                  --max-width F     an interval wider than this (HIGH/LOW - 1) is unresolved (0.10)
                  --out DIR         where rounds.csv and ratios.txt go (benchmarks/target/results)
                  --jvm-arg ARG     one more JVM argument for every fork of both sides (repeatable), e.g. a
                                    diagnostic: -Dorg.slf4j.simpleLogger.log.io.volrep.spi.runtime.CallRunner=warn""";
    }

    public static void main(String[] args) throws Exception {
        Settings settings;
        try {
            settings = Settings.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        new Harness(settings, System.out, System.err).run();
    }

    List<Pair> selected() {
        return PAIRS.stream().filter(p -> settings.only().matcher(p.name()).matches()).toList();
    }

    void run() throws RunnerException, IOException {
        List<Pair> pairs = selected();
        if (settings.list() || pairs.isEmpty()) {
            PAIRS.forEach(p -> out.println(p.name()));
            if (pairs.isEmpty()) {
                throw new IllegalArgumentException("no pair matches " + settings.only());
            }
            return;
        }
        Files.createDirectories(settings.outDir());
        Path log = settings.outDir().resolve("server.log");
        int rounds = settings.rounds();
        List<List<Score>> raw = new ArrayList<>();
        List<List<Score>> volrep = new ArrayList<>();
        for (int p = 0; p < pairs.size(); p++) {
            raw.add(new ArrayList<>());
            volrep.add(new ArrayList<>());
        }
        progress.printf(Locale.ROOT, "%d pairs x %d rounds (up to %d for unresolved ratios) x 2 forks of %d+%d"
                        + " iterations of %d s%n", pairs.size(), rounds, settings.maxRounds(),
                settings.warmupIterations(), settings.iterations(), settings.seconds());
        try (PrintWriter csv = new PrintWriter(Files.newBufferedWriter(settings.outDir().resolve("rounds.csv")))) {
            csv.println("round,pair,side,time,unit,bytesPerOp");
            for (int round = 0; round < settings.maxRounds(); round++) {
                List<Integer> active = round < rounds ? allIndexes(pairs.size()) : unresolved(raw, volrep);
                if (active.isEmpty()) {
                    break;
                }
                if (round == rounds) {
                    progress.printf(Locale.ROOT, "%d of %d ratios unresolved after %d rounds: more rounds for them,"
                            + " up to %d%n", active.size(), pairs.size(), rounds, settings.maxRounds());
                }
                for (int p : active) {
                    Pair pair = pairs.get(p);
                    boolean rawFirst = round % 2 == 0;
                    for (boolean rawSide : rawFirst ? new boolean[] {true, false} : new boolean[] {false, true}) {
                        Score s = fork(pair, rawSide ? pair.rawMethod() : pair.volrepMethod(), log);
                        (rawSide ? raw : volrep).get(p).add(s);
                        String side = rawSide ? "raw" : "volrep";
                        csv.printf(Locale.ROOT, "%d,%s,%s,%.4f,%s,%.1f%n", round + 1, pair.name(), side, s.time(),
                                s.unit(), s.bytesPerOp());
                        csv.flush();
                        progress.printf(Locale.ROOT, "round %d/%d %s %s: %.3f %s, %.0f B/op%n", round + 1,
                                round < rounds ? rounds : settings.maxRounds(), pair.name(), side, s.time(),
                                s.unit(), s.bytesPerOp());
                    }
                }
            }
        }
        List<String> lines = report(pairs, toArrays(raw), toArrays(volrep));
        Files.write(settings.outDir().resolve("ratios.txt"), lines);
        lines.forEach(out::println);
    }

    private static List<Integer> allIndexes(int n) {
        List<Integer> all = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            all.add(i);
        }
        return all;
    }

    /**
     * The pairs whose ratio is unresolved so far. Only the interval's width decides, never its value, so adding
     * rounds cannot steer a ratio towards a pass or a fail.
     */
    List<Integer> unresolved(List<List<Score>> raw, List<List<Score>> volrep) {
        List<Integer> pairs = new ArrayList<>();
        for (int p = 0; p < raw.size(); p++) {
            Stats.Interval ratio = Stats.ratio(times(raw.get(p).toArray(Score[]::new)),
                    times(volrep.get(p).toArray(Score[]::new)));
            if (Stats.verdict(ratio, settings.target(), settings.maxWidth()) == Stats.Verdict.UNRESOLVED) {
                pairs.add(p);
            }
        }
        return pairs;
    }

    private static Score[][] toArrays(List<List<Score>> scores) {
        return scores.stream().map(s -> s.toArray(Score[]::new)).toArray(Score[][]::new);
    }

    List<String> report(List<Pair> pairs, Score[][] raw, Score[][] volrep) {
        List<String> details = new ArrayList<>();
        List<String> ratios = new ArrayList<>();
        int unresolved = 0;
        for (int p = 0; p < pairs.size(); p++) {
            double[] r = times(raw[p]);
            double[] v = times(volrep[p]);
            Stats.Interval ratio = Stats.ratio(r, v);
            Stats.Verdict verdict = Stats.verdict(ratio, settings.target(), settings.maxWidth());
            if (verdict == Stats.Verdict.UNRESOLVED) {
                unresolved++;
            }
            String unit = raw[p][0].unit();
            details.add(String.format(Locale.ROOT, "detail %s raw %.3f %s %.0f B/op volrep %.3f %s %.0f B/op"
                            + " (geometric means of %d rounds)", pairs.get(p).name(), geometricMean(r), unit,
                    mean(raw[p]), geometricMean(v), unit, mean(volrep[p]), r.length));
            ratios.add(Stats.ratioLine(pairs.get(p).name(), ratio, verdict));
        }
        List<String> lines = new ArrayList<>(details);
        if (unresolved > 0) {
            lines.add(String.format(Locale.ROOT, "note %d of %d ratios unresolved (interval wider than %.0f %%):"
                    + " the machine was too noisy for this many rounds; rerun with more --max-rounds or on a quieter"
                    + " machine", unresolved, pairs.size(), settings.maxWidth() * 100));
        }
        lines.addAll(ratios);
        return lines;
    }

    private Score fork(Pair pair, String method, Path log) throws RunnerException {
        Options options = new OptionsBuilder()
                .include(pair.include(method))
                .param("transport", pair.transport())
                .forks(1)
                .warmupIterations(settings.warmupIterations())
                .warmupTime(TimeValue.seconds(settings.seconds()))
                .measurementIterations(settings.iterations())
                .measurementTime(TimeValue.seconds(settings.seconds()))
                .addProfiler(GCProfiler.class)
                .jvmArgsAppend(jvmArgs(log))
                .shouldFailOnError(true)
                .verbosity(VerboseMode.SILENT)
                .build();
        RunResult result = new Runner(options).runSingle();
        Result<?> primary = result.getPrimaryResult();
        Result<?> alloc = result.getSecondaryResults().get("gc.alloc.rate.norm");
        return new Score(primary.getScore(), primary.getScoreUnit(), alloc == null ? Double.NaN : alloc.getScore());
    }

    private String[] jvmArgs(Path log) {
        List<String> args = new ArrayList<>();
        args.add("-Dorg.slf4j.simpleLogger.logFile=" + log.toAbsolutePath());
        args.addAll(settings.jvmArgs());
        return args.toArray(String[]::new);
    }

    private static double[] times(Score[] scores) {
        double[] t = new double[scores.length];
        for (int i = 0; i < scores.length; i++) {
            t[i] = scores[i].time();
        }
        return t;
    }

    private static double geometricMean(double[] values) {
        double logs = 0;
        for (double v : values) {
            logs += Math.log(v);
        }
        return Math.exp(logs / values.length);
    }

    private static double mean(Score[] scores) {
        double sum = 0;
        for (Score s : scores) {
            sum += s.bytesPerOp();
        }
        return sum / scores.length;
    }
}
