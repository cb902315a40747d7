package io.volrep.ceph;

import io.volrep.api.UnavailableException;
import io.volrep.spi.CallDeadline;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The time one RPC may spend talking to Ceph: the driver's per-call timeout, or less when the request's deadline (the
 * caller's, less the runtime's margin for the answer) comes sooner, minus a reserve of its own: a mutation still
 * running when the budget ends is handed to the background and the caller answered, which on a loaded machine takes
 * more than the runtime's margin. Every Ceph call of the RPC gets what is left of it. It also holds what the RPC has read (an image's
 * role, its snapshots, ...): read once per RPC and shared within it, never across RPCs ({@link #read}).
 *
 * <pre>{@code
 * CallBudget budget = CallBudget.within(request.deadline(), Duration.ofSeconds(30));
 * Duration left = budget.remaining();
 * }</pre>
 */
final class CallBudget {
    /** Kept back from the request's deadline, for answering: a fifth of the time left, between these bounds. */
    private static final Duration MIN_RESERVE = Duration.ofSeconds(1);

    private static final Duration MAX_RESERVE = Duration.ofSeconds(3);

    private final long deadlineNanos;
    private final Duration total;
    private final Map<String, Object> reads;

    private CallBudget(Duration total, Map<String, Object> reads) {
        this.total = total;
        this.deadlineNanos = System.nanoTime() + total.toNanos();
        this.reads = reads;
    }

    private CallBudget(Duration total) {
        this(total, new ConcurrentHashMap<>());
    }

    /** The budget of an RPC whose request has {@code deadline}: {@code timeout}, or less if the deadline is sooner. */
    static CallBudget within(CallDeadline deadline, Duration timeout) {
        long budget = timeout.toNanos();
        if (deadline.isBounded()) {
            long left = deadline.remaining().toNanos();
            long reserve = Math.min(Math.max(left / 5, MIN_RESERVE.toNanos()), MAX_RESERVE.toNanos());
            budget = Math.min(budget, left - reserve);
        }
        return new CallBudget(Duration.ofNanos(Math.max(0, budget)));
    }

    /** A fixed budget (the readiness check, tests). */
    static CallBudget of(Duration total) {
        return new CallBudget(total);
    }

    /** The whole budget, for messages. */
    Duration total() {
        return total;
    }

    /** What is left; never negative. */
    Duration remaining() {
        return Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime()));
    }

    /** What is left, at most {@code cap}: a bounded side question (the peer site) within the RPC's budget. */
    CallBudget capped(Duration cap) {
        Duration left = remaining();
        return new CallBudget(left.compareTo(cap) < 0 ? left : cap, reads);
    }

    /**
     * What {@code key} (e.g. {@code "site-a snapshots vol-0"}) read earlier in this RPC, else {@code read}'s answer,
     * kept for the rest of the RPC. A failure is not kept.
     */
    @SuppressWarnings("unchecked")
    <T> T read(String key, Supplier<T> read) {
        Object known = reads.get(key);
        if (known != null) {
            return (T) known;
        }
        T value = read.get();
        reads.put(key, value);
        return value;
    }

    /** Forgets what this RPC read about image {@code id} on {@code site}: it has just changed it. */
    void changed(String site, String id) {
        reads.keySet().removeIf(k -> k.startsWith(site + " ") && k.endsWith(" " + id));
    }

    /** Forgets what this RPC read about image {@code id} on every site: it looks again after a wait. */
    void forget(String id) {
        reads.keySet().removeIf(k -> k.endsWith(" " + id));
    }

    /** The time left, for a wait: what is left, at least nothing. */
    long remainingNanos() {
        return Math.max(0, deadlineNanos - System.nanoTime());
    }

    /** Fails with UNAVAILABLE (retryable) when less than {@code needed} is left for the next command. */
    void require(Duration needed, String site) {
        if (remaining().compareTo(needed) < 0) {
            throw new UnavailableException(
                    site + ": no time left within the call's budget of " + seconds(total) + " to ask Ceph; retry");
        }
    }

    static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0
                ? d.toSeconds() + " s"
                : String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
    }
}
