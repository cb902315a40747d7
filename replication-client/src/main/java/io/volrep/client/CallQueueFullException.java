package io.volrep.client;

import io.volrep.api.OperationPendingException;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;

/**
 * The client's per-source queue is full: too many calls for one source are already waiting for the one in
 * flight. Raised at once, without a call (attempts 0); it is an "operation pending" condition (10 ABORTED,
 * recovery {@code BACKOFF}), so the caller may try again later.
 *
 * <pre>{@code
 * } catch (CallQueueFullException e) {
 *     requeueLater(e.source());
 * }
 * }</pre>
 */
public final class CallQueueFullException extends OperationPendingException {
    private static final long serialVersionUID = 1L;

    private final transient ReplicationSource source;

    CallQueueFullException(Rpc rpc, ReplicationSource source, int limit) {
        super(
                rpc.methodName() + " for " + source + " rejected: " + limit
                        + " calls for this source already wait for the call in flight (single-flight queue is full)",
                rpc,
                0,
                null);
        this.source = source;
    }

    /** The source whose queue is full. */
    public ReplicationSource source() {
        return source;
    }
}
