package io.volrep.spi;

import io.volrep.api.ReplicationSource;
import io.volrep.api.Secrets;
import java.util.Map;
import java.util.Optional;

/**
 * A {@code ResyncVolume} request, validated and normalized by the runtime before the driver sees it (see
 * {@link EnableRequest}); {@code toString} masks the secrets.
 *
 * <pre>{@code
 * public ResyncResult resync(ResyncRequest r) {
 *     return new ResyncResult(backend.resync(r.source().id(), r.force()).isComplete());
 * }
 * }</pre>
 *
 * @param source the secondary to resynchronize from the primary
 * @param parameters the storage class's opaque parameters (never secret), unmodifiable
 * @param secrets the credentials the orchestrator passed; masked in {@code toString}
 * @param replicationId the orchestrator's id of the replication, empty when not sent
 * @param force resync even when it discards local changes (the spec's {@code force})
 */
public record ResyncRequest(
        ReplicationSource source,
        Map<String, String> parameters,
        Secrets secrets,
        Optional<String> replicationId,
        boolean force) {
    public ResyncRequest {
        RequestParts.requireSourceAndSecrets(source, secrets);
        parameters = RequestParts.copy(parameters);
        replicationId = RequestParts.replicationId(replicationId);
    }

    /** A request for {@code source} with no parameters, secrets or replication id, not forced (handy in tests). */
    public static ResyncRequest of(ReplicationSource source) {
        return new ResyncRequest(source, Map.of(), Secrets.empty(), Optional.empty(), false);
    }
}
