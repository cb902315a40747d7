package io.volrep.spi;

import io.volrep.api.ReplicationSource;
import io.volrep.api.Secrets;
import java.util.Map;
import java.util.Optional;

/**
 * An {@code EnableVolumeReplication} request, validated and normalized by the runtime before the driver sees
 * it: the source is always set (a request that carried only the deprecated {@code volume_id} arrives as a
 * volume source), maps are within CSI's limits, and {@code toString} masks the secrets.
 *
 * <pre>{@code
 * public void enable(EnableRequest r) {
 *     String mode = r.parameters().getOrDefault("mirroringMode", "snapshot");
 *     backend.enableMirroring(r.source().id(), mode, r.secrets().get("user").orElseThrow());
 * }
 * }</pre>
 *
 * @param source what to replicate
 * @param parameters the storage class's opaque parameters (never secret), unmodifiable
 * @param secrets the credentials the orchestrator passed; masked in {@code toString}
 * @param replicationId the orchestrator's id of the replication (the spec's alpha {@code replication_id}),
 *                      empty when not sent
 */
public record EnableRequest(
        ReplicationSource source, Map<String, String> parameters, Secrets secrets, Optional<String> replicationId) {
    public EnableRequest {
        RequestParts.requireSourceAndSecrets(source, secrets);
        parameters = RequestParts.copy(parameters);
        replicationId = RequestParts.replicationId(replicationId);
    }

    /** A request for {@code source} with no parameters, secrets or replication id (handy in tests). */
    public static EnableRequest of(ReplicationSource source) {
        return new EnableRequest(source, Map.of(), Secrets.empty(), Optional.empty());
    }
}
