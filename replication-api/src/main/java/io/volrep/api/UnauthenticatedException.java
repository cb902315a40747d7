package io.volrep.api;

/**
 * 16 UNAUTHENTICATED: the request does not carry valid secrets.
 *
 * <pre>{@code
 * throw new UnauthenticatedException("secrets are not valid");
 * }</pre>
 */
public class UnauthenticatedException extends ReplicationException {
    private static final long serialVersionUID = 1L;

    public UnauthenticatedException(String message) {
        this(message, null, 0, null);
    }

    public UnauthenticatedException(String message, Throwable cause) {
        this(message, null, 0, cause);
    }

    /** Full form, used by the runtime and the client to attribute the condition to an RPC. */
    public UnauthenticatedException(String message, Rpc rpc, int attempts, Throwable cause) {
        super(StatusCode.UNAUTHENTICATED, message, rpc, attempts, cause);
    }
}
