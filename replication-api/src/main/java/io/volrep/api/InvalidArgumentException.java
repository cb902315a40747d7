package io.volrep.api;

/**
 * 3 INVALID_ARGUMENT: a required field is missing or a field is invalid. The message names the field.
 *
 * <pre>{@code
 * throw new InvalidArgumentException("replication_source.volume.volume_id: must not be empty");
 * }</pre>
 */
public class InvalidArgumentException extends ReplicationException {
    private static final long serialVersionUID = 1L;

    public InvalidArgumentException(String message) {
        this(message, null, 0, null);
    }

    public InvalidArgumentException(String message, Throwable cause) {
        this(message, null, 0, cause);
    }

    /** Full form, used by the runtime and the client to attribute the condition to an RPC. */
    public InvalidArgumentException(String message, Rpc rpc, int attempts, Throwable cause) {
        super(StatusCode.INVALID_ARGUMENT, message, rpc, attempts, cause);
    }
}
