package io.volrep.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

class StatsTest {
    @Test
    void tQuantilesMatchTheTableAndTheNormalLimit() {
        assertThat(Stats.t975(1)).isEqualTo(12.706);
        assertThat(Stats.t975(9)).isEqualTo(2.262);
        assertThat(Stats.t975(30)).isEqualTo(2.042);
        // Published values: t(40) 2.021, t(60) 2.000, t(120) 1.980; the normal 1.960 in the limit.
        assertThat(Stats.t975(40)).isCloseTo(2.021, within(0.001));
        assertThat(Stats.t975(60)).isCloseTo(2.000, within(0.001));
        assertThat(Stats.t975(120)).isCloseTo(1.980, within(0.001));
        assertThat(Stats.t975(1_000_000)).isCloseTo(1.960, within(0.001));
        assertThatThrownBy(() -> Stats.t975(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void ratioIsTheGeometricMeanOfThePairedRounds() {
        Stats.Interval r = Stats.ratio(new double[] {10, 20}, new double[] {20, 10});
        // log-ratios +ln2 and -ln2: geometric mean 1; sample deviation ln2 * sqrt(2), so the standard error of
        // the mean is ln2; t(1) = 12.706.
        assertThat(r.value()).isCloseTo(1.0, within(1e-12));
        double half = 12.706 * Math.log(2);
        assertThat(r.low()).isCloseTo(Math.exp(-half), within(1e-9));
        assertThat(r.high()).isCloseTo(Math.exp(half), within(1e-9));
        assertThat(r.rounds()).isEqualTo(2);
    }

    @Test
    void identicalRoundsGiveAZeroWidthInterval() {
        Stats.Interval r = Stats.ratio(new double[] {4, 8, 2}, new double[] {5, 10, 2.5});
        assertThat(r.value()).isCloseTo(1.25, within(1e-12));
        assertThat(r.low()).isCloseTo(1.25, within(1e-12));
        assertThat(r.high()).isCloseTo(1.25, within(1e-12));
        assertThat(r.relativeWidth()).isCloseTo(0, within(1e-12));
    }

    @Test
    void intervalMatchesAHandComputedExample() {
        // log-ratios ln(1.02), ln(1.04), ln(1.00), ln(1.03), ln(1.01): 5 rounds, t(4) = 2.776.
        double[] raw = {100, 100, 100, 100, 100};
        double[] volrep = {102, 104, 100, 103, 101};
        double[] logs = {Math.log(1.02), Math.log(1.04), Math.log(1.00), Math.log(1.03), Math.log(1.01)};
        double mean = 0;
        for (double l : logs) {
            mean += l / 5;
        }
        double ss = 0;
        for (double l : logs) {
            ss += (l - mean) * (l - mean);
        }
        double half = 2.776 * Math.sqrt(ss / 4 / 5);
        Stats.Interval r = Stats.ratio(raw, volrep);
        assertThat(r.value()).isCloseTo(Math.exp(mean), within(1e-12));
        assertThat(r.low()).isCloseTo(Math.exp(mean - half), within(1e-12));
        assertThat(r.high()).isCloseTo(Math.exp(mean + half), within(1e-12));
        assertThat(Stats.ratioLine("client-blocking-unix", r, Stats.verdict(r, 1.05, 0.10)))
                .isEqualTo("ratio client-blocking-unix 1.020 [1.000, 1.040] pass");
    }

    @Test
    void verdictIsUnresolvedWhenTheIntervalIsWiderThanAllowed() {
        assertThat(Stats.verdict(new Stats.Interval(1.00, 0.95, 1.06, 5), 1.05, 0.10))
                .isEqualTo(Stats.Verdict.UNRESOLVED);
        assertThat(Stats.verdict(new Stats.Interval(1.00, 0.97, 1.06, 5), 1.05, 0.10))
                .isEqualTo(Stats.Verdict.PASS);
        assertThat(Stats.verdict(new Stats.Interval(1.08, 1.04, 1.12, 5), 1.05, 0.10))
                .isEqualTo(Stats.Verdict.FAIL);
        assertThat(Stats.verdict(new Stats.Interval(1.05, 1.01, 1.09, 5), 1.05, 0.10))
                .isEqualTo(Stats.Verdict.PASS);
    }

    @Test
    void oneRoundHasNoIntervalAndIsUnresolved() {
        Stats.Interval r = Stats.ratio(new double[] {10}, new double[] {11});
        assertThat(r.value()).isCloseTo(1.1, within(1e-12));
        assertThat(r.high()).isInfinite();
        Stats.Verdict v = Stats.verdict(r, 1.05, 0.10);
        assertThat(v).isEqualTo(Stats.Verdict.UNRESOLVED);
        assertThat(Stats.ratioLine("x", r, v)).isEqualTo("ratio x 1.100 [0.000, inf] unresolved");
    }

    @Test
    void ratioRejectsUnpairedOrNonPositiveScores() {
        assertThatThrownBy(() -> Stats.ratio(new double[] {1, 2}, new double[] {1}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("2 and 1");
        assertThatThrownBy(() -> Stats.ratio(new double[] {0}, new double[] {1}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("positive");
        assertThatThrownBy(() -> Stats.ratio(new double[0], new double[0]))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void percentileIsNearestRank() {
        long[] values = {5, 1, 4, 2, 3, 10, 9, 8, 7, 6};
        assertThat(Stats.percentile(values.clone(), 10, 50)).isEqualTo(5);
        assertThat(Stats.percentile(values.clone(), 10, 99)).isEqualTo(10);
        assertThat(Stats.percentile(values.clone(), 10, 10)).isEqualTo(1);
        assertThat(Stats.percentile(values.clone(), 4, 100)).isEqualTo(5);
        assertThatThrownBy(() -> Stats.percentile(values, 0, 50)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void differenceIsTheMeanAddedWithItsTInterval() {
        // Differences 1, 2, 3: mean 2, sd 1, se 1/sqrt(3), t(2) = 4.303 -> half-width 2.484.
        Stats.Interval d = Stats.difference(new double[] {10, 10, 10}, new double[] {11, 12, 13});
        assertThat(d.value()).isCloseTo(2, Offset.offset(1e-9));
        assertThat(d.low()).isCloseTo(2 - 2.4843, Offset.offset(1e-3));
        assertThat(d.high()).isCloseTo(2 + 2.4843, Offset.offset(1e-3));
        assertThat(Stats.budgetVerdict(d, 5)).isEqualTo(Stats.Verdict.PASS);
        assertThat(Stats.budgetVerdict(d, 3)).isEqualTo(Stats.Verdict.UNRESOLVED);
        assertThat(Stats.budgetVerdict(d, -1)).isEqualTo(Stats.Verdict.FAIL);
        assertThat(Stats.budgetVerdict(Stats.difference(new double[] {1}, new double[] {1}), 1000))
                .isEqualTo(Stats.Verdict.UNRESOLVED);
    }
}
