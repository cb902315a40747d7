package io.volrep.api;

import io.grpc.Status;
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
    OK,
    CANCELLED,
    UNKNOWN,
    INVALID_ARGUMENT,
    DEADLINE_EXCEEDED,
    NOT_FOUND,
    ALREADY_EXISTS,
    PERMISSION_DENIED,
    RESOURCE_EXHAUSTED,
    FAILED_PRECONDITION,
    ABORTED,
    OUT_OF_RANGE,
    UNIMPLEMENTED,
    INTERNAL,
    UNAVAILABLE,
    DATA_LOSS,
    UNAUTHENTICATED;

    private static final StatusCode[] BY_VALUE = new StatusCode[17];

    static {
        Arrays.stream(values()).forEach(c -> BY_VALUE[c.value] = c);
    }

    /** gRPC's number for the code of the same name: the numbers are gRPC's, not restated here. */
    private final int value = Status.Code.valueOf(name()).value();

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
