package io.volrep.client;

import com.google.protobuf.Message;
import io.volrep.api.CsiLimits;
import io.volrep.api.InvalidArgumentException;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.Secrets;
import io.volrep.api.VolumeCapability;
import io.volrep.api.internal.wire.WireMapping;
import io.volrep.proto.healer.NodeHealerRequest;
import java.util.Map;
import java.util.Optional;

/**
 * What one NodeHealer call sends. The spec revision of the replication service does not apply: the healer
 * service has one revision.
 */
record HealSpec(
        String volumeId,
        String volumePath,
        String stagingTargetPath,
        VolumeCapability capability,
        Map<String, String> volumeContext,
        Secrets secretsOverride,
        RetryPolicy policy)
        implements CallSpec {

    /** The healer serializes per volume id (the spec's "one call in flight per volume_id"). */
    record FlightKey(String volumeId) {}

    @Override
    public Rpc rpc() {
        return Rpc.NODE_HEALER;
    }

    /** The volume, so that {@link SecretsProvider}, {@link SourceVerifier} and events see what they know. */
    @Override
    public Optional<ReplicationSource> concerns() {
        return Optional.of(ReplicationSource.volume(volumeId));
    }

    @Override
    public Optional<Object> flightKey() {
        return Optional.of(new FlightKey(volumeId));
    }

    /**
     * {@code volume_id} REQUIRED within 128 bytes; {@code volume_path} REQUIRED and, like
     * {@code staging_target_path}, exempt from the 128-byte limit (the spec asks plugins for the OS maximum);
     * {@code staging_target_path} absolute when given; the maps within 4 KiB.
     */
    @Override
    public HealSpec validate(WireDialect wire) {
        CallSpec.checkFields(Rpc.NODE_HEALER, secretsOverride, () -> {
            CsiLimits.requireId("volume_id", volumeId);
            if (volumePath == null || volumePath.isEmpty()) {
                throw InvalidArgumentException.ofField("volume_path", "required field is missing or empty");
            }
            if (stagingTargetPath != null && !stagingTargetPath.isEmpty() && !stagingTargetPath.startsWith("/")) {
                throw InvalidArgumentException.ofField(
                        "staging_target_path", "must be an absolute path, got '" + stagingTargetPath + "'");
            }
            CsiLimits.requireMapWithinLimit("volume_context", volumeContext);
        });
        return this;
    }

    @Override
    public Message encode(WireDialect wire, Secrets secrets) {
        NodeHealerRequest.Builder b = NodeHealerRequest.newBuilder()
                .setVolumeId(volumeId)
                .setVolumePath(volumePath)
                .putAllSecrets(secrets.asMap())
                .putAllVolumeContext(volumeContext);
        if (stagingTargetPath != null) {
            b.setStagingTargetPath(stagingTargetPath);
        }
        if (capability != null) {
            b.setVolumeCapability(WireMapping.toProto(capability));
        }
        return b.build();
    }
}
