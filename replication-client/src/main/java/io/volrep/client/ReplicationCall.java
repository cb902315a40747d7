package io.volrep.client;

import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;

/**
 * One typed replication call being configured; {@link #call()} sends it and waits, {@link #callAsync()} sends it
 * without blocking. A call object may be sent more than once; each send is a new request.
 *
 * <pre>{@code
 * client.volume("pvc-1").disable().replicationId("rid-1").call();
 * CompletableFuture<Void> done = client.volume("pvc-1").demote().force().callAsync();
 * }</pre>
 *
 * @param <S> the concrete call type, for fluent chaining
 * @param <R> the call's result ({@link Void} for calls that only succeed or fail)
 */
public abstract class ReplicationCall<S extends ReplicationCall<S, R>, R> extends TypedCall<S, R> {
    final ReplicationSource source;
    String replicationId;

    ReplicationCall(CallEngine engine, ReplicationSource source, Rpc rpc) {
        super(engine, rpc);
        this.source = source;
    }

    /** The source it addresses. */
    public ReplicationSource source() {
        return source;
    }

    /**
     * Sets the (alpha) {@code replication_id}; at most 128 bytes. Not expressible in spec revision v0.1.0
     * ({@link UnsupportedByDialectException}).
     */
    public S replicationId(String replicationId) {
        this.replicationId = replicationId;
        return self();
    }

    @Override
    abstract RequestSpec spec();
}
