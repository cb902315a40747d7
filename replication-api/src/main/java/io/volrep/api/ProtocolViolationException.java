package io.volrep.api;

import java.util.Optional;

/**
 * The plugin answered in a way the spec forbids (an info response without {@code last_sync_time}, a
 * negative {@code last_sync_bytes}, a destination id over CSI's 128 bytes, ...). Never silently defaulted: the plugin
 * has a bug. {@link #field()} names the answer's field when the rules of an answer message were broken.
 *
 * <pre>{@code
 * try {
 *     client.volume("pvc-1").info();
 * } catch (ProtocolViolationException e) {
 *     log.error("plugin bug in {}: {}", e.field().orElse("the call"), e.getMessage());
 * }
 * }</pre>
 */
public class ProtocolViolationException extends UnknownErrorException {
    private static final long serialVersionUID = 1L;

    private final String field;

    /** A violation of the protocol as a whole (no single field is at fault). */
    public ProtocolViolationException(String message, Rpc rpc, int attempts) {
        this(message, rpc, attempts, null);
    }

    /**
     * A violation by the answer's field {@code field} (its path in the answer message, e.g.
     * {@code replication_destination.volume.volume_id}); the message says what is wrong with it.
     */
    public ProtocolViolationException(String message, Rpc rpc, int attempts, String field) {
        super(message, rpc, attempts, null);
        this.field = field;
    }

    /** The answer's field at fault, as a path ({@code last_sync_time.seconds}); empty when no single field is. */
    public Optional<String> field() {
        return Optional.ofNullable(field);
    }
}
