package io.volrep.api;

/**
 * 10 ABORTED: an operation is already pending for the source.
 *
 * <pre>{@code
 * throw new OperationPendingException("operation pending for volume vol-1");
 * }</pre>
 */
public class OperationPendingException extends ReplicationException {
    private static final long serialVersionUID = 1L;

    public OperationPendingException(String message) {
        this(message, null, 0, null);
    }

    public OperationPendingException(String message, Throwable cause) {
        this(message, null, 0, cause);
    }

    /** Full form, used by the runtime and the client to attribute the condition to an RPC. */
    public OperationPendingException(String message, Rpc rpc, int attempts, Throwable cause) {
        super(StatusCode.ABORTED, message, rpc, attempts, cause);
    }
}
