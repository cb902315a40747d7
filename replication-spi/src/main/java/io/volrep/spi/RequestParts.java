package io.volrep.spi;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/** What the requests' constructors share: copying maps, reading the replication id. */
final class RequestParts {
    private RequestParts() {}

    /** An unmodifiable copy, in the given order; no null key or value. */
    static Map<String, String> copy(Map<String, String> map) {
        if (map.isEmpty()) {
            return Map.of();
        }
        Map<String, String> copy = new LinkedHashMap<>();
        map.forEach((k, v) -> copy.put(Objects.requireNonNull(k, "key"), Objects.requireNonNull(v, "value")));
        return Collections.unmodifiableMap(copy);
    }

    /** The spec's alpha {@code replication_id}: empty when not sent. */
    static Optional<String> replicationId(String replicationId) {
        return replicationId.isEmpty() ? Optional.empty() : Optional.of(replicationId);
    }
}
