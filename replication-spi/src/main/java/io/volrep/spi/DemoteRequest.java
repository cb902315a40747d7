package io.volrep.spi;

import io.volrep.api.ReplicationSource;
import io.volrep.api.Secrets;
import java.util.Map;
import java.util.Optional;

/**
 * A {@code DemoteVolume} request, validated and normalized by the runtime before the driver sees it (see
 * {@link EnableRequest}); {@code toString} masks the secrets.
 *
 * <pre>{@code
 * public void demote(DemoteRequest r) {
 *     backend.demote(r.source().id(), r.force());
 * }
 * }</pre>
 *
 * @param source the source to make secondary
 * @param parameters the storage class's opaque parameters (never secret), unmodifiable
 * @param secrets the credentials the orchestrator passed; masked in {@code toString}
 * @param replicationId the orchestrator's id of the replication, empty when not sent
 * @param force demote even when it cannot be done cleanly (the spec's {@code force})
 */
public record DemoteRequest(
        ReplicationSource source,
        Map<String, String> parameters,
        Secrets secrets,
        Optional<String> replicationId,
        boolean force) {
    public DemoteRequest {
        RequestParts.requireSourceAndSecrets(source, secrets);
        parameters = RequestParts.copy(parameters);
        replicationId = RequestParts.replicationId(replicationId);
    }

    /** A request for {@code source} with no parameters, secrets or replication id, not forced (handy in tests). */
    public static DemoteRequest of(ReplicationSource source) {
        return new DemoteRequest(source, Map.of(), Secrets.empty(), Optional.empty(), false);
    }
}
