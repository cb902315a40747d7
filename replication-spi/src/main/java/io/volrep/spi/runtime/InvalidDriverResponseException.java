package io.volrep.spi.runtime;

/**
 * Thrown by the runtime (never by drivers) when a driver's answer breaks the spec: a null info, a
 * {@code last_sync_time} outside protobuf's range, a negative byte count. Answered UNKNOWN
 * "driver returned an invalid response: ...".
 */
public final class InvalidDriverResponseException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public InvalidDriverResponseException(String message) {
        super(message);
    }
}
