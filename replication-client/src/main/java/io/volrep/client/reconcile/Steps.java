package io.volrep.client.reconcile;

import io.volrep.api.ReplicationException;
import io.volrep.api.StatusCode;
import io.volrep.api.internal.SafeText;
import io.volrep.client.RetryPolicy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The step machinery {@link Reconciler} and {@link Failover} share: send one typed call, record its outcome, and
 * continue with what its answer calls for; a call failure is a branch, never an exception.
 */
final class Steps {
    private Steps() {}

    /**
     * Sends one call; records {@code label: OK} or {@code label: <code>}, then continues with {@code onOk} or
     * {@code onFailure}. Only a failure that is no call failure (cancellation, a closed client) fails the future.
     */
    static <T, R> CompletableFuture<R> call(
            Consumer<String> record,
            String label,
            Supplier<CompletableFuture<T>> send,
            Function<T, CompletableFuture<R>> onOk,
            Function<ReplicationException, CompletableFuture<R>> onFailure) {
        CompletableFuture<T> sent;
        try {
            sent = send.get();
        } catch (ReplicationException e) {
            sent = CompletableFuture.failedFuture(e);
        }
        return sent.handle((value, t) -> {
                    if (t == null) {
                        record.accept(label + ": OK");
                        return onOk.apply(value);
                    }
                    ReplicationException e = callFailure(t);
                    record.accept(label + ": " + e.code().display());
                    return onFailure.apply(e);
                })
                .thenCompose(Function.identity());
    }

    /**
     * How {@link #callUntil} waits out answers that mean "not yet": which answers, for how long, with which back-off
     * between calls (the policy's capped exponential delays, no jitter, as a resync is polled), and who hears of each
     * wait.
     *
     * @param what    what is waited for, as the progress line says it ("site A's demotion to reach site B")
     * @param notYet  the answers that mean "not yet"
     * @param length  how long to wait, from the first call; no call starts after it
     * @param backoff whose delays separate the calls, and whose clock measures the wait
     * @param onWait  hears a line for each wait, e.g. {@code waiting for ...: PromoteVolume answered 9
     *                FAILED_PRECONDITION (try 2, again in 40ms; 0.1s of 2m)}
     */
    record Wait(
            String what,
            Predicate<ReplicationException> notYet,
            Duration length,
            RetryPolicy backoff,
            Consumer<String> onWait) {
        Wait {
            Objects.requireNonNull(what, "what");
            Objects.requireNonNull(notYet, "notYet");
            Objects.requireNonNull(length, "length");
            Objects.requireNonNull(backoff, "backoff");
            Objects.requireNonNull(onWait, "onWait");
        }

        Clock clock() {
            return backoff.clock();
        }
    }

    /**
     * {@link #call}, sent again while it answers what {@code wait} calls "not yet", within the wait's length (no call
     * starts after it; one that started runs to its own end). Continues with {@code onOk} at the first answer, with
     * {@code onFailure} at an answer that is not "not yet", and with {@code onGiveUp} (the last answer, the number of
     * calls) when the next call would start after the wait's end. No thread waits between calls.
     */
    static <T, R> CompletableFuture<R> callUntil(
            Consumer<String> record,
            String label,
            Supplier<CompletableFuture<T>> send,
            Wait wait,
            Function<T, CompletableFuture<R>> onOk,
            Function<ReplicationException, CompletableFuture<R>> onFailure,
            BiFunction<ReplicationException, Integer, CompletableFuture<R>> onGiveUp) {
        return callUntil(
                record,
                label,
                send,
                wait,
                onOk,
                onFailure,
                onGiveUp,
                wait.clock().instant(),
                1);
    }

    private static <T, R> CompletableFuture<R> callUntil(
            Consumer<String> record,
            String label,
            Supplier<CompletableFuture<T>> send,
            Wait wait,
            Function<T, CompletableFuture<R>> onOk,
            Function<ReplicationException, CompletableFuture<R>> onFailure,
            BiFunction<ReplicationException, Integer, CompletableFuture<R>> onGiveUp,
            Instant start,
            int tries) {
        return call(record, label, send, onOk, e -> {
            if (!wait.notYet().test(e)) {
                return onFailure.apply(e);
            }
            Duration waited = Duration.between(start, wait.clock().instant());
            Duration delay = wait.backoff().backoffCap(tries);
            if (waited.plus(delay).compareTo(wait.length()) >= 0) {
                return onGiveUp.apply(e, tries);
            }
            wait.onWait()
                    .accept("waiting for " + wait.what() + ": " + answered(e) + " (try " + tries + ", again in "
                            + duration(delay) + "; " + duration(waited) + " of " + duration(wait.length()) + ")");
            return CompletableFuture.supplyAsync(
                            () -> null, CompletableFuture.delayedExecutor(delay.toMillis(), TimeUnit.MILLISECONDS))
                    .thenCompose(
                            v -> callUntil(record, label, send, wait, onOk, onFailure, onGiveUp, start, tries + 1));
        });
    }

    /** {@code PromoteVolume answered 9 FAILED_PRECONDITION}. */
    static String answered(ReplicationException e) {
        return (e.rpc() == null ? "the call" : e.rpc().methodName()) + " answered "
                + e.code().display();
    }

    /**
     * {@code PromoteVolume answered 10 ABORTED: <message>; recovery: <text>}: the message escaped, and the recovery
     * that fits the answer unless the message names it already (the client's text of a 9 FAILED_PRECONDITION carries
     * its precondition).
     */
    static String answeredWithRecovery(ReplicationException e) {
        return answered(e) + ": " + SafeText.escape(e.getMessage())
                + (e.code() == StatusCode.FAILED_PRECONDITION ? "" : "; recovery: " + e.recoveryText());
    }

    /** A duration as the CLI's options take it: {@code 2m}, {@code 30s}, {@code 800ms}, {@code 1.5s}. */
    static String duration(Duration d) {
        long millis = d.toMillis();
        if (millis >= 60_000 && millis % 60_000 == 0) {
            return millis / 60_000 + "m";
        }
        if (millis % 1000 == 0 && millis > 0) {
            return millis / 1000 + "s";
        }
        return millis < 1000 ? millis + "ms" : String.format(Locale.ROOT, "%.1fs", millis / 1000.0);
    }

    /** The call failure behind {@code t}; anything else (cancellation, a closed client) is rethrown. */
    static ReplicationException callFailure(Throwable t) {
        Throwable cause = t;
        while (cause instanceof CompletionException || cause instanceof ExecutionException) {
            cause = cause.getCause();
        }
        if (cause instanceof ReplicationException e) {
            return e;
        }
        if (cause instanceof RuntimeException re) {
            throw re;
        }
        throw new CompletionException(cause);
    }

    /** {@code 9 FAILED_PRECONDITION: message} with the message escaped. */
    static String describe(ReplicationException e) {
        return e.code().display() + ": " + SafeText.escape(e.getMessage());
    }

    /** Waits for {@code future}, rethrowing its unchecked failure as it is. */
    static <T> T await(CompletableFuture<T> future, String what) {
        try {
            return future.get();
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted while " + what);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(cause);
        }
    }
}
