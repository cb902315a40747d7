package io.volrep.api;

import java.util.Objects;
import java.util.Optional;

/**
 * 3 INVALID_ARGUMENT: a required field is missing or a field is invalid. The message names the field, and so does
 * {@link #field()} when whoever raised it said which field (the SPI runtime's and the client's own validation always
 * do; an answer read off the wire or a driver's own exception may not).
 *
 * <pre>{@code
 * throw InvalidArgumentException.ofField("replication_source.volume.volume_id", "must not be empty");
 * }</pre>
 */
public class InvalidArgumentException extends ReplicationException {
    private static final long serialVersionUID = 1L;

    private final String field;

    public InvalidArgumentException(String message) {
        this(message, null, 0, null);
    }

    public InvalidArgumentException(String message, Throwable cause) {
        this(message, null, 0, cause);
    }

    /** Full form, used by the runtime and the client to attribute the condition to an RPC. */
    public InvalidArgumentException(String message, Rpc rpc, int attempts, Throwable cause) {
        this(message, rpc, attempts, cause, null);
    }

    private InvalidArgumentException(String message, Rpc rpc, int attempts, Throwable cause, String field) {
        super(StatusCode.INVALID_ARGUMENT, message, rpc, attempts, cause);
        this.field = field;
    }

    /**
     * The request's field {@code field} is invalid: the message is {@code field + ": " + problem}.
     *
     * @param field the field's path in the request, e.g. {@code parameters}; never a value (it may become a metric
     *              tag)
     */
    public static InvalidArgumentException ofField(String field, String problem) {
        return ofField(field, problem, null, 0);
    }

    /** {@link #ofField(String, String)} attributed to {@code rpc} after {@code attempts} calls. */
    public static InvalidArgumentException ofField(String field, String problem, Rpc rpc, int attempts) {
        return new InvalidArgumentException(
                field + ": " + problem, rpc, attempts, null, Objects.requireNonNull(field, "field"));
    }

    /** The request's field at fault, as a path ({@code replication_source.volume.volume_id}); empty when not known. */
    public Optional<String> field() {
        return Optional.ofNullable(field);
    }
}
