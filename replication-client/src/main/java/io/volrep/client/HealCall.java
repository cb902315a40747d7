package io.volrep.client;

import com.google.protobuf.Message;
import io.volrep.api.HealReport;
import io.volrep.api.InvalidArgumentException;
import io.volrep.api.Rpc;
import io.volrep.api.VolumeCapability;
import io.volrep.api.internal.wire.WireMapping;
import io.volrep.proto.healer.NodeHealerResponse;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * NodeHealer ({@code healer.HealerNode}, seed 002): asks the node plugin to check, and possibly heal, a staged
 * or published volume. The answer is a {@link HealReport}; a response without the REQUIRED message fails with
 * {@link io.volrep.api.ProtocolViolationException}.
 *
 * <pre>{@code
 * HealReport report = client.node().heal("vol-3", Path.of("/var/lib/kubelet/pods/p/volumes/vol-3"))
 *         .stagingPath(Path.of("/var/lib/kubelet/plugins/staging/vol-3"))
 *         .capability(VolumeCapability.mount("ext4", AccessMode.SINGLE_NODE_WRITER))
 *         .context("pool", "replicapool")
 *         .call();
 * if (report.abnormal()) { alert(report.message()); }
 * }</pre>
 *
 * <p>Checked before sending (InvalidArgumentException naming the field, {@code attempts() == 0}):
 * {@code volume_id} present and at most 128 bytes; {@code volume_path} present (no 128-byte limit: the spec
 * exempts both paths, a 4096-byte path is sent as is); {@code staging_target_path} absolute when given;
 * {@code volume_context} and secrets within 4 KiB. Retries follow the NodeHealer rows of the error scheme, and
 * at most one NodeHealer call per volume id is in flight. Secrets come from the client's {@link SecretsProvider}
 * for {@code ReplicationSource.volume(volumeId)} unless {@link #secrets} overrides them; a NOT_FOUND answer is
 * retried only when the {@link SourceVerifier} approves that volume.
 */
public final class HealCall extends TypedCall<HealCall, HealReport> {
    private final String volumeId;
    private final String volumePath;
    private String stagingPath;
    private VolumeCapability capability;
    private final Map<String, String> context = new LinkedHashMap<>();

    HealCall(CallEngine engine, String volumeId, Path volumePath) {
        super(engine, Rpc.NODE_HEALER);
        this.volumeId = volumeId;
        this.volumePath = volumePath == null ? null : volumePath.toString();
    }

    /** The volume id the call sends. */
    public String volumeId() {
        return volumeId;
    }

    /** Sets {@code staging_target_path} (for plugins with STAGE_UNSTAGE_VOLUME); must be absolute. */
    public HealCall stagingPath(Path stagingPath) {
        this.stagingPath = Objects.requireNonNull(stagingPath, "stagingPath").toString();
        return this;
    }

    /** Sets {@code volume_capability}: lets the plugin skip file-system checks for block volumes. */
    public HealCall capability(VolumeCapability capability) {
        this.capability = Objects.requireNonNull(capability, "capability");
        return this;
    }

    /** Adds one {@code volume_context} entry (as CreateVolume returned it); together at most 4 KiB. */
    public HealCall context(String key, String value) {
        if (key == null || value == null) {
            throw InvalidArgumentException.ofField("volume_context", "keys and values must not be null", rpc, 0);
        }
        context.put(key, value);
        return this;
    }

    /** Adds every entry of {@code volumeContext}. */
    public HealCall context(Map<String, String> volumeContext) {
        if (volumeContext == null) {
            throw InvalidArgumentException.ofField("volume_context", "must not be null", rpc, 0);
        }
        volumeContext.forEach(this::context);
        return this;
    }

    @Override
    HealSpec spec() {
        return new HealSpec(
                volumeId, volumePath, stagingPath, capability, Map.copyOf(context), secretsOverride, policy);
    }

    @Override
    HealReport result(Message response, int attempts) {
        return WireMapping.fromProto((NodeHealerResponse) response, attempts);
    }
}
