package io.volrep.testkit;

import io.volrep.api.WireLevel;
import io.volrep.proto.replication.ReplicationSource;
import java.util.Optional;

/**
 * How a request names its source on the wire, including the malformed ways a polite client never sends.
 *
 * <pre>{@code
 * ctx.call(Rpc.PROMOTE_VOLUME, Addressing.volume("pvc-1"));
 * ctx.call(Rpc.PROMOTE_VOLUME, Addressing.none());              // missing required field
 * ctx.call(Rpc.PROMOTE_VOLUME, Addressing.deprecatedVolumeId("pvc-1"));
 * }</pre>
 *
 * @param source the {@code replication_source} field, or null to leave it unset
 * @param volumeId the deprecated {@code volume_id} field, or "" to leave it unset
 * @param label how reports name it, e.g. {@code volume pvc-1}
 */
@WireLevel
public record Addressing(ReplicationSource source, String volumeId, String label) {

    /** {@code replication_source.volume.volume_id = id}. */
    public static Addressing volume(String id) {
        return new Addressing(
                ReplicationSource.newBuilder()
                        .setVolume(ReplicationSource.VolumeSource.newBuilder().setVolumeId(id))
                        .build(),
                "",
                "volume " + id);
    }

    /** {@code replication_source.volumegroup.volume_group_id = id}. */
    public static Addressing volumeGroup(String id) {
        return new Addressing(
                ReplicationSource.newBuilder()
                        .setVolumegroup(
                                ReplicationSource.VolumeGroupSource.newBuilder().setVolumeGroupId(id))
                        .build(),
                "",
                "volume group " + id);
    }

    /** The deprecated form: {@code volume_id = id} and no {@code replication_source}. */
    public static Addressing deprecatedVolumeId(String id) {
        return new Addressing(null, id, "volume " + id + " (deprecated volume_id)");
    }

    /** Neither {@code replication_source} nor {@code volume_id}. */
    public static Addressing none() {
        return new Addressing(null, "", "no replication_source, no volume_id");
    }

    /** {@code replication_source} present but none of its {@code type} fields set. */
    public static Addressing sourceWithoutType() {
        return new Addressing(ReplicationSource.getDefaultInstance(), "", "replication_source without a type");
    }

    /** {@code replication_source.volume} present with an empty {@code volume_id}. */
    public static Addressing emptyVolumeId() {
        return new Addressing(
                ReplicationSource.newBuilder()
                        .setVolume(ReplicationSource.VolumeSource.getDefaultInstance())
                        .build(),
                "",
                "replication_source.volume.volume_id empty");
    }

    /** {@code replication_source.volumegroup} present with an empty {@code volume_group_id}. */
    public static Addressing emptyVolumeGroupId() {
        return new Addressing(
                ReplicationSource.newBuilder()
                        .setVolumegroup(ReplicationSource.VolumeGroupSource.getDefaultInstance())
                        .build(),
                "",
                "replication_source.volumegroup.volume_group_id empty");
    }

    /**
     * The source this request names, typed: the fixture a check holds, keeps books of and restores. Empty for the
     * malformed forms (no source, an empty or oversized id), which name no fixture.
     */
    public Optional<io.volrep.api.ReplicationSource> fixture() {
        try {
            if (source != null
                    && source.hasVolume()
                    && !source.getVolume().getVolumeId().isEmpty()) {
                return Optional.of(io.volrep.api.ReplicationSource.volume(
                        source.getVolume().getVolumeId()));
            }
            if (source != null
                    && source.hasVolumegroup()
                    && !source.getVolumegroup().getVolumeGroupId().isEmpty()) {
                return Optional.of(io.volrep.api.ReplicationSource.volumeGroup(
                        source.getVolumegroup().getVolumeGroupId()));
            }
            if (source == null && !volumeId.isEmpty()) {
                return Optional.of(io.volrep.api.ReplicationSource.volume(volumeId));
            }
        } catch (RuntimeException beyondCsiLimits) {
            // An id over CSI's limits names no fixture.
        }
        return Optional.empty();
    }

    /** The request naming {@code fixture} in {@code replication_source} form. */
    public static Addressing of(io.volrep.api.ReplicationSource fixture) {
        return switch (fixture.kind()) {
            case VOLUME -> volume(fixture.id());
            case VOLUME_GROUP -> volumeGroup(fixture.id());
            case VOLUME_SNAPSHOT -> throw new IllegalArgumentException("the kit has no snapshot fixtures: " + fixture);
        };
    }

    /** How reports name the kind of source this request names: {@code "volume"} or {@code "volume group"}. */
    public String kindLabel() {
        return isGroup() ? "volume group" : "volume";
    }

    /** True when the request names a volume group. */
    public boolean isGroup() {
        return source != null && source.hasVolumegroup();
    }

    @Override
    public String toString() {
        return label;
    }
}
