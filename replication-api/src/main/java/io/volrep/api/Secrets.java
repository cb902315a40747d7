package io.volrep.api;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The secrets of a request: an immutable map whose {@code toString} shows keys, never values.
 *
 * <pre>{@code
 * Secrets secrets = Secrets.of(Map.of("user", "admin"));
 * secrets.toString();              // "Secrets[user=***]"
 * secrets.get("user");             // Optional[admin]
 * }</pre>
 */
public final class Secrets {
    /** What stands in for a secret value wherever volrep prints one. */
    public static final String MASK = "***";

    private static final Secrets EMPTY = new Secrets(Map.of());

    private final Map<String, String> values;

    private Secrets(Map<String, String> values) {
        this.values = values;
    }

    /** No secrets. */
    public static Secrets empty() {
        return EMPTY;
    }

    /** An immutable copy of {@code values}; keys and values must not be null. */
    public static Secrets of(Map<String, String> values) {
        Objects.requireNonNull(values, "values");
        if (values.isEmpty()) {
            return EMPTY;
        }
        Map<String, String> copy = new LinkedHashMap<>();
        values.forEach((k, v) -> copy.put(Objects.requireNonNull(k, "secret key"),
                Objects.requireNonNull(v, "secret value")));
        return new Secrets(Collections.unmodifiableMap(copy));
    }

    /** The value for {@code key}. */
    public Optional<String> get(String key) {
        return Optional.ofNullable(values.get(key));
    }

    /** The keys, in insertion order. */
    public Set<String> keys() {
        return values.keySet();
    }

    /** True when there are none. */
    public boolean isEmpty() {
        return values.isEmpty();
    }

    /** How many there are. */
    public int size() {
        return values.size();
    }

    /** The values, unmodifiable. For sending on the wire; never print it. */
    public Map<String, String> asMap() {
        return values;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Secrets other && values.equals(other.values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }

    /** Keys only, each value masked: {@code Secrets[password=***, user=***]}. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("Secrets[");
        String sep = "";
        for (String key : new TreeSet<>(values.keySet())) {
            sb.append(sep).append(key).append('=').append(MASK);
            sep = ", ";
        }
        return sb.append(']').toString();
    }
}
