package io.volrep.spi;

import io.volrep.api.ReplicationSource;
import io.volrep.api.Secrets;
import java.util.Map;
import java.util.Optional;

/**
 * A {@code PromoteVolume} request, validated and normalized by the runtime before the driver sees it (see
 * {@link EnableRequest}); {@code toString} masks the secrets.
 *
 * <pre>{@code
 * public void promote(PromoteRequest r) {
 *     backend.promote(r.source().id(), r.force());
 * }
 * }</pre>
 *
 * @param source the source to make primary
 * @param parameters the storage class's opaque parameters (never secret), unmodifiable
 * @param secrets the credentials the orchestrator passed; masked in {@code toString}
 * @param replicationId the orchestrator's id of the replication, empty when not sent
 * @param force promote even when the current primary cannot be reached to demote it (the spec's {@code force})
 */
public record PromoteRequest(
        ReplicationSource source,
        Map<String, String> parameters,
        Secrets secrets,
        Optional<String> replicationId,
        boolean force) {
    public PromoteRequest {
        RequestParts.requireSourceAndSecrets(source, secrets);
        parameters = RequestParts.copy(parameters);
        replicationId = RequestParts.replicationId(replicationId);
    }

    /** A request for {@code source} with no parameters, secrets or replication id, not forced (handy in tests). */
    public static PromoteRequest of(ReplicationSource source) {
        return new PromoteRequest(source, Map.of(), Secrets.empty(), Optional.empty(), false);
    }
}
