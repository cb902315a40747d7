package io.volrep.client;

import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * At most one call in flight per key (a replication source, or a volume id for NodeHealer); later calls wait
 * in a bounded FIFO queue. A lane exists only while a call for its key runs or waits, so memory does not grow
 * with the number of sources ever seen.
 */
final class SingleFlight {

    private static final class Lane {
        /** Created by the first call that has to wait: most lanes only ever hold their running call. */
        ArrayDeque<Runnable> waiting;
        /** The call {@link #HAND_OVER} took from {@link #waiting}; read by the releasing thread right after. */
        Runnable handedOver;

        int waitingCount() {
            return waiting == null ? 0 : waiting.size();
        }
    }

    /** Keeps a lane for its next waiting call (in {@link Lane#handedOver}), or frees it (null) when none waits. */
    private static final BiFunction<Object, Lane, Lane> HAND_OVER = (key, lane) -> {
        lane.handedOver = lane.waiting == null ? null : lane.waiting.poll();
        return lane.handedOver == null ? null : lane;
    };

    private final ConcurrentHashMap<Object, Lane> lanes = new ConcurrentHashMap<>();
    private final int maxQueued;
    private final Executor executor;

    SingleFlight(int maxQueued, Executor executor) {
        this.maxQueued = maxQueued;
        this.executor = executor;
    }

    /**
     * Runs {@code task} when no other task for {@code key} runs; {@code result} is the call's future: a task
     * whose result is already done (cancelled while waiting) is skipped. The slot is held until the task's
     * future completes; {@code afterRelease} runs once the slot is free or handed to the next waiting call, and
     * before that call starts (or at once when the queue is full), so that whoever waits for the call never
     * observes its own lane still held, and calls on one source are reported in the order they ran.
     */
    <T> void submit(
            Object key,
            ReplicationSource source,
            Rpc rpc,
            CompletableFuture<T> result,
            Supplier<CompletableFuture<?>> task,
            Runnable afterRelease) {
        // The common case, a source with nothing in flight, takes its lane without the queueing path's allocations
        // (the compute's reservation, the flags, the queued starter).
        if (lanes.putIfAbsent(key, new Lane()) == null) {
            start(key, result, task, afterRelease);
            return;
        }
        Runnable starter = () -> start(key, result, task, afterRelease);
        boolean[] runNow = {false};
        boolean[] overflow = {false};
        lanes.compute(key, (k, lane) -> {
            if (lane == null) {
                runNow[0] = true;
                return new Lane();
            }
            if (lane.waitingCount() >= maxQueued) {
                overflow[0] = true;
            } else {
                if (lane.waiting == null) {
                    lane.waiting = new ArrayDeque<>();
                }
                lane.waiting.add(starter);
            }
            return lane;
        });
        if (overflow[0]) {
            result.completeExceptionally(new CallQueueFullException(rpc, source, maxQueued));
            afterRelease.run();
        } else if (runNow[0]) {
            starter.run();
        }
    }

    private <T> void start(
            Object key, CompletableFuture<T> result, Supplier<CompletableFuture<?>> task, Runnable afterRelease) {
        if (result.isDone()) {
            releaseThenReport(key, afterRelease);
            return;
        }
        CompletableFuture<?> running;
        try {
            running = task.get();
        } catch (RuntimeException e) {
            result.completeExceptionally(e);
            releaseThenReport(key, afterRelease);
            return;
        }
        // The call's own future (a Cancellation.Hooked) runs this without a stage of its own.
        Cancellation.whenDone(running, () -> releaseThenReport(key, afterRelease));
    }

    /**
     * Frees the slot (or hands it to the next waiting call), reports this call ({@code afterRelease}), and only then
     * starts the next one: the next call can never finish, as its caller sees it, before this one.
     */
    private void releaseThenReport(Object key, Runnable afterRelease) {
        Runnable next = release(key);
        try {
            afterRelease.run();
        } finally {
            if (next != null) {
                // Not inline: keeps stacks flat when many queued calls were cancelled and finish at once.
                CallEngine.executeOrRun(executor, next);
            }
        }
    }

    /** Frees {@code key}'s slot, or keeps it for the next waiting call, which is returned (null when none). */
    private Runnable release(Object key) {
        // The releasing call holds the slot, so the lane is there and stays the same until this hand-over; a
        // constant function instead of a capturing lambda and an array per call.
        Lane lane = lanes.get(key);
        if (lane == null) {
            return null;
        }
        lanes.computeIfPresent(key, HAND_OVER);
        Runnable next = lane.handedOver;
        lane.handedOver = null;
        return next;
    }

    /** How many sources have a call running or waiting (for tests and metrics). */
    int activeSources() {
        return lanes.size();
    }
}
