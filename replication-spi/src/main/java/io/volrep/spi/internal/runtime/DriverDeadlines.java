package io.volrep.spi.internal.runtime;

import io.grpc.Deadline;
import io.volrep.spi.CallDeadline;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The deadline the runtime gives a driver's request ({@link io.volrep.spi.DriverRequest#deadline()}): the caller's
 * gRPC deadline less a margin for the answer to travel back, or the server's own limit
 * ({@code ReplicationServer.Builder.driverTimeout}), whichever ends first; none when there is neither.
 *
 * <pre>{@code
 * CallDeadline d = DriverDeadlines.of(Context.current().getDeadline(), Duration.ofSeconds(30));
 * }</pre>
 */
final class DriverDeadlines {
    /**
     * Kept back from the caller's deadline, so that the answer reaches the caller before its deadline does: a tenth of
     * the time left, between these bounds.
     */
    static final Duration MIN_RESERVE = Duration.ofMillis(100);

    static final Duration MAX_RESERVE = Duration.ofSeconds(1);

    private DriverDeadlines() {}

    /**
     * @param callers the caller's deadline, or null when it set none
     * @param limit the server's own limit, or null for none
     */
    static CallDeadline of(Deadline callers, Duration limit) {
        if (callers == null) {
            return limit == null ? CallDeadline.none() : CallDeadline.after(limit);
        }
        long left = callers.timeRemaining(TimeUnit.NANOSECONDS);
        long reserve = Math.min(Math.max(left / 10, MIN_RESERVE.toNanos()), MAX_RESERVE.toNanos());
        long time = left - reserve;
        if (limit != null) {
            time = Math.min(time, limit.toNanos());
        }
        return CallDeadline.after(Duration.ofNanos(Math.max(0, time)));
    }
}
