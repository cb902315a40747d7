package io.volrep.api;

/**
 * The plugin answered in a way the spec forbids (an info response without {@code last_sync_time}, a
 * negative {@code last_sync_bytes}, ...). Never silently defaulted: the plugin has a bug.
 *
 * <pre>{@code
 * throw new ProtocolViolationException("last_sync_time is REQUIRED but missing", Rpc.GET_VOLUME_REPLICATION_INFO, 1);
 * }</pre>
 */
public class ProtocolViolationException extends UnknownErrorException {
    private static final long serialVersionUID = 1L;

    public ProtocolViolationException(String message, Rpc rpc, int attempts) {
        super(message, rpc, attempts, null);
    }
}
