package io.volrep.api;

/**
 * 8 RESOURCE_EXHAUSTED: the plugin or the caller ran out of a resource (transport); retried with back-off.
 *
 * <pre>{@code
 * throw new ResourceExhaustedException("too many calls");
 * }</pre>
 */
public class ResourceExhaustedException extends ReplicationException {
    private static final long serialVersionUID = 1L;

    public ResourceExhaustedException(String message) {
        this(message, null, 0, null);
    }

    public ResourceExhaustedException(String message, Throwable cause) {
        this(message, null, 0, cause);
    }

    /** Full form, used by the runtime and the client to attribute the condition to an RPC. */
    public ResourceExhaustedException(String message, Rpc rpc, int attempts, Throwable cause) {
        super(StatusCode.RESOURCE_EXHAUSTED, message, rpc, attempts, cause);
    }
}
