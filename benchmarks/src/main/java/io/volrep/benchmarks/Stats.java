package io.volrep.benchmarks;

import java.util.Arrays;
import java.util.Locale;

/**
 * The statistics behind every printed ratio. A pair is measured in rounds; each round runs the raw and the volrep
 * side once (one JMH fork each, in alternating order), so that load drifting over the run hits both sides alike.
 * The ratio of a round is volrep's score over raw's; the printed ratio is the geometric mean of the rounds, with
 * a 95 % Student-t interval computed on the logarithms (ratios are multiplicative: 0.5 and 2 are equally far
 * from 1).
 *
 * <pre>{@code
 * Stats.Interval r = Stats.ratio(new double[] {10, 11, 10.5}, new double[] {10.2, 11.1, 10.6});
 * Stats.Verdict v = Stats.verdict(r, 1.05, 0.10);     // PASS, FAIL or UNRESOLVED
 * System.out.println(Stats.ratioLine("client-blocking-unix", r, v));
 * // ratio client-blocking-unix 1.010 [0.998, 1.022] pass
 * }</pre>
 */
public final class Stats {
    /** Two-sided 95 % quantiles of Student's t for 1..30 degrees of freedom (t_{0.975, df}). */
    private static final double[] T975 = {
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
        2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042
    };

    private static final double Z975 = 1.959964;

    private Stats() {}

    /** A ratio and its 95 % confidence interval; {@code low} 0 and {@code high} infinite when unknown. */
    public record Interval(double value, double low, double high, int rounds) {
        /** How wide the interval is, relative: {@code high / low - 1} (0.10 is 10 %). */
        public double relativeWidth() {
            return high / low - 1;
        }
    }

    /** What a ratio says about its target. */
    public enum Verdict {
        /** The interval is resolved and the ratio is at most the target. */
        PASS,
        /** The interval is resolved and the ratio is over the target. */
        FAIL,
        /** The interval is wider than allowed: the run cannot tell pass from fail. */
        UNRESOLVED;

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** {@code t_{0.975, df}}: the table up to 30, a Cornish-Fisher expansion beyond (error under 0.001). */
    public static double t975(int degreesOfFreedom) {
        if (degreesOfFreedom < 1) {
            throw new IllegalArgumentException("degrees of freedom must be positive: " + degreesOfFreedom);
        }
        if (degreesOfFreedom <= T975.length) {
            return T975[degreesOfFreedom - 1];
        }
        double z = Z975;
        double n = degreesOfFreedom;
        return z + (z * z * z + z) / (4 * n) + (5 * Math.pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * n * n);
    }

    /**
     * The ratio {@code volrep[i] / raw[i]} over paired rounds: geometric mean and 95 % t-interval of the log-ratios.
     * One round gives the value with an unknown interval.
     */
    public static Interval ratio(double[] raw, double[] volrep) {
        if (raw.length != volrep.length || raw.length == 0) {
            throw new IllegalArgumentException("need the same positive number of raw and volrep rounds, got "
                    + raw.length + " and " + volrep.length);
        }
        int n = raw.length;
        double[] logs = new double[n];
        for (int i = 0; i < n; i++) {
            if (!(raw[i] > 0) || !(volrep[i] > 0)) {
                throw new IllegalArgumentException("scores must be positive: raw " + raw[i] + ", volrep " + volrep[i]);
            }
            logs[i] = Math.log(volrep[i] / raw[i]);
        }
        double mean = Arrays.stream(logs).average().orElseThrow();
        if (n == 1) {
            return new Interval(Math.exp(mean), 0, Double.POSITIVE_INFINITY, 1);
        }
        double squares = 0;
        for (double l : logs) {
            squares += (l - mean) * (l - mean);
        }
        double standardError = Math.sqrt(squares / (n - 1) / n);
        double half = t975(n - 1) * standardError;
        return new Interval(Math.exp(mean), Math.exp(mean - half), Math.exp(mean + half), n);
    }

    /**
     * The absolute difference {@code volrep[i] - raw[i]} over paired rounds: its mean and 95 % t-interval (what
     * volrep adds per operation, in the unit of the scores). One round gives the value with an unknown interval.
     */
    public static Interval difference(double[] raw, double[] volrep) {
        if (raw.length != volrep.length || raw.length == 0) {
            throw new IllegalArgumentException("need the same positive number of raw and volrep rounds, got "
                    + raw.length + " and " + volrep.length);
        }
        int n = raw.length;
        double[] d = new double[n];
        for (int i = 0; i < n; i++) {
            d[i] = volrep[i] - raw[i];
        }
        double mean = Arrays.stream(d).average().orElseThrow();
        if (n == 1) {
            return new Interval(mean, Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY, 1);
        }
        double squares = 0;
        for (double x : d) {
            squares += (x - mean) * (x - mean);
        }
        double half = t975(n - 1) * Math.sqrt(squares / (n - 1) / n);
        return new Interval(mean, mean - half, mean + half, n);
    }

    /**
     * A difference against a budget: PASS when its whole interval is at most {@code budget}, FAIL when all of it
     * is over, else UNRESOLVED (the interval straddles the budget).
     */
    public static Verdict budgetVerdict(Interval difference, double budget) {
        if (difference.high() <= budget) {
            return Verdict.PASS;
        }
        return difference.low() > budget ? Verdict.FAIL : Verdict.UNRESOLVED;
    }

    /** UNRESOLVED when the interval is wider than {@code maxWidth} (relative); else PASS when value <= target. */
    public static Verdict verdict(Interval ratio, double target, double maxWidth) {
        if (!(ratio.relativeWidth() <= maxWidth)) {
            return Verdict.UNRESOLVED;
        }
        return ratio.value() <= target ? Verdict.PASS : Verdict.FAIL;
    }

    /** {@code ratio NAME VALUE [LOW, HIGH] pass|fail|unresolved}. */
    public static String ratioLine(String name, Interval ratio, Verdict verdict) {
        return String.format(
                Locale.ROOT,
                "ratio %s %.3f [%s, %s] %s",
                name,
                ratio.value(),
                format(ratio.low()),
                format(ratio.high()),
                verdict);
    }

    private static String format(double bound) {
        return Double.isInfinite(bound) ? "inf" : String.format(Locale.ROOT, "%.3f", bound);
    }

    /** The {@code p}-th percentile (0 < p <= 100) of the first {@code n} values, nearest-rank; sorts them. */
    public static long percentile(long[] values, int n, double p) {
        if (n <= 0 || n > values.length || !(p > 0 && p <= 100)) {
            throw new IllegalArgumentException("percentile " + p + " of " + n + " values");
        }
        Arrays.sort(values, 0, n);
        int rank = (int) Math.ceil(p / 100 * n);
        return values[Math.max(rank, 1) - 1];
    }
}
