package io.volrep.api;

import java.util.Map;
import java.util.Objects;

/**
 * Where a replicated source is replicated to (the answer of GetReplicationDestinationInfo): a volume destination,
 * or a group destination with, optionally, the destination of each member (source volume id -> destination
 * volume id; when given, complete for the group's current members). Source and destination ids differ in
 * general: a failover on the other site needs the destination ids.
 *
 * <pre>{@code
 * ReplicationDestination d = client.volumeGroup("grp-1").destination();
 * if (d instanceof ReplicationDestination.VolumeGroup g) {
 *     g.volumeIds().forEach((src, dst) -> log.info("{} -> {}", src, dst));
 * }
 * }</pre>
 */
public sealed interface ReplicationDestination
        permits ReplicationDestination.Volume, ReplicationDestination.VolumeGroup {

    /** The destination's id: a volume id or a volume group id. */
    String id();

    /** The kind, which equals the source's kind ({@link ReplicationSource.Kind#VOLUME} or {@code VOLUME_GROUP}). */
    ReplicationSource.Kind kind();

    /** A volume destination. */
    static Volume volume(String volumeId) {
        return new Volume(volumeId);
    }

    /** A group destination; {@code volumeIds} maps source member ids to destination member ids, may be empty. */
    static VolumeGroup volumeGroup(String volumeGroupId, Map<String, String> volumeIds) {
        return new VolumeGroup(volumeGroupId, volumeIds);
    }

    /**
     * The destination of a volume.
     *
     * @param volumeId the destination volume's id
     */
    record Volume(String volumeId) implements ReplicationDestination {
        public Volume {
            Objects.requireNonNull(volumeId, "volumeId");
        }

        @Override
        public String id() {
            return volumeId;
        }

        @Override
        public ReplicationSource.Kind kind() {
            return ReplicationSource.Kind.VOLUME;
        }

        @Override
        public String toString() {
            return "volume " + volumeId;
        }
    }

    /**
     * The destination of a volume group.
     *
     * @param volumeGroupId the destination group's id
     * @param volumeIds source member volume id -> destination volume id; empty when the plugin does not say
     */
    record VolumeGroup(String volumeGroupId, Map<String, String> volumeIds) implements ReplicationDestination {
        public VolumeGroup {
            Objects.requireNonNull(volumeGroupId, "volumeGroupId");
            volumeIds = Map.copyOf(Objects.requireNonNull(volumeIds, "volumeIds"));
        }

        @Override
        public String id() {
            return volumeGroupId;
        }

        @Override
        public ReplicationSource.Kind kind() {
            return ReplicationSource.Kind.VOLUME_GROUP;
        }

        @Override
        public String toString() {
            return "volume group " + volumeGroupId + " (" + volumeIds.size() + " members mapped)";
        }
    }
}
