package io.volrep.api;

/**
 * 2 UNKNOWN: an error the spec does not classify. Callers MUST study the logs before retrying.
 *
 * <pre>{@code
 * throw new UnknownErrorException("backend returned an unexpected answer");
 * }</pre>
 */
public class UnknownErrorException extends ReplicationException {
    private static final long serialVersionUID = 1L;

    public UnknownErrorException(String message) {
        this(message, null, 0, null);
    }

    public UnknownErrorException(String message, Throwable cause) {
        this(message, null, 0, cause);
    }

    /** Full form, used by the runtime and the client to attribute the condition to an RPC. */
    public UnknownErrorException(String message, Rpc rpc, int attempts, Throwable cause) {
        super(StatusCode.UNKNOWN, message, rpc, attempts, cause);
    }
}
