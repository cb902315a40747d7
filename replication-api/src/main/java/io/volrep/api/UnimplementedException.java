package io.volrep.api;

/**
 * 12 UNIMPLEMENTED: the plugin does not implement the RPC. Callers MUST NOT retry.
 *
 * <pre>{@code
 * throw new UnimplementedException("resync is not supported");
 * }</pre>
 */
public class UnimplementedException extends ReplicationException {
    private static final long serialVersionUID = 1L;

    public UnimplementedException(String message) {
        this(message, null, 0, null);
    }

    public UnimplementedException(String message, Throwable cause) {
        this(message, null, 0, cause);
    }

    /** Full form, used by the runtime and the client to attribute the condition to an RPC. */
    public UnimplementedException(String message, Rpc rpc, int attempts, Throwable cause) {
        super(StatusCode.UNIMPLEMENTED, message, rpc, attempts, cause);
    }
}
