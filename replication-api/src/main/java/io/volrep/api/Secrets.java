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
    /**
     * The shortest value {@link #scrub} replaces: masking a one- or two-character value everywhere would garble
     * ordinary words for nothing (such short values are no secrets anyway).
     */
    public static final int MIN_SCRUBBED_LENGTH = 3;

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
        values.forEach(
                (k, v) -> copy.put(Objects.requireNonNull(k, "secret key"), Objects.requireNonNull(v, "secret value")));
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

    /**
     * {@code text} with every occurrence of one of these secret values (of at least {@link #MIN_SCRUBBED_LENGTH}
     * characters) replaced by {@link #MASK}: for text that came from elsewhere (a driver's exception message, a
     * plugin's error description) before volrep writes it anywhere.
     *
     * <pre>{@code
     * Secrets.of(Map.of("password", "s3cret")).scrub("login failed for s3cret");   // "login failed for ***"
     * }</pre>
     *
     * @return the scrubbed text; null when {@code text} is null
     */
    public String scrub(String text) {
        if (text == null || values.isEmpty()) {
            return text;
        }
        String result = text;
        for (String value : values.values()) {
            if (value.length() >= MIN_SCRUBBED_LENGTH && result.contains(value)) {
                result = result.replace(value, MASK);
            }
        }
        return result;
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
