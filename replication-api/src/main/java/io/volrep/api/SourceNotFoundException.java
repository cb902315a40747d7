package io.volrep.api;

/**
 * 5 NOT_FOUND: the replication source (or, for NodeHealer, the volume) does not exist.
 *
 * <pre>{@code
 * throw new SourceNotFoundException("volume vol-9 does not exist");
 * }</pre>
 */
public class SourceNotFoundException extends ReplicationException {
    private static final long serialVersionUID = 1L;

    public SourceNotFoundException(String message) {
        this(message, null, 0, null);
    }

    public SourceNotFoundException(String message, Throwable cause) {
        this(message, null, 0, cause);
    }

    /** Full form, used by the runtime and the client to attribute the condition to an RPC. */
    public SourceNotFoundException(String message, Rpc rpc, int attempts, Throwable cause) {
        super(StatusCode.NOT_FOUND, message, rpc, attempts, cause);
    }
}
