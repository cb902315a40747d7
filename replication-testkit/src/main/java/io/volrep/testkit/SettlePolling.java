package io.volrep.testkit;

import java.time.Duration;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Polls a call whose answer the tables allow to be transient (10 ABORTED, 14 UNAVAILABLE, Info's 5 "details not
 * available at the moment", a promote refused in the demotion window, Probe's "not ready yet") until it is not,
 * within the settle timeout ({@code --settle-timeout}), with pauses from {@value #FIRST_PAUSE_MILLIS} ms doubling up
 * to {@value #MAX_PAUSE_MILLIS} ms. The caller judges the last answer; nothing required is ever turned into a wait.
 */
final class SettlePolling {
    /** The first pause while a transient answer is polled; it doubles up to {@link #MAX_PAUSE_MILLIS}. */
    private static final long FIRST_PAUSE_MILLIS = 25;

    private static final long MAX_PAUSE_MILLIS = 1000;

    /** The last answer, how many times the call was sent again, and how long that took. */
    record Settled<T>(T last, int polls, Duration waited) {}

    private SettlePolling() {}

    /**
     * Sends {@code again} while {@code transientHere} holds for the last answer (starting with {@code first}), until
     * {@code timeout} has passed.
     */
    static <T> Settled<T> poll(Duration timeout, T first, Supplier<T> again, Predicate<T> transientHere) {
        if (!transientHere.test(first) || timeout.isZero()) {
            return new Settled<>(first, 0, Duration.ZERO);
        }
        long start = System.nanoTime();
        long deadline = start + timeout.toNanos();
        long pause = FIRST_PAUSE_MILLIS;
        int polls = 0;
        T o = first;
        while (transientHere.test(o) && System.nanoTime() - deadline < 0) {
            sleep(Math.max(1, Math.min(pause, (deadline - System.nanoTime()) / 1_000_000)));
            pause = Math.min(pause * 2, MAX_PAUSE_MILLIS);
            o = again.get();
            polls++;
        }
        return new Settled<>(o, polls, Duration.ofNanos(System.nanoTime() - start));
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a transient answer to settle", e);
        }
    }
}
