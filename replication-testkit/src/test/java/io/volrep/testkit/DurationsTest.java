package io.volrep.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class DurationsTest {
    @Test
    void writesMillisecondsAndSeconds() {
        assertThat(Durations.describe(Duration.ofMillis(250))).isEqualTo("250 ms");
        assertThat(Durations.describe(Duration.ofMillis(3_240))).isEqualTo("3.2 s");
        assertThat(Durations.describe(Duration.ofSeconds(60))).isEqualTo("60 s");
    }

    /**
     * A plugin answering a last sync time of 9999-12-31 is 8,000 years ahead of the kit's clock: more nanoseconds
     * than a long holds. The report must say so, not stop the exploration with "long overflow".
     */
    @Test
    void writesADistanceOfThousandsOfYears() {
        Duration ahead = Duration.between(Instant.parse("2026-11-28T00:00:00Z"), Instant.parse("9999-12-31T23:59:59Z"));

        assertThat(Durations.describe(ahead)).isEqualTo(ahead.toSeconds() + " s");
    }
}
