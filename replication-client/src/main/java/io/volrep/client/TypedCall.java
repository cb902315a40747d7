package io.volrep.client;

import com.google.protobuf.Message;
import io.volrep.api.InvalidArgumentException;
import io.volrep.api.ReplicationException;
import io.volrep.api.Rpc;
import io.volrep.api.Secrets;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * One typed call being configured, replication or NodeHealer: {@link #call()} sends it and waits,
 * {@link #callAsync()} sends it without blocking. Every call goes through the same validation, single-flight,
 * secrets and retry machinery. A call object may be sent more than once; each send is a new request.
 *
 * <pre>{@code
 * client.volume("pvc-1").demote().secrets(Map.of("user", "admin")).callAsync();
 * HealReport r = client.node().heal("vol-3", Path.of("/mnt/vol-3")).retryPolicy(patient).call();
 * }</pre>
 *
 * @param <S> the concrete call type, for fluent chaining
 * @param <R> the call's result ({@link Void} for calls that only succeed or fail)
 */
public abstract class TypedCall<S extends TypedCall<S, R>, R> {
    final CallEngine engine;
    final Rpc rpc;
    Secrets secretsOverride;
    RetryPolicy policy;

    TypedCall(CallEngine engine, Rpc rpc) {
        this.engine = engine;
        this.rpc = rpc;
    }

    @SuppressWarnings("unchecked")
    final S self() {
        return (S) this;
    }

    /** The RPC this call sends. */
    public Rpc rpc() {
        return rpc;
    }

    /**
     * Sends these secrets instead of the client's {@link SecretsProvider}'s; an UNAUTHENTICATED answer is then
     * surfaced, as there is nothing to renew.
     */
    public S secrets(Map<String, String> secrets) {
        this.secretsOverride = Secrets.of(Objects.requireNonNull(secrets, "secrets"));
        return self();
    }

    /** Retries this call under {@code policy} instead of the client's default. */
    public S retryPolicy(RetryPolicy policy) {
        this.policy = Objects.requireNonNull(policy, "policy");
        return self();
    }

    /**
     * Sends the call and waits for its outcome, retries included.
     *
     * @throws ReplicationException (the code's subclass) when the call failed; {@link InvalidArgumentException}
     *         with {@code attempts() == 0} when the request was invalid and never sent;
     *         {@link UnsupportedByDialectException} when the plugin's spec revision cannot express it
     */
    public R call() {
        // As grpc's blocking stub: the answer is processed on this thread, which waits for it anyway, instead of
        // being handed over from the client's executor.
        CallingThreadQueue queue = new CallingThreadQueue(engine.settings().executor());
        CompletableFuture<R> future = send(queue);
        try {
            queue.drainUntil(future);
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted while waiting for the call");
        }
        return await(future);
    }

    /**
     * Sends the call without blocking. The future completes with the result or a {@link ReplicationException};
     * cancelling it cancels the RPC in flight and every pending retry.
     */
    public CompletableFuture<R> callAsync() {
        return send(null);
    }

    private CompletableFuture<R> send(CallingThreadQueue queue) {
        try {
            // The engine's future is the caller's: it maps the response itself, so no stage (and no cancel hook of
            // its own) sits between the caller and the RPC.
            return engine.execute(spec(), queue, this::result);
        } catch (ReplicationException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    abstract CallSpec spec();

    /**
     * Adds {@code key=value} to {@code parameters} and returns this call: the one body of every call's
     * {@code parameter(key, value)} setter (neither may be null; the 4 KiB limit is checked before sending).
     */
    final S withParameter(Map<String, String> parameters, String key, String value) {
        if (key == null || value == null) {
            throw InvalidArgumentException.ofField("parameters", "keys and values must not be null", rpc, 0);
        }
        parameters.put(key, value);
        return self();
    }

    /** Adds every entry of {@code more} to {@code parameters}, as {@link #withParameter} does one. */
    final S withParameters(Map<String, String> parameters, Map<String, String> more) {
        if (more == null) {
            throw InvalidArgumentException.ofField("parameters", "must not be null", rpc, 0);
        }
        more.forEach((k, v) -> withParameter(parameters, k, v));
        return self();
    }

    abstract R result(Message response, int attempts);

    static <T> T await(CompletableFuture<T> future) {
        try {
            return future.get();
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted while waiting for the call");
        } catch (ExecutionException e) {
            Throwable cause = CallEngine.unwrap(e);
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
