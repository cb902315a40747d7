package io.volrep.client;

import com.google.protobuf.Message;
import io.volrep.api.InvalidArgumentException;
import io.volrep.api.ReplicationException;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.Secrets;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * One typed call being configured; {@link #call()} sends it and waits, {@link #callAsync()} sends it without
 * blocking. A call object may be sent more than once; each send is a new request.
 *
 * <pre>{@code
 * client.volume("pvc-1").disable().replicationId("rid-1").call();
 * CompletableFuture<Void> done = client.volume("pvc-1").demote().force().callAsync();
 * }</pre>
 *
 * @param <S> the concrete call type, for fluent chaining
 * @param <R> the call's result ({@link Void} for calls that only succeed or fail)
 */
public abstract class ReplicationCall<S extends ReplicationCall<S, R>, R> {
    final CallEngine engine;
    final ReplicationSource source;
    final Rpc rpc;
    String replicationId;
    Secrets secretsOverride;
    RetryPolicy policy;

    ReplicationCall(CallEngine engine, ReplicationSource source, Rpc rpc) {
        this.engine = engine;
        this.source = source;
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

    /** The source it addresses. */
    public ReplicationSource source() {
        return source;
    }

    /** Sets the (alpha) {@code replication_id}; at most 128 bytes. */
    public S replicationId(String replicationId) {
        this.replicationId = replicationId;
        return self();
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
     *         with {@code attempts() == 0} when the request was invalid and never sent
     */
    public R call() {
        return await(callAsync());
    }

    /**
     * Sends the call without blocking. The future completes with the result or a {@link ReplicationException};
     * cancelling it cancels the RPC in flight and every pending retry.
     */
    public CompletableFuture<R> callAsync() {
        CompletableFuture<CallEngine.Response> inner = engine.execute(spec());
        CompletableFuture<R> outer = inner.thenApply(r -> result(r.message(), r.attempts()));
        // thenApply's future does not pass cancellation upstream; the RPC must stop too.
        outer.whenComplete((v, t) -> {
            if (outer.isCancelled()) {
                inner.cancel(true);
            }
        });
        return outer;
    }

    abstract RequestSpec spec();

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
