package io.volrep.testkit;

import java.time.Duration;
import java.util.Locale;

/** How reports write a duration: {@code 250 ms}, {@code 3.2 s}, {@code 60 s}. */
final class Durations {
    private Durations() {}

    static String describe(Duration d) {
        long millis = d.toMillis();
        if (millis < 1000) {
            return millis + " ms";
        }
        double s = d.toNanos() / 1e9;
        return s < 10 ? String.format(Locale.ROOT, "%.1f s", s) : Math.round(s) + " s";
    }
}
