package io.volrep.api;

import java.util.List;
import java.util.Objects;

/**
 * How the CO uses a volume (CSI's {@code VolumeCapability}): as a raw block device or a mounted file system, and
 * with which access mode. NodeHealer requests may carry one so the plugin can skip file-system checks for block
 * volumes.
 *
 * <pre>{@code
 * VolumeCapability cap = VolumeCapability.mount("ext4", VolumeCapability.AccessMode.SINGLE_NODE_WRITER);
 * VolumeCapability raw = VolumeCapability.block(VolumeCapability.AccessMode.MULTI_NODE_MULTI_WRITER);
 * }</pre>
 *
 * @param accessType block or mount
 * @param fsType the file system type for mount access ("" lets the plugin choose; always "" for block)
 * @param mountFlags mount flags for mount access (empty for block)
 * @param accessMode the access mode
 */
public record VolumeCapability(AccessType accessType, String fsType, List<String> mountFlags, AccessMode accessMode) {

    /** Block device or mounted file system. */
    public enum AccessType {
        BLOCK,
        MOUNT
    }

    /** CSI's access modes, in wire order (the ordinal is the wire number). */
    public enum AccessMode {
        UNKNOWN,
        SINGLE_NODE_WRITER,
        SINGLE_NODE_READER_ONLY,
        MULTI_NODE_READER_ONLY,
        MULTI_NODE_SINGLE_WRITER,
        MULTI_NODE_MULTI_WRITER,
        SINGLE_NODE_SINGLE_WRITER,
        SINGLE_NODE_MULTI_WRITER;

        /** The mode's number on the wire. */
        public int wireNumber() {
            return ordinal();
        }

        /** The mode for a wire number; unknown numbers read as {@link #UNKNOWN}. */
        public static AccessMode fromWireNumber(int number) {
            AccessMode[] all = values();
            return number >= 0 && number < all.length ? all[number] : UNKNOWN;
        }
    }

    public VolumeCapability {
        Objects.requireNonNull(accessType, "accessType");
        Objects.requireNonNull(accessMode, "accessMode");
        fsType = fsType == null ? "" : fsType;
        mountFlags = mountFlags == null ? List.of() : List.copyOf(mountFlags);
        if (accessType == AccessType.BLOCK && (!fsType.isEmpty() || !mountFlags.isEmpty())) {
            throw new IllegalArgumentException("a block capability has no fs_type or mount_flags");
        }
    }

    /** Raw block access. */
    public static VolumeCapability block(AccessMode accessMode) {
        return new VolumeCapability(AccessType.BLOCK, "", List.of(), accessMode);
    }

    /** File-system access with {@code fsType} (may be empty: the plugin's default). */
    public static VolumeCapability mount(String fsType, AccessMode accessMode) {
        return new VolumeCapability(AccessType.MOUNT, fsType, List.of(), accessMode);
    }

    /** A copy with mount flags (mount access only). */
    public VolumeCapability withMountFlags(List<String> flags) {
        return new VolumeCapability(accessType, fsType, flags, accessMode);
    }
}
