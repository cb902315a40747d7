package io.volrep.testkit;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a run measured of each check, by name: how long the check itself ran, and how much of that it spent polling
 * transient answers. Checks run several at a time while the report lists them in order, so the time between a
 * check's report line and the one before is not its own: it includes the time the check waited for its fixtures
 * (a check holding every fixture waits for all the others). Vendors read these times to find what makes their run
 * long.
 */
final class CheckTimes {
    private final Map<String, Duration> ran = new ConcurrentHashMap<>();
    private final Map<String, Duration> waited = new ConcurrentHashMap<>();

    /** Adds {@code d} to the time the check named {@code name} ran (its calls, its restore). */
    void ran(String name, Duration d) {
        ran.merge(name, d, Duration::plus);
    }

    /** Adds {@code d} to the time the check named {@code name} polled transient answers. */
    void waited(String name, Duration d) {
        if (!d.isZero()) {
            waited.merge(name, d, Duration::plus);
        }
    }

    /** How long the check named {@code name} ran; empty when it did not run in this session. */
    Optional<Duration> ran(String name) {
        return Optional.ofNullable(ran.get(name));
    }

    /** How long the check named {@code name} polled transient answers (zero when it polled none). */
    Duration waited(String name) {
        return waited.getOrDefault(name, Duration.ZERO);
    }
}
