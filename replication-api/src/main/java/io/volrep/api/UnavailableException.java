package io.volrep.api;

/**
 * 14 UNAVAILABLE: the plugin could not be reached (transport); retried with back-off.
 *
 * <pre>{@code
 * throw new UnavailableException("plugin is restarting");
 * }</pre>
 */
public class UnavailableException extends ReplicationException {
    private static final long serialVersionUID = 1L;

    public UnavailableException(String message) {
        this(message, null, 0, null);
    }

    public UnavailableException(String message, Throwable cause) {
        this(message, null, 0, cause);
    }

    /** Full form, used by the runtime and the client to attribute the condition to an RPC. */
    public UnavailableException(String message, Rpc rpc, int attempts, Throwable cause) {
        super(StatusCode.UNAVAILABLE, message, rpc, attempts, cause);
    }
}
