package io.volrep.api;

import java.util.Locale;

/**
 * What is replicated: a volume, a volume group or a volume snapshot (the spec's {@code ReplicationSource}
 * oneof). Ids are non-empty and at most 128 bytes of UTF-8; a bad id fails at construction with an
 * {@link InvalidArgumentException} naming the wire field.
 *
 * <pre>{@code
 * ReplicationSource source = ReplicationSource.volume("pvc-1");
 * String label = switch (source.kind()) {
 *     case VOLUME -> "volume " + source.id();
 *     case VOLUME_GROUP -> "group " + source.id();
 *     case VOLUME_SNAPSHOT -> "snapshot " + source.id();
 * };
 * }</pre>
 */
public sealed interface ReplicationSource
        permits ReplicationSource.Volume, ReplicationSource.VolumeGroup, ReplicationSource.VolumeSnapshot {

    /**
     * The kinds of source, with the name the exec protocol and reports use. The proto names each kind's oneof member
     * as the kind's words run together ({@code volumegroup}) and its one field as the words joined by underscores
     * with {@code _id} ({@code volume_group_id}).
     */
    enum Kind {
        VOLUME,
        VOLUME_GROUP,
        VOLUME_SNAPSHOT;

        private final String wireName = name().toLowerCase(Locale.ROOT).replace("_", "");
        private final String idField = "replication_source." + wireName + "." + name().toLowerCase(Locale.ROOT) + "_id";

        /** The oneof member's name on the wire: {@code volume}, {@code volumegroup}, {@code volumesnapshot}. */
        public String wireName() {
            return wireName;
        }

        /** The path of the id field, for error messages. */
        public String idField() {
            return idField;
        }

        /** The kind with this wire name. */
        public static Kind fromWireName(String name) {
            for (Kind k : values()) {
                if (k.wireName.equals(name)) {
                    return k;
                }
            }
            throw new IllegalArgumentException("unknown source kind: " + name);
        }
    }

    /** The source's id: volume id, volume group id or snapshot id. */
    String id();

    /** The source's kind. */
    Kind kind();

    /** A volume source. */
    static Volume volume(String volumeId) {
        return new Volume(volumeId);
    }

    /** A volume group source. */
    static VolumeGroup volumeGroup(String volumeGroupId) {
        return new VolumeGroup(volumeGroupId);
    }

    /** A volume snapshot source. */
    static VolumeSnapshot volumeSnapshot(String volumeSnapshotId) {
        return new VolumeSnapshot(volumeSnapshotId);
    }

    /** A source of the given kind. */
    static ReplicationSource of(Kind kind, String id) {
        return switch (kind) {
            case VOLUME -> new Volume(id);
            case VOLUME_GROUP -> new VolumeGroup(id);
            case VOLUME_SNAPSHOT -> new VolumeSnapshot(id);
        };
    }

    /** A single volume. */
    record Volume(String id) implements ReplicationSource {
        public Volume {
            CsiLimits.requireId(Kind.VOLUME.idField(), id);
        }

        @Override
        public Kind kind() {
            return Kind.VOLUME;
        }

        @Override
        public String toString() {
            return "volume " + id;
        }
    }

    /** A volume group. */
    record VolumeGroup(String id) implements ReplicationSource {
        public VolumeGroup {
            CsiLimits.requireId(Kind.VOLUME_GROUP.idField(), id);
        }

        @Override
        public Kind kind() {
            return Kind.VOLUME_GROUP;
        }

        @Override
        public String toString() {
            return "volumegroup " + id;
        }
    }

    /** A volume snapshot. */
    record VolumeSnapshot(String id) implements ReplicationSource {
        public VolumeSnapshot {
            CsiLimits.requireId(Kind.VOLUME_SNAPSHOT.idField(), id);
        }

        @Override
        public Kind kind() {
            return Kind.VOLUME_SNAPSHOT;
        }

        @Override
        public String toString() {
            return "volumesnapshot " + id;
        }
    }
}
