package io.volrep.spi;

import io.volrep.api.internal.Arguments;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * The time a driver has for one call: when its answer must be ready to still reach the caller. The runtime sets it on
 * every request ({@link DriverRequest#deadline()}) from the caller's gRPC deadline, less a margin for the answer to
 * travel (a tenth of the time left, between 0.1 and 1 s), and from the server's own limit
 * ({@link ReplicationServer.Builder#driverTimeout}), whichever ends first. A call with neither has
 * {@linkplain #none() no deadline}. The runtime does not stop a driver at its deadline (it cannot stop a thread); a
 * driver that waits on its storage bounds the wait with it, and answers a retryable
 * {@link io.volrep.api.UnavailableException} rather than work on for a caller that has given up.
 *
 * <pre>{@code
 * public void demote(DemoteRequest r) {
 *     Duration left = r.deadline().remaining(Duration.ofSeconds(30));   // never more than 30 s of our own
 *     if (!array.demote(r.source().id(), left)) {
 *         throw new UnavailableException("the array did not answer within " + left + "; retry");
 *     }
 * }
 * }</pre>
 *
 * <p>Measured on {@link System#nanoTime()}, so a change of the wall clock does not move it.
 */
public final class CallDeadline {
    /** What {@link #remaining()} answers without a deadline: about 292 years, still a valid {@code toNanos()}. */
    private static final Duration UNBOUNDED = Duration.ofNanos(Long.MAX_VALUE);

    private static final CallDeadline NONE = new CallDeadline(0, false);

    private final long deadlineNanos;
    private final boolean bounded;

    private CallDeadline(long deadlineNanos, boolean bounded) {
        this.deadlineNanos = deadlineNanos;
        this.bounded = bounded;
    }

    /** No deadline: neither the caller nor the server bounds the call. */
    public static CallDeadline none() {
        return NONE;
    }

    /**
     * A deadline {@code timeLeft} from now (zero: already expired), e.g. for a request built in a test.
     *
     * <pre>{@code
     * PromoteRequest r = PromoteRequest.builder().source(source).deadline(CallDeadline.after(Duration.ofSeconds(5))).build();
     * }</pre>
     */
    public static CallDeadline after(Duration timeLeft) {
        return new CallDeadline(
                System.nanoTime()
                        + Arguments.requireNotNegative("timeLeft", timeLeft).toNanos(),
                true);
    }

    /** True when the call has a deadline; false for {@link #none()}. */
    public boolean isBounded() {
        return bounded;
    }

    /** True once the deadline has passed (never without one). */
    public boolean isExpired() {
        return bounded && deadlineNanos - System.nanoTime() <= 0;
    }

    /**
     * The time left, never negative; without a deadline {@code Duration.ofNanos(Long.MAX_VALUE)} (about 292 years), so
     * that {@code remaining().toNanos()} never overflows.
     */
    public Duration remaining() {
        return bounded ? Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime())) : UNBOUNDED;
    }

    /**
     * The time left, at most {@code limit}: what to give a wait of one's own (a storage call, a process) that has its
     * own timeout.
     *
     * <pre>{@code
     * process.waitFor(r.deadline().remaining(Duration.ofSeconds(60)).toMillis(), TimeUnit.MILLISECONDS);
     * }</pre>
     */
    public Duration remaining(Duration limit) {
        Objects.requireNonNull(limit, "limit");
        Duration left = remaining();
        return left.compareTo(limit) < 0 ? left : limit;
    }

    /** {@code "none"}, or the time left, e.g. {@code "in 4.250 s"}. */
    @Override
    public String toString() {
        return bounded ? String.format(Locale.ROOT, "in %.3f s", remaining().toNanos() / 1e9) : "none";
    }
}
