package io.volrep.api;

import java.util.Arrays;

/**
 * The gRPC status codes, with their wire numbers, as the spec's error tables use them.
 *
 * <p>volrep's public API speaks in this enum so that callers and drivers never need a gRPC type:
 * <pre>{@code
 * if (e.code() == StatusCode.FAILED_PRECONDITION) { ... }
 * }</pre>
 */
public enum StatusCode {
    OK(0),
    CANCELLED(1),
    UNKNOWN(2),
    INVALID_ARGUMENT(3),
    DEADLINE_EXCEEDED(4),
    NOT_FOUND(5),
    ALREADY_EXISTS(6),
    PERMISSION_DENIED(7),
    RESOURCE_EXHAUSTED(8),
    FAILED_PRECONDITION(9),
    ABORTED(10),
    OUT_OF_RANGE(11),
    UNIMPLEMENTED(12),
    INTERNAL(13),
    UNAVAILABLE(14),
    DATA_LOSS(15),
    UNAUTHENTICATED(16);

    private static final StatusCode[] BY_VALUE = new StatusCode[17];

    static {
        Arrays.stream(values()).forEach(c -> BY_VALUE[c.value] = c);
    }

    private final int value;

    StatusCode(int value) {
        this.value = value;
    }

    /** The code's number on the wire, e.g. {@code 9} for FAILED_PRECONDITION. */
    public int value() {
        return value;
    }

    /** The code for a wire number; numbers gRPC does not define map to {@link #UNKNOWN}, as gRPC does. */
    public static StatusCode fromValue(int value) {
        return value >= 0 && value < BY_VALUE.length ? BY_VALUE[value] : UNKNOWN;
    }

    /** How the spec's tables write the code, e.g. {@code "9 FAILED_PRECONDITION"}. */
    public String display() {
        return value + " " + name();
    }
}
