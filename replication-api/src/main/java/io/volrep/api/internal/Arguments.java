package io.volrep.api.internal;

import java.time.Duration;
import java.util.Objects;

/**
 * The argument checks volrep's builders share, so that every setter rejects a bad value with the same kind of
 * message naming the setting: {@link NullPointerException} with the setting's name for {@code null},
 * {@link IllegalArgumentException} {@code "<name> must ...: <value>"} for a value out of range.
 *
 * <pre>{@code
 * public Builder timeout(Duration timeout) {
 *     this.timeout = Arguments.requirePositive("timeout", timeout);   // "timeout must be positive: PT0S"
 *     return this;
 * }
 * }</pre>
 */
public final class Arguments {
    private Arguments() {}

    /**
     * Checks a duration that must be longer than zero.
     *
     * @return {@code value}
     * @throws NullPointerException naming {@code name} when {@code value} is null
     * @throws IllegalArgumentException {@code "<name> must be positive: <value>"} when it is zero or negative
     */
    public static Duration requirePositive(String name, Duration value) {
        Objects.requireNonNull(value, name);
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive: " + value);
        }
        return value;
    }

    /**
     * Checks a duration that may be zero but not negative.
     *
     * @return {@code value}
     * @throws NullPointerException naming {@code name} when {@code value} is null
     * @throws IllegalArgumentException {@code "<name> must not be negative: <value>"} when it is negative
     */
    public static Duration requireNotNegative(String name, Duration value) {
        Objects.requireNonNull(value, name);
        if (value.isNegative()) {
            throw new IllegalArgumentException(name + " must not be negative: " + value);
        }
        return value;
    }

    /**
     * Checks a count or size that may be zero but not negative.
     *
     * @return {@code value}
     * @throws IllegalArgumentException {@code "<name> must not be negative: <value>"} when it is negative
     */
    public static long requireNotNegative(String name, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(name + " must not be negative: " + value);
        }
        return value;
    }

    /**
     * Checks a count with a lower bound, e.g. a parallelism of at least 1.
     *
     * @return {@code value}
     * @throws IllegalArgumentException {@code "<name> must be at least <min>: <value>"} when it is smaller
     */
    public static int requireAtLeast(String name, int value, int min) {
        if (value < min) {
            throw new IllegalArgumentException(name + " must be at least " + min + ": " + value);
        }
        return value;
    }

    /**
     * Checks that none of a record's components is null, naming the first that is: one line instead of one
     * {@link Objects#requireNonNull(Object, String)} a component.
     *
     * <pre>{@code
     * public record Row(Rpc rpc, String condition) {
     *     public Row {
     *         Arguments.requireNonNull("rpc", rpc, "condition", condition);   // NPE "condition" when it is null
     *     }
     * }
     * }</pre>
     *
     * @param namesAndValues pairs of a component's name and its value
     * @throws NullPointerException with the first null component's name as its message
     * @throws IllegalArgumentException when {@code namesAndValues} is not pairs of a name and a value
     */
    public static void requireNonNull(Object... namesAndValues) {
        if (namesAndValues.length % 2 != 0) {
            throw new IllegalArgumentException(
                    "namesAndValues must be pairs of a name and a value: " + namesAndValues.length + " arguments");
        }
        for (int i = 0; i < namesAndValues.length; i += 2) {
            if (!(namesAndValues[i] instanceof String name)) {
                throw new IllegalArgumentException("namesAndValues[" + i + "] must be a component's name");
            }
            Objects.requireNonNull(namesAndValues[i + 1], name);
        }
    }
}
