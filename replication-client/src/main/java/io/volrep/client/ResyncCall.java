package io.volrep.client;

import com.google.protobuf.Message;
import io.volrep.api.DeadlineExceededException;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * ResyncVolume. {@link #call()} sends it once (with retries) and returns whether the source is ready;
 * {@link #awaitReady(Duration)} repeats it until the plugin says {@code ready}.
 *
 * <pre>{@code
 * // asynchronous: no thread waits between polls
 * CompletableFuture<ResyncStatus> ready = client.volume("pvc-1").resync().awaitReady(Duration.ofMinutes(5));
 * // blocking
 * client.volume("pvc-1").resync().awaitReadyBlocking(Duration.ofMinutes(5));
 * }</pre>
 */
public final class ResyncCall extends ForceableCall<ResyncCall, ResyncStatus> {
    private PollListener pollListener = (poll, status, nextPoll) -> {};

    /**
     * Sees each answer {@link #awaitReady(Duration)} gets: the poll number (1 for the first), the status, and the
     * delay before the next poll (empty when no poll follows). Called on a client thread; must be quick.
     *
     * <pre>{@code
     * client.volume("pvc-1").resync()
     *         .onPoll((poll, status, next) -> log.info("poll {}: ready={}, next in {}", poll, status.ready(), next))
     *         .awaitReadyBlocking(Duration.ofMinutes(5));
     * }</pre>
     */
    @FunctionalInterface
    public interface PollListener {
        /** Called once per answered poll, before the next one is scheduled. */
        void onPoll(int poll, ResyncStatus status, Optional<Duration> nextPoll);
    }

    ResyncCall(CallEngine engine, ReplicationSource source) {
        super(engine, source, Rpc.RESYNC_VOLUME);
    }

    /** Reports each poll of {@link #awaitReady(Duration)} to {@code listener} (progress displays, logs). */
    public ResyncCall onPoll(PollListener listener) {
        this.pollListener = Objects.requireNonNull(listener, "listener");
        return this;
    }

    /**
     * Sends ResyncVolume until the plugin answers {@code ready = true}, waiting between polls with a capped
     * exponential back-off (the retry policy's initial back-off, multiplier and max back-off, no jitter). Each
     * poll is an ordinary call, retried per the policy. Never blocks a thread.
     *
     * <p>The future completes with the ready status; with {@link DeadlineExceededException} when the source is
     * not ready within {@code timeout}; with the call's exception when a poll fails. Cancelling it cancels
     * the poll in flight and stops polling.
     */
    public CompletableFuture<ResyncStatus> awaitReady(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        RetryPolicy p = policy != null ? policy : engine.settings().defaultPolicy();
        Instant deadline = p.clock().instant().plus(timeout);
        CompletableFuture<ResyncStatus> result = new CompletableFuture<>();
        AtomicReference<Future<?>> pending = new AtomicReference<>();
        CallEngine.onCancel(result, () -> {
            Future<?> inFlight = pending.get();
            if (inFlight != null) {
                inFlight.cancel(true);
            }
        });
        poll(p, deadline, timeout, new AtomicInteger(), result, pending);
        return result;
    }

    /**
     * {@link #awaitReady(Duration)}, waiting in the calling thread.
     *
     * @throws DeadlineExceededException when the source is not ready within {@code timeout}
     * @throws io.volrep.api.ReplicationException when a poll fails
     */
    public ResyncStatus awaitReadyBlocking(Duration timeout) {
        return await(awaitReady(timeout));
    }

    private void poll(
            RetryPolicy p,
            Instant deadline,
            Duration timeout,
            AtomicInteger polls,
            CompletableFuture<ResyncStatus> result,
            AtomicReference<Future<?>> pending) {
        if (result.isDone()) {
            return;
        }
        int n = polls.incrementAndGet();
        CompletableFuture<ResyncStatus> poll = callAsync();
        pending.set(poll);
        if (result.isDone()) {
            poll.cancel(true);
            return;
        }
        poll.whenComplete((status, failure) -> {
            if (failure != null) {
                result.completeExceptionally(CallEngine.unwrap(failure));
            } else if (status.ready()) {
                notifyPoll(n, status, null);
                result.complete(status);
            } else {
                RetryDecision next = RetryDecisions.pollAgain(
                        p, n, Duration.between(p.clock().instant(), deadline));
                notifyPoll(n, status, next instanceof RetryDecision.Retry r ? r.delay() : null);
                if (!(next instanceof RetryDecision.Retry again)) {
                    result.completeExceptionally(new DeadlineExceededException(
                            rpc.methodName() + " for " + source + " not ready within " + timeout + " (" + n
                                    + " poll(s))",
                            rpc,
                            n,
                            null));
                    return;
                }
                try {
                    pending.set(engine.settings()
                            .scheduler()
                            .schedule(
                                    () -> poll(p, deadline, timeout, polls, result, pending),
                                    again.delay().toMillis(),
                                    TimeUnit.MILLISECONDS));
                } catch (RejectedExecutionException closed) {
                    result.completeExceptionally(closed);
                }
                if (result.isCancelled()) {
                    pending.get().cancel(true);
                }
            }
        });
    }

    private void notifyPoll(int poll, ResyncStatus status, Duration nextPoll) {
        try {
            pollListener.onPoll(poll, status, Optional.ofNullable(nextPoll));
        } catch (RuntimeException ignored) {
            // a display must not break the wait it displays
        }
    }

    @Override
    ResyncStatus result(Message response, int attempts) {
        return new ResyncStatus(engine.settings().wire().resyncReady(response, attempts));
    }
}
