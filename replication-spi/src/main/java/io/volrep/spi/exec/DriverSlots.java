package io.volrep.spi.exec;

import io.volrep.api.UnavailableException;
import io.volrep.spi.CallDeadline;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The exec bridge's admission control: at most {@code limit} driver processes at once, one slot each; fair, so that
 * the longest waiter goes first. A call waits for a slot until its request's deadline or until the driver timeout,
 * whichever comes first, and is refused with a retryable UNAVAILABLE when none frees in time.
 */
final class DriverSlots {
    private final int limit;
    private final Duration timeout;
    private final Semaphore slots;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicInteger waiting = new AtomicInteger();
    private final AtomicLong rejected = new AtomicLong();

    DriverSlots(int limit, Duration timeout) {
        this.limit = limit;
        this.timeout = timeout;
        this.slots = new Semaphore(limit, true);
    }

    /**
     * Waits for a driver slot until the call's deadline (which the runtime sets shortly before the caller's, see
     * {@link CallDeadline}) or until the timeout, whichever comes first: a caller rather gets a retryable UNAVAILABLE
     * it can act on than its own DEADLINE_EXCEEDED, and a call with a far deadline holds no server thread longer than
     * a driver may run. The slot is given back with {@link #release()}.
     *
     * @param who the driver and operation, as messages name them
     * @param deadline the request's deadline
     * @throws UnavailableException when no slot freed in time, or the driver was closed meanwhile
     */
    void admit(String who, CallDeadline deadline) throws InterruptedException {
        long wait = deadline.remaining(timeout).toNanos();
        boolean byDeadline = wait < timeout.toNanos();
        waiting.incrementAndGet();
        boolean admitted;
        try {
            admitted = slots.tryAcquire(Math.max(0, wait), TimeUnit.NANOSECONDS);
        } finally {
            waiting.decrementAndGet();
        }
        if (admitted && closed.get()) {
            slots.release();
            throw new UnavailableException(who + ": the driver was stopped (the server is shutting down)");
        }
        if (!admitted) {
            rejected.incrementAndGet();
            throw new UnavailableException(who + ": all " + limit + " driver slots are busy and none"
                    + " freed within " + Math.max(0, wait) / 1_000_000 + " ms ("
                    + (byDeadline
                            ? "shortly before the call's deadline"
                            : "the driver timeout (--timeout) ends before" + " the call's deadline")
                    + "); retry later"
                    + " (the bound is ExecDriver.Builder.maxConcurrentDrivers, serve-exec --max-concurrent-drivers)");
        }
    }

    /** Gives back the slot {@link #admit} took. */
    void release() {
        slots.release();
    }

    /**
     * Wakes every waiting call, which then sees the driver closed and is refused at once. Idempotent: true only for
     * the call that closed it.
     */
    boolean close() {
        if (closed.compareAndSet(false, true)) {
            slots.release(Integer.MAX_VALUE - limit);
            return true;
        }
        return false;
    }

    /** True once {@link #close()} was called. */
    boolean closed() {
        return closed.get();
    }

    /** The bound on concurrent driver processes. */
    int limit() {
        return limit;
    }

    /** Calls waiting for a slot now. */
    int waiting() {
        return waiting.get();
    }

    /** Calls refused because no slot freed in time, so far. */
    long rejected() {
        return rejected.get();
    }
}
