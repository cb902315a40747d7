package io.volrep.spi;

import io.volrep.api.ReplicationSource;
import io.volrep.api.Secrets;

/**
 * A {@code GetReplicationDestinationInfo} request, validated by the runtime (source kind and id, secrets within
 * CSI's limits); {@code toString} masks the secrets. The request has no parameters and no replication id.
 *
 * <pre>{@code
 * public ReplicationDestination destination(DestinationRequest r) {
 *     return ReplicationDestination.volume(backend.mirror(r.source().id()).peerVolumeId());
 * }
 * }</pre>
 *
 * @param source the source whose destination is asked
 * @param secrets the credentials the orchestrator passed; masked in {@code toString}
 */
public record DestinationRequest(ReplicationSource source, Secrets secrets) {
    public DestinationRequest {
        RequestParts.requireSourceAndSecrets(source, secrets);
    }

    /** A request for {@code source} with no secrets (handy in tests). */
    public static DestinationRequest of(ReplicationSource source) {
        return new DestinationRequest(source, Secrets.empty());
    }
}
