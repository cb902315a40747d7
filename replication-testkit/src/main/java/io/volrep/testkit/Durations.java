package io.volrep.testkit;

import java.time.Duration;
import java.util.Locale;

/** How reports write a duration: {@code 250 ms}, {@code 3.2 s}, {@code 60 s}. */
final class Durations {
    private Durations() {}

    static String describe(Duration d) {
        if (d.getSeconds() < 1) {
            return d.toMillis() + " ms";
        }
        // Seconds and nanos apart: a plugin's answer may lie thousands of years away, beyond a long of nanoseconds.
        double s = d.getSeconds() + d.getNano() / 1e9;
        return s < 10 ? String.format(Locale.ROOT, "%.1f s", s) : Math.round(s) + " s";
    }
}
