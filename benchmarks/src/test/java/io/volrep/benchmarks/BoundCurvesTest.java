package io.volrep.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BoundCurvesTest {
    @Test
    void boundIsWallTimeOverTheBoundAndInfiniteWithoutLatency() {
        assertThat(BoundCurves.ratio(15.23, 12.5)).isEqualTo("1.22");
        assertThat(BoundCurves.ratio(0.37, 0)).isEqualTo("inf");
    }

    @Test
    void onlyTheTenThousandVolumesAtOneHundredMillisecondsAreSlow() {
        assertThat(BoundCurves.slow(10_000, 100)).isTrue();
        assertThat(BoundCurves.slow(10_000, 20)).isFalse();
        assertThat(BoundCurves.slow(1_000, 100)).isFalse();
        assertThat(BoundCurves.slow(10_000, 0)).isFalse();
    }
}
