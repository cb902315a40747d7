package io.volrep.spi;

import io.volrep.api.ReplicationSource;
import io.volrep.api.Secrets;
import java.util.Optional;

/**
 * A {@code GetVolumeReplicationInfo} request, validated and normalized by the runtime (see
 * {@link EnableRequest}); {@code toString} masks the secrets.
 *
 * <pre>{@code
 * public ReplicationInfo info(InfoRequest r) {
 *     Mirror m = backend.mirror(r.source().id());
 *     return ReplicationInfo.of(m.lastSync()).withLastSyncBytes(m.bytes());
 * }
 * }</pre>
 *
 * @param source the source to describe
 * @param secrets the credentials the orchestrator passed; masked in {@code toString}
 * @param replicationId the orchestrator's id of the replication, empty when not sent
 */
public record InfoRequest(ReplicationSource source, Secrets secrets, Optional<String> replicationId) {
    public InfoRequest {
        RequestParts.requireSourceAndSecrets(source, secrets);
        replicationId = RequestParts.replicationId(replicationId);
    }

    /** A request for {@code source} with no secrets or replication id (handy in tests). */
    public static InfoRequest of(ReplicationSource source) {
        return new InfoRequest(source, Secrets.empty(), Optional.empty());
    }
}
