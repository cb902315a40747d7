package io.volrep.spi;

import io.volrep.api.ReplicationSource;
import io.volrep.api.Secrets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/** Shared checks of the request records' compact constructors. */
final class RequestParts {
    private RequestParts() {}

    /** Every replication.Controller request names its source and carries the orchestrator's secrets. */
    static void requireSourceAndSecrets(ReplicationSource source, Secrets secrets) {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(secrets, "secrets");
    }

    /** Every volumegroup.Controller request on an existing group names it and carries the orchestrator's secrets. */
    static void requireGroupAndSecrets(String volumeGroupId, Secrets secrets) {
        Objects.requireNonNull(volumeGroupId, "volumeGroupId");
        Objects.requireNonNull(secrets, "secrets");
    }

    static Map<String, String> copy(Map<String, String> parameters) {
        Objects.requireNonNull(parameters, "parameters");
        if (parameters.isEmpty()) {
            return Map.of();
        }
        Map<String, String> copy = new LinkedHashMap<>();
        parameters.forEach((k, v) ->
                copy.put(Objects.requireNonNull(k, "parameter key"), Objects.requireNonNull(v, "parameter value")));
        return Collections.unmodifiableMap(copy);
    }

    static Optional<String> replicationId(Optional<String> replicationId) {
        Objects.requireNonNull(replicationId, "replicationId (use Optional.empty())");
        return replicationId.filter(id -> !id.isEmpty());
    }
}
