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
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * Runs every raw/volrep pair of benchmarks through JMH's {@link Runner}, the two sides interleaved, and reports each
 * pair by its kind ({@link Kind}): {@code ratio NAME VALUE [LOW, HIGH] pass|fail|unresolved} for the five targets
 * (over unix sockets; each suite's own limit, {@link Suite}), {@code cost NAME NS ns/call [LOW, HIGH] pass|fail|unresolved} for the in-process pairs
 * (what volrep adds per call, against a 1 us budget), {@code diagnostic ...} for the rest, and an {@code alloc}
 * line ({@code gc.alloc.rate.norm}: raw, volrep, difference) for every pair.
 *
 * <p>A run is {@code rounds} rounds; a round runs every pair once. By default both sides of a pair share one JMH
 * fork and alternate iteration by iteration ({@link AlternatingSides}: raw, volrep, volrep, raw, ...), and the
 * round's ratio is that fork's; a pair whose sides need different JVM options (the log-line diagnostics) runs one
 * fork per side, raw first in even rounds and volrep first in odd ones ({@code --separate-forks} does this for every
 * pair). Then, while the run is within {@code --budget-minutes} and below {@code maxRounds}, more rounds run for the
 * targets and costs still unresolved. A load change on the machine therefore lands on both sides of a pair in
 * turn, and fork-to-fork variation (JIT decisions, memory layout) shows in the interval instead of in the value.
 *
 * <pre>{@code
 * java -cp benchmarks/target/benchmarks.jar io.volrep.benchmarks.Harness --rounds 6
 * java -cp benchmarks/target/benchmarks.jar io.volrep.benchmarks.Harness --rounds 2 --only 'client-blocking-.*'
 * }</pre>
 */
public final class Harness {
    /** How a pair is judged and printed. */
    enum Kind {
        /** A unix-socket target: {@code ratio NAME VALUE [LOW, HIGH] verdict} against its suite's limit. */
        TARGET,
        /** In-process: {@code cost NAME NS ns/call [LOW, HIGH] verdict}, what volrep adds against {@code --budget-ns}. */
        COST,
        /** Neither: {@code diagnostic NAME ratio ... adds ... ns/call}; never gets extra rounds. */
        DIAGNOSTIC
    }

    /**
     * The two suites, each with its benchmark class and the ratio its targets must not exceed: the owners' decision
     * on issue #48 (the client's pairs at most 1.10, the server's at most 1.05). Their pairs: {@link ClientPairs},
     * {@link ServerPairs}.
     */
    enum Suite {
        CLIENT(ClientBenchmark.class, 1.10),
        SERVER(ServerBenchmark.class, 1.05);

        final Class<?> benchmark;
        final double target;

        Suite(Class<?> benchmark, double target) {
            this.benchmark = benchmark;
            this.target = target;
        }
    }

    /**
     * A comparison: the same benchmark class (its suite's) and parameters, the raw and the volrep method, and the JVM
     * options of each side's fork (the same for both unless the pair measures an option, as the log-line diagnostics
     * do).
     */
    record Pair(
            String name,
            Kind kind,
            Suite suite,
            String rawMethod,
            String volrepMethod,
            String transport,
            boolean perCall64,
            List<String> rawJvmArgs,
            List<String> volrepJvmArgs) {
        String include(String method) {
            return "^" + Pattern.quote(suite.benchmark.getName() + "." + method) + "$";
        }

        /** Whether both sides can share a fork: the same JVM options. */
        boolean alternates() {
            return rawJvmArgs.equals(volrepJvmArgs);
        }

        /** The benchmark method that alternates the sides, and its parameter naming them. */
        String alternatingMethod() {
            return perCall64 ? "alternating64" : "alternating";
        }

        String alternatingParam() {
            return perCall64 ? "alternate64" : "alternate";
        }
    }

    /** One fork's (or one side's share of a fork's) figures: time per operation and bytes allocated per operation. */
    record Score(double time, String unit, double bytesPerOp) {
        /** The time in nanoseconds per operation. */
        double nanos() {
            return time
                    * switch (unit.substring(0, unit.indexOf('/'))) {
                        case "ns" -> 1;
                        case "us" -> 1e3;
                        case "ms" -> 1e6;
                        case "s" -> 1e9;
                        default -> throw new IllegalArgumentException("unit " + unit);
                    };
        }
    }

    /** The per-call INFO line of the SPI runtime off, with slf4j-simple (the benchmarks' binding). */
    static final String CALL_LOG_OFF = "-Dorg.slf4j.simpleLogger.log.io.volrep.spi.runtime.CallRunner=warn";

    static final String LOGBACK = "-D" + BenchmarkLogging.PROVIDER + "=" + BenchmarkLogging.LOGBACK;
    /** The same line off with logback (src/main/resources/logback.xml). */
    static final String LOGBACK_CALL_LOG_OFF = "-Dvolrep.bench.callLog=WARN";

    static final List<Pair> PAIRS = pairs();

    private final Settings settings;
    private final PrintStream out;
    private final PrintStream progress;

    Harness(Settings settings, PrintStream out, PrintStream progress) {
        this.settings = settings;
        this.out = out;
        this.progress = progress;
    }

    /**
     * Every pair, each suite's in turn: the targets over unix sockets (the transport plugins use), the same pairs
     * in-process as costs in ns, then the diagnostics.
     */
    private static List<Pair> pairs() {
        List<Pair> pairs = new ArrayList<>();
        for (String transport : List.of("unix", "inprocess")) {
            Kind kind = transport.equals("unix") ? Kind.TARGET : Kind.COST;
            pairs.addAll(ClientPairs.comparisons(transport, kind));
            pairs.addAll(ServerPairs.comparisons(transport, kind));
        }
        pairs.addAll(ClientPairs.diagnostics());
        pairs.addAll(ServerPairs.diagnostics());
        return List.copyOf(pairs);
    }

    static final int DEFAULT_ROUNDS = 6;
    static final int DEFAULT_MAX_ROUNDS = 12;
    static final int DEFAULT_WARMUP = 10;

    /** The options of a run; see {@link #usage()}. */
    record Settings(
            int rounds,
            int maxRounds,
            Pattern only,
            int warmupIterations,
            int iterations,
            int seconds,
            Double target,
            double maxWidth,
            double budgetNanos,
            double budgetMinutes,
            boolean separateForks,
            Path outDir,
            boolean list,
            List<String> jvmArgs) {
        static Settings parse(String... args) {
            int rounds = DEFAULT_ROUNDS;
            Integer maxRounds = null;
            Pattern only = Pattern.compile(".*");
            // A fork running both sides keeps C2 busy for its first 7 or so one-second iterations on 2 cores (about
            // a whole core, and the measured calls twice as slow): measuring then reads the compiler, not the call.
            int warmup = DEFAULT_WARMUP;
            int iterations = 8;
            int seconds = 1;
            Double target = null; // each suite's own
            double maxWidth = 0.10;
            double budgetNanos = 1000;
            double budgetMinutes = 30;
            boolean separateForks = false;
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
                    case "--budget-ns" -> budgetNanos = Double.parseDouble(value(a, args, ++i));
                    case "--budget-minutes" -> budgetMinutes = Double.parseDouble(value(a, args, ++i));
                    case "--separate-forks" -> separateForks = true;
                    case "--out" -> outDir = Path.of(value(a, args, ++i));
                    case "--list" -> list = true;
                    case "--jvm-arg" -> jvmArgs.add(value(a, args, ++i));
                    default -> throw new IllegalArgumentException("unknown option " + a + "\n" + usage());
                }
            }
            if (maxRounds != null && maxRounds < rounds) {
                throw new IllegalArgumentException("--max-rounds " + maxRounds + " is below --rounds " + rounds);
            }
            if (!separateForks && iterations % 2 != 0) {
                throw new IllegalArgumentException("--iterations must be even when the sides alternate in one fork"
                        + " (half of them measure each side): " + iterations);
            }
            // Unless told, a run adds rounds up to 12 (or none beyond --rounds when more were asked for).
            int max = maxRounds != null ? maxRounds : Math.max(rounds, DEFAULT_MAX_ROUNDS);
            return new Settings(
                    rounds,
                    max,
                    only,
                    warmup,
                    iterations,
                    seconds,
                    target,
                    maxWidth,
                    budgetNanos,
                    budgetMinutes,
                    separateForks,
                    outDir,
                    list,
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
                               [--target RATIO] [--max-width FRACTION] [--budget-ns NS] [--budget-minutes M]
                               [--separate-forks] [--out DIR] [--jvm-arg ARG]... [--list]
                  --rounds N        rounds; each runs both sides of every pair once (6)
                  --max-rounds N    then more rounds, only for the targets and costs still unresolved, until each
                                    is resolved, has N rounds (12, or --rounds when that is more) or the run is
                                    out of its time budget
                  --only REGEX      only the pairs whose name matches (see --list)
                  --warmup N        JMH warm-up iterations per fork (10: five per side when they alternate; on
                                    2 cores the JIT compiles for about the first 7)
                  --iterations N    JMH measured iterations per fork (8: four per side when they alternate; even)
                  --time SECONDS    length of each iteration (1)
                  --target RATIO    a resolved ratio at most this passes (each suite's own: the client's
                                    pairs 1.10, the server's 1.05)
                  --max-width F     a ratio interval wider than this (HIGH/LOW - 1) is unresolved (0.10)
                  --budget-ns NS    an in-process cost passes when its whole interval is at most this (1000)
                  --budget-minutes M  no extra round starts once the run has taken this long (30)
                  --separate-forks  one fork per side for every pair (the former harness), not both in one fork
                  --out DIR         where rounds.csv and ratios.txt go (benchmarks/target/results)
                  --jvm-arg ARG     one more JVM argument for every fork of both sides (repeatable), e.g.
                                    -Dorg.slf4j.simpleLogger.log.io.volrep.spi.runtime.CallRunner=warn""";
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
        return PAIRS.stream()
                .filter(p -> settings.only().matcher(p.name()).matches())
                .toList();
    }

    void run() throws RunnerException, IOException {
        List<Pair> pairs = selected();
        if (settings.list() || pairs.isEmpty()) {
            PAIRS.forEach(p -> out.println(p.name() + " " + p.kind().name().toLowerCase(Locale.ROOT)));
            if (pairs.isEmpty()) {
                throw new IllegalArgumentException("no pair matches " + settings.only());
            }
            return;
        }
        Files.createDirectories(settings.outDir());
        Path log = settings.outDir().resolve("server.log");
        int rounds = settings.rounds();
        long start = System.nanoTime();
        List<List<Score>> raw = new ArrayList<>();
        List<List<Score>> volrep = new ArrayList<>();
        for (int p = 0; p < pairs.size(); p++) {
            raw.add(new ArrayList<>());
            volrep.add(new ArrayList<>());
        }
        progress.printf(
                Locale.ROOT,
                "%d pairs x %d rounds (up to %d for unresolved ones, within %.0f min); %s,"
                        + " %d+%d iterations of %d s%n",
                pairs.size(),
                rounds,
                settings.maxRounds(),
                settings.budgetMinutes(),
                settings.separateForks() ? "one fork per side" : "both sides alternating in one fork",
                settings.warmupIterations(),
                settings.iterations(),
                settings.seconds());
        try (PrintWriter csv =
                new PrintWriter(Files.newBufferedWriter(settings.outDir().resolve("rounds.csv")))) {
            csv.println("round,pair,side,time,unit,bytesPerOp");
            for (int round = 0; round < settings.maxRounds(); round++) {
                List<Integer> active = round < rounds ? allIndexes(pairs.size()) : unresolved(pairs, raw, volrep);
                if (active.isEmpty()) {
                    break;
                }
                if (round >= rounds && minutesSince(start) >= settings.budgetMinutes()) {
                    progress.printf(
                            Locale.ROOT,
                            "%d pairs still unresolved after %d rounds; the run's %.0f minutes" + " are used up%n",
                            active.size(),
                            round,
                            settings.budgetMinutes());
                    break;
                }
                if (round == rounds) {
                    progress.printf(
                            Locale.ROOT,
                            "%d of %d pairs unresolved after %d rounds: more rounds for them," + " up to %d%n",
                            active.size(),
                            pairs.size(),
                            rounds,
                            settings.maxRounds());
                }
                for (int p : active) {
                    Pair pair = pairs.get(p);
                    Score[] sides = round(pair, round, log);
                    raw.get(p).add(sides[0]);
                    volrep.get(p).add(sides[1]);
                    for (int side = 0; side < 2; side++) {
                        Score s = sides[side];
                        String name = side == 0 ? "raw" : "volrep";
                        csv.printf(
                                Locale.ROOT,
                                "%d,%s,%s,%.4f,%s,%.1f%n",
                                round + 1,
                                pair.name(),
                                name,
                                s.time(),
                                s.unit(),
                                s.bytesPerOp());
                        progress.printf(
                                Locale.ROOT,
                                "round %d/%d %s %s: %.3f %s, %.0f B/op (%.1f min)%n",
                                round + 1,
                                round < rounds ? rounds : settings.maxRounds(),
                                pair.name(),
                                name,
                                s.time(),
                                s.unit(),
                                s.bytesPerOp(),
                                minutesSince(start));
                    }
                    csv.flush();
                }
            }
        }
        List<String> lines = report(pairs, toArrays(raw), toArrays(volrep));
        Files.write(settings.outDir().resolve("ratios.txt"), lines);
        lines.forEach(out::println);
    }

    private static double minutesSince(long start) {
        return (System.nanoTime() - start) / 60e9;
    }

    /** One round of {@code pair}: its raw and its volrep score, from one alternating fork or one fork per side. */
    private Score[] round(Pair pair, int round, Path log) throws RunnerException {
        if (!settings.separateForks() && pair.alternates()) {
            return alternatingFork(pair, log);
        }
        Score[] sides = new Score[2];
        boolean rawFirst = round % 2 == 0;
        for (int side : rawFirst ? new int[] {0, 1} : new int[] {1, 0}) {
            sides[side] = side == 0
                    ? separateFork(pair, pair.rawMethod(), pair.rawJvmArgs(), log)
                    : separateFork(pair, pair.volrepMethod(), pair.volrepJvmArgs(), log);
        }
        return sides;
    }

    private Score separateFork(Pair pair, String method, List<String> pairArgs, Path log) throws RunnerException {
        RunResult result =
                new Runner(options(pair, pair.include(method), pairArgs, log).build()).runSingle();
        Result<?> primary = result.getPrimaryResult();
        Result<?> alloc = result.getSecondaryResults().get("gc.alloc.rate.norm");
        return new Score(primary.getScore(), primary.getScoreUnit(), alloc == null ? Double.NaN : alloc.getScore());
    }

    /**
     * Both sides in one fork, alternating iteration by iteration ({@link AlternatingSides#volrepTurn}); each side's
     * score is the geometric mean of its measured iterations, its allocation their mean.
     */
    private Score[] alternatingFork(Pair pair, Path log) throws RunnerException {
        OptionsBuilder options = options(pair, pair.include(pair.alternatingMethod()), pair.rawJvmArgs(), log);
        options.param(pair.alternatingParam(), pair.rawMethod() + "," + pair.volrepMethod());
        RunResult result = new Runner(options.build()).runSingle();
        List<Score> raw = new ArrayList<>();
        List<Score> volrep = new ArrayList<>();
        int i = settings.warmupIterations();
        for (BenchmarkResult benchmark : result.getBenchmarkResults()) {
            for (IterationResult iteration : benchmark.getIterationResults()) {
                Result<?> primary = iteration.getPrimaryResult();
                Result<?> alloc = iteration.getSecondaryResults().get("gc.alloc.rate.norm");
                Score s = new Score(
                        primary.getScore(), primary.getScoreUnit(), alloc == null ? Double.NaN : alloc.getScore());
                (AlternatingSides.volrepTurn(i++) ? volrep : raw).add(s);
            }
        }
        return new Score[] {combine(raw), combine(volrep)};
    }

    static Score combine(List<Score> iterations) {
        Score[] scores = iterations.toArray(Score[]::new);
        return new Score(geometricMean(times(scores)), scores[0].unit(), mean(scores));
    }

    private OptionsBuilder options(Pair pair, String include, List<String> pairArgs, Path log) {
        OptionsBuilder options = new OptionsBuilder();
        options.include(include)
                .param("transport", pair.transport())
                .forks(1)
                .warmupIterations(settings.warmupIterations())
                .warmupTime(TimeValue.seconds(settings.seconds()))
                .measurementIterations(settings.iterations())
                .measurementTime(TimeValue.seconds(settings.seconds()))
                .addProfiler(GCProfiler.class)
                .jvmArgsAppend(jvmArgs(pairArgs, log))
                .shouldFailOnError(true)
                .verbosity(VerboseMode.SILENT);
        return options;
    }

    private static List<Integer> allIndexes(int n) {
        List<Integer> all = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            all.add(i);
        }
        return all;
    }

    /**
     * The targets and costs unresolved so far (diagnostics never get extra rounds). Only the interval's width
     * decides, never its value, so adding rounds cannot steer a pair towards a pass or a fail.
     */
    List<Integer> unresolved(List<Pair> pairs, List<List<Score>> raw, List<List<Score>> volrep) {
        List<Integer> unresolved = new ArrayList<>();
        for (int p = 0; p < raw.size(); p++) {
            Score[] r = raw.get(p).toArray(Score[]::new);
            Score[] v = volrep.get(p).toArray(Score[]::new);
            boolean open = switch (pairs.get(p).kind()) {
                case TARGET ->
                    Stats.verdict(Stats.ratio(times(r), times(v)), target(pairs.get(p)), settings.maxWidth())
                            == Stats.Verdict.UNRESOLVED;
                case COST ->
                    Stats.budgetVerdict(Stats.difference(nanos(r), nanos(v)), settings.budgetNanos())
                            == Stats.Verdict.UNRESOLVED;
                case DIAGNOSTIC -> false;
            };
            if (open) {
                unresolved.add(p);
            }
        }
        return unresolved;
    }

    private static Score[][] toArrays(List<List<Score>> scores) {
        return scores.stream().map(s -> s.toArray(Score[]::new)).toArray(Score[][]::new);
    }

    /**
     * The report: {@code detail} and {@code alloc} lines for every pair, a {@code note} when targets or costs are
     * unresolved, then the {@code diagnostic}, {@code cost} and (last) {@code ratio} lines.
     */
    List<String> report(List<Pair> pairs, Score[][] raw, Score[][] volrep) {
        List<String> details = new ArrayList<>();
        List<String> diagnostics = new ArrayList<>();
        List<String> costs = new ArrayList<>();
        List<String> ratios = new ArrayList<>();
        int unresolved = 0;
        int judged = 0;
        for (int p = 0; p < pairs.size(); p++) {
            Pair pair = pairs.get(p);
            double[] r = times(raw[p]);
            double[] v = times(volrep[p]);
            Stats.Interval ratio = Stats.ratio(r, v);
            Stats.Interval added = Stats.difference(nanos(raw[p]), nanos(volrep[p]));
            String unit = raw[p][0].unit();
            details.add(String.format(
                    Locale.ROOT,
                    "detail %s raw %.3f %s volrep %.3f %s (geometric means of %d" + " rounds)",
                    pair.name(),
                    geometricMean(r),
                    unit,
                    geometricMean(v),
                    unit,
                    r.length));
            double rawBytes = mean(raw[p]);
            double volrepBytes = mean(volrep[p]);
            details.add(String.format(
                    Locale.ROOT,
                    "alloc %s raw %.0f B/op volrep %.0f B/op difference %+.0f B/op",
                    pair.name(),
                    rawBytes,
                    volrepBytes,
                    volrepBytes - rawBytes));
            switch (pair.kind()) {
                case TARGET -> {
                    judged++;
                    Stats.Verdict verdict = Stats.verdict(ratio, target(pair), settings.maxWidth());
                    unresolved += verdict == Stats.Verdict.UNRESOLVED ? 1 : 0;
                    ratios.add(Stats.ratioLine(pair.name(), ratio, verdict));
                }
                case COST -> {
                    judged++;
                    Stats.Verdict verdict = Stats.budgetVerdict(added, settings.budgetNanos());
                    unresolved += verdict == Stats.Verdict.UNRESOLVED ? 1 : 0;
                    costs.add(String.format(
                            Locale.ROOT,
                            "cost %s %.0f ns/call [%s, %s] %s (budget %.0f ns)",
                            pair.name(),
                            added.value(),
                            nanos(added.low()),
                            nanos(added.high()),
                            verdict,
                            settings.budgetNanos()));
                }
                case DIAGNOSTIC ->
                    diagnostics.add(String.format(
                            Locale.ROOT,
                            "diagnostic %s ratio %.3f [%s, %s]" + " adds %.0f ns/call [%s, %s]",
                            pair.name(),
                            ratio.value(),
                            bound(ratio.low()),
                            bound(ratio.high()),
                            added.value(),
                            nanos(added.low()),
                            nanos(added.high())));
            }
        }
        List<String> lines = new ArrayList<>(details);
        if (unresolved > 0) {
            lines.add(String.format(
                    Locale.ROOT,
                    "note %d of %d targets and costs unresolved (a ratio interval wider"
                            + " than %.0f %%, or a cost interval across the budget): the machine was too noisy for this many"
                            + " rounds; rerun with more --max-rounds and --budget-minutes or on a quieter machine",
                    unresolved,
                    judged,
                    settings.maxWidth() * 100));
        }
        lines.addAll(diagnostics);
        lines.addAll(costs);
        lines.addAll(ratios);
        return lines;
    }

    /** The ratio a target pair must not exceed: {@code --target}, else its suite's. */
    private double target(Pair pair) {
        return settings.target() != null ? settings.target() : pair.suite().target;
    }

    /** An interval's end in ns; "-inf" and "inf" for one round, whose interval is unknown. */
    private static String nanos(double value) {
        return Double.isInfinite(value) ? (value < 0 ? "-inf" : "inf") : String.format(Locale.ROOT, "%.0f", value);
    }

    private static String bound(double value) {
        return Double.isInfinite(value) ? "inf" : String.format(Locale.ROOT, "%.3f", value);
    }

    private String[] jvmArgs(List<String> pairArgs, Path log) {
        List<String> args = new ArrayList<>();
        args.add("-Dorg.slf4j.simpleLogger.logFile=" + log.toAbsolutePath());
        // slf4j says which provider it loads when told one; a line per fork is noise in the progress output.
        args.add("-Dslf4j.internal.verbosity=WARN");
        if (pairArgs.stream().noneMatch(a -> a.startsWith("-D" + BenchmarkLogging.PROVIDER + "="))) {
            args.add("-D" + BenchmarkLogging.PROVIDER + "=" + BenchmarkLogging.SIMPLE);
        }
        args.addAll(pairArgs);
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

    private static double[] nanos(Score[] scores) {
        double[] t = new double[scores.length];
        for (int i = 0; i < scores.length; i++) {
            t[i] = scores[i].nanos();
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
