package io.volrep.client.reconcile;

import io.volrep.api.ReplicationException;
import io.volrep.api.SafeText;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The step machinery {@link Reconciler} and {@link Failover} share: send one typed call, record its outcome, and
 * continue with what its answer calls for; a call failure is a branch, never an exception.
 */
final class Steps {
    private Steps() {
    }

    /**
     * Sends one call; records {@code label: OK} or {@code label: <code>}, then continues with {@code onOk} or
     * {@code onFailure}. Only a failure that is no call failure (cancellation, a closed client) fails the future.
     */
    static <T, R> CompletableFuture<R> call(Consumer<String> record, String label, Supplier<CompletableFuture<T>> send,
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
        }).thenCompose(Function.identity());
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
