package io.volrep.spi;

import io.volrep.api.Secrets;
import io.volrep.api.VolumeCapability;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@code NodeHealer} request, validated by the runtime before the driver sees it: {@code volumeId} is a
 * non-empty CSI id (at most 128 bytes), {@code volumePath} is non-empty, {@code stagingTargetPath} is absolute
 * when present, both paths are at most {@link #MAX_PATH_BYTES} bytes (the spec exempts them from CSI's 128-byte
 * limit), the maps are within 4 KiB, and {@code toString} masks the secrets.
 *
 * <p>Paths are strings, exactly as the orchestrator sent them: they name places in the node plugin's mount
 * namespace, which need not be this JVM's.
 *
 * <pre>{@code
 * public HealReport heal(HealRequest r) {
 *     boolean block = r.capability().map(c -> c.accessType() == VolumeCapability.AccessType.BLOCK).orElse(false);
 *     return block ? HealReport.healthy("block volume: nothing to check") : checkFileSystem(r.volumePath());
 * }
 * }</pre>
 *
 * @param volumeId the volume's id
 * @param volumePath where the volume is available on the node
 * @param stagingTargetPath where the volume is staged, if the orchestrator sent it (absolute)
 * @param capability how the orchestrator uses the volume, if it said so
 * @param secrets the credentials the orchestrator passed; masked in {@code toString}
 * @param volumeContext the volume's context from CreateVolume, unmodifiable
 */
public record HealRequest(
        String volumeId,
        String volumePath,
        Optional<String> stagingTargetPath,
        Optional<VolumeCapability> capability,
        Secrets secrets,
        Map<String, String> volumeContext) {

    /**
     * The longest path the runtime accepts, in UTF-8 bytes: Linux's {@code PATH_MAX}. The spec demands at least
     * 128 and asks for the operating system's maximum; a longer path cannot name anything on the node.
     */
    public static final int MAX_PATH_BYTES = 4096;

    public HealRequest {
        Objects.requireNonNull(volumeId, "volumeId");
        Objects.requireNonNull(volumePath, "volumePath");
        stagingTargetPath = Objects.requireNonNull(stagingTargetPath, "stagingTargetPath (use Optional.empty())")
                .filter(p -> !p.isEmpty());
        Objects.requireNonNull(capability, "capability (use Optional.empty())");
        Objects.requireNonNull(secrets, "secrets");
        volumeContext = RequestParts.copy(volumeContext);
    }

    /** A request for {@code volumeId} at {@code volumePath}, with nothing else (handy in tests). */
    public static HealRequest of(String volumeId, String volumePath) {
        return new HealRequest(volumeId, volumePath, Optional.empty(), Optional.empty(), Secrets.empty(), Map.of());
    }
}
