package io.volrep.api;

/**
 * 4 DEADLINE_EXCEEDED: the call did not finish in time (transport); retried with back-off.
 *
 * <pre>{@code
 * throw new DeadlineExceededException("call timed out after 60s");
 * }</pre>
 */
public class DeadlineExceededException extends ReplicationException {
    private static final long serialVersionUID = 1L;

    public DeadlineExceededException(String message) {
        this(message, null, 0, null);
    }

    public DeadlineExceededException(String message, Throwable cause) {
        this(message, null, 0, cause);
    }

    /** Full form, used by the runtime and the client to attribute the condition to an RPC. */
    public DeadlineExceededException(String message, Rpc rpc, int attempts, Throwable cause) {
        super(StatusCode.DEADLINE_EXCEEDED, message, rpc, attempts, cause);
    }
}
