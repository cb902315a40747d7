package io.volrep.spi;

import io.volrep.api.VolumeCapability;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@code NodeHealer} request, validated by the runtime before the driver sees it: {@code volumeId} is a non-empty CSI
 * id (at most 128 bytes), {@code volumePath} is non-empty, {@code stagingTargetPath} is absolute when present, both
 * paths are at most {@link #MAX_PATH_BYTES} bytes (the spec exempts them from CSI's 128-byte limit), the maps are
 * within 4 KiB, and {@code toString} masks the secrets.
 *
 * <p>Paths are strings, exactly as the orchestrator sent them: they name places in the node plugin's mount namespace,
 * which need not be this JVM's.
 *
 * <pre>{@code
 * public HealReport heal(HealRequest r) {
 *     boolean block = r.capability().map(c -> c.accessType() == VolumeCapability.AccessType.BLOCK).orElse(false);
 *     return block ? HealReport.healthy("block volume: nothing to check") : checkFileSystem(r.volumePath());
 * }
 * }</pre>
 */
public final class HealRequest extends DriverRequest {

    /**
     * The longest path the runtime accepts, in UTF-8 bytes: Linux's {@code PATH_MAX}. The spec demands at least 128 and
     * asks for the operating system's maximum; a longer path cannot name anything on the node.
     */
    public static final int MAX_PATH_BYTES = 4096;

    private final String volumeId;
    private final String volumePath;
    private final Optional<String> stagingTargetPath;
    private final Optional<VolumeCapability> capability;
    private final Map<String, String> volumeContext;

    private HealRequest(Builder b) {
        super(b);
        this.volumeId = Objects.requireNonNull(b.volumeId, "volumeId");
        this.volumePath = Objects.requireNonNull(b.volumePath, "volumePath");
        this.stagingTargetPath = b.stagingTargetPath.isEmpty() ? Optional.empty() : Optional.of(b.stagingTargetPath);
        this.capability = Optional.ofNullable(b.capability);
        this.volumeContext = RequestParts.copy(b.volumeContext);
    }

    /** The volume's id. */
    public String volumeId() {
        return volumeId;
    }

    /** Where the volume is available on the node. */
    public String volumePath() {
        return volumePath;
    }

    /** Where the volume is staged, if the orchestrator sent it (absolute). */
    public Optional<String> stagingTargetPath() {
        return stagingTargetPath;
    }

    /** How the orchestrator uses the volume, if it said so. */
    public Optional<VolumeCapability> capability() {
        return capability;
    }

    /** The volume's context from CreateVolume, unmodifiable. */
    public Map<String, String> volumeContext() {
        return volumeContext;
    }

    @Override
    void fields(Map<String, Object> fields) {
        fields.put("volumeId", volumeId);
        fields.put("volumePath", volumePath);
        fields.put("stagingTargetPath", stagingTargetPath);
        fields.put("capability", capability);
        fields.put("volumeContext", volumeContext);
    }

    /** A new builder; {@link Builder#volumeId} and {@link Builder#volumePath} are required. */
    public static Builder builder() {
        return new Builder();
    }

    /** A request for {@code volumeId} at {@code volumePath}, with nothing else (handy in tests). */
    public static HealRequest of(String volumeId, String volumePath) {
        return builder().volumeId(volumeId).volumePath(volumePath).build();
    }

    /** A builder holding this request's fields, to pass on a changed copy. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Builds a {@link HealRequest}. */
    public static final class Builder extends DriverRequest.Builder<Builder> {
        private String volumeId;
        private String volumePath;
        private String stagingTargetPath = "";
        private VolumeCapability capability;
        private Map<String, String> volumeContext = Map.of();

        private Builder() {}

        private Builder(HealRequest r) {
            super(r);
            this.volumeId = r.volumeId;
            this.volumePath = r.volumePath;
            this.stagingTargetPath = r.stagingTargetPath.orElse("");
            this.capability = r.capability.orElse(null);
            this.volumeContext = r.volumeContext;
        }

        /** The volume's id (required). */
        public Builder volumeId(String volumeId) {
            this.volumeId = Objects.requireNonNull(volumeId, "volumeId");
            return this;
        }

        /** Where the volume is available on the node (required). */
        public Builder volumePath(String volumePath) {
            this.volumePath = Objects.requireNonNull(volumePath, "volumePath");
            return this;
        }

        /** Where the volume is staged ({@code ""}, the default: not sent). */
        public Builder stagingTargetPath(String stagingTargetPath) {
            this.stagingTargetPath = Objects.requireNonNull(stagingTargetPath, "stagingTargetPath");
            return this;
        }

        /** How the orchestrator uses the volume (default: not said). */
        public Builder capability(VolumeCapability capability) {
            this.capability = Objects.requireNonNull(capability, "capability");
            return this;
        }

        /** The volume's context (default none). */
        public Builder volumeContext(Map<String, String> volumeContext) {
            this.volumeContext = Objects.requireNonNull(volumeContext, "volumeContext");
            return this;
        }

        @Override
        public HealRequest build() {
            return new HealRequest(this);
        }
    }
}
