package io.volrep.client;

import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentHashMap;

/**
 * At most one call in flight per key (a replication source, or a volume id for NodeHealer); later calls wait
 * in a bounded FIFO queue. A lane exists only while a call for its key runs or waits, so memory does not grow
 * with the number of sources ever seen.
 *
 * <pre>{@code
 * if (!flight.acquire(source, call::start)) { fail(new CallQueueFullException(...)); }
 * ...                                          // the call runs, then, once it is done:
 * Runnable next = flight.release(source);      // report the call first, then run next (if any)
 * }</pre>
 */
final class SingleFlight {

    /** A key's running call and those waiting behind it. */
    private static final class Lane {
        /** Created by the first call that has to wait: most lanes only ever hold their running call. */
        ArrayDeque<Runnable> waiting;

        int waitingCount() {
            return waiting == null ? 0 : waiting.size();
        }
    }

    private final ConcurrentHashMap<Object, Lane> lanes = new ConcurrentHashMap<>();
    private final int maxQueued;

    SingleFlight(int maxQueued) {
        this.maxQueued = maxQueued;
    }

    /**
     * Takes {@code key}'s slot for a call: runs {@code start} at once, on this thread, when no call for the key
     * holds it; else queues {@code start}, which {@link #release} hands the slot to in turn. False, with nothing
     * queued, when {@code maxQueued} calls wait already.
     */
    boolean acquire(Object key, Runnable start) {
        if (lanes.putIfAbsent(key, new Lane()) == null) {
            start.run(); // the common case: nothing in flight for the key
            return true;
        }
        boolean[] runNow = {false};
        boolean[] queued = {false};
        lanes.compute(key, (k, lane) -> {
            if (lane == null) {
                runNow[0] = true;
                return new Lane();
            }
            if (lane.waitingCount() < maxQueued) {
                if (lane.waiting == null) {
                    lane.waiting = new ArrayDeque<>();
                }
                lane.waiting.add(start);
                queued[0] = true;
            }
            return lane;
        });
        if (runNow[0]) {
            start.run();
        }
        return runNow[0] || queued[0];
    }

    /**
     * Frees {@code key}'s slot, or hands it to the next waiting call, whose start is returned (null when none waits):
     * the caller reports its own call first and runs it after, so that calls on one source finish, as their callers
     * see them, in the order they ran.
     */
    Runnable release(Object key) {
        Runnable[] next = {null};
        lanes.computeIfPresent(key, (k, lane) -> {
            next[0] = lane.waiting == null ? null : lane.waiting.poll();
            return next[0] == null ? null : lane;
        });
        return next[0];
    }

    /** How many sources have a call running or waiting (for tests and metrics). */
    int activeSources() {
        return lanes.size();
    }
}
