package io.volrep.api.wire;

import com.google.protobuf.Timestamp;
import io.volrep.api.HealReport;
import io.volrep.api.InvalidArgumentException;
import io.volrep.api.ProtocolViolationException;
import io.volrep.api.ReplicationDestination;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.SafeText;
import io.volrep.api.VolumeCapability;
import io.volrep.proto.healer.NodeHealerResponse;
import io.volrep.proto.replication.GetReplicationDestinationInfoResponse;
import io.volrep.proto.replication.GetVolumeReplicationInfoResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Conversions between volrep's typed model and the current revision's generated messages. Shared by the
 * client and the SPI runtime so both read and write the wire the same way; not meant for application code,
 * which never needs a protobuf type.
 *
 * <pre>{@code
 * io.volrep.proto.replication.ReplicationSource wire = WireMapping.toProto(ReplicationSource.volume("vol-1"));
 * }</pre>
 */
public final class WireMapping {
    private WireMapping() {
    }

    /** The wire form of a typed source. */
    public static io.volrep.proto.replication.ReplicationSource toProto(ReplicationSource source) {
        var b = io.volrep.proto.replication.ReplicationSource.newBuilder();
        switch (source.kind()) {
            case VOLUME -> b.getVolumeBuilder().setVolumeId(source.id());
            case VOLUME_GROUP -> b.getVolumegroupBuilder().setVolumeGroupId(source.id());
            case VOLUME_SNAPSHOT -> b.getVolumesnapshotBuilder().setVolumeSnapshotId(source.id());
        }
        return b.build();
    }

    /**
     * The typed form of a wire source.
     *
     * @throws InvalidArgumentException naming the field when no kind is set or the id is empty or too long
     */
    public static ReplicationSource fromProto(io.volrep.proto.replication.ReplicationSource source) {
        return switch (source.getTypeCase()) {
            case VOLUME -> ReplicationSource.volume(source.getVolume().getVolumeId());
            case VOLUMEGROUP -> ReplicationSource.volumeGroup(source.getVolumegroup().getVolumeGroupId());
            case VOLUMESNAPSHOT -> ReplicationSource.volumeSnapshot(source.getVolumesnapshot().getVolumeSnapshotId());
            case TYPE_NOT_SET -> throw InvalidArgumentException.ofField("replication_source",
                    "one of volume, volumegroup or volumesnapshot is required");
        };
    }

    /** The wire form of typed info. */
    public static GetVolumeReplicationInfoResponse toProto(ReplicationInfo info) {
        var b = GetVolumeReplicationInfoResponse.newBuilder().setLastSyncTime(timestamp(info.lastSyncTime()));
        info.lastSyncDuration().ifPresent(d -> b.setLastSyncDuration(
                com.google.protobuf.Duration.newBuilder().setSeconds(d.getSeconds()).setNanos(d.getNano())));
        info.lastSyncBytes().ifPresent(b::setLastSyncBytes);
        return b.setStatusValue(info.status().wireNumber()).setStatusMessage(info.statusMessage()).build();
    }

    /**
     * The typed form of an info response.
     *
     * @throws ProtocolViolationException when {@code last_sync_time} is missing or a value is negative
     */
    public static ReplicationInfo fromProto(GetVolumeReplicationInfoResponse response, int attempts) {
        Rpc rpc = Rpc.GET_VOLUME_REPLICATION_INFO;
        if (!response.hasLastSyncTime()) {
            throw new ProtocolViolationException("last_sync_time is REQUIRED but the plugin did not set it", rpc,
                    attempts);
        }
        if (response.getLastSyncBytes() < 0) {
            throw new ProtocolViolationException(
                    "last_sync_bytes MUST NOT be negative, got " + response.getLastSyncBytes(), rpc, attempts);
        }
        Optional<Duration> duration = Optional.empty();
        if (response.hasLastSyncDuration()) {
            Duration value = duration(response.getLastSyncDuration(), "last_sync_duration", rpc, attempts);
            if (value.isNegative()) {
                throw new ProtocolViolationException("last_sync_duration MUST NOT be negative, got " + value, rpc,
                        attempts);
            }
            duration = Optional.of(value);
        }
        ReplicationInfo.Status status;
        try {
            status = ReplicationInfo.Status.fromWireNumber(response.getStatusValue());
        } catch (IllegalArgumentException e) {
            throw new ProtocolViolationException(e.getMessage(), rpc, attempts);
        }
        Instant lastSync = instant(response.getLastSyncTime(), "last_sync_time", rpc, attempts);
        // proto3 cannot tell 0 from unset; the spec calls 0 "no bytes reported" as well as "zero bytes".
        OptionalLong bytes = response.getLastSyncBytes() == 0 ? OptionalLong.empty()
                : OptionalLong.of(response.getLastSyncBytes());
        return new ReplicationInfo(lastSync, duration, bytes, status,
                response.getStatusMessage());
    }

    /** Timestamp's range: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z, nanos in [0, 999999999]. */
    private static final long MIN_TIMESTAMP_SECONDS = -62_135_596_800L;
    private static final long MAX_TIMESTAMP_SECONDS = 253_402_300_799L;
    /** Duration's range: about +-10,000 years, nanos of the seconds' sign. */
    private static final long MAX_DURATION_SECONDS = 315_576_000_000L;
    private static final int MAX_NANOS = 999_999_999;

    /**
     * A received {@code google.protobuf.Timestamp} as an instant.
     *
     * <pre>{@code
     * Instant t = WireMapping.instant(response.getLastSyncTime(), "last_sync_time", rpc, attempts);
     * }</pre>
     *
     * @throws ProtocolViolationException when its seconds or nanos are outside the range the type defines
     *         (never rolled over into another instant)
     */
    public static Instant instant(Timestamp t, String field, Rpc rpc, int attempts) {
        if (t.getSeconds() < MIN_TIMESTAMP_SECONDS || t.getSeconds() > MAX_TIMESTAMP_SECONDS) {
            throw new ProtocolViolationException(field + ".seconds " + t.getSeconds() + " is out of range ["
                    + MIN_TIMESTAMP_SECONDS + ", " + MAX_TIMESTAMP_SECONDS + "] (years 0001 to 9999)", rpc, attempts);
        }
        if (t.getNanos() < 0 || t.getNanos() > MAX_NANOS) {
            throw new ProtocolViolationException(field + ".nanos " + t.getNanos() + " is out of range [0, "
                    + MAX_NANOS + "]", rpc, attempts);
        }
        return Instant.ofEpochSecond(t.getSeconds(), t.getNanos());
    }

    /**
     * A received {@code google.protobuf.Duration} as a duration.
     *
     * @throws ProtocolViolationException when its seconds or nanos are out of range, or their signs differ
     */
    public static Duration duration(com.google.protobuf.Duration d, String field, Rpc rpc, int attempts) {
        if (Math.abs(d.getSeconds()) > MAX_DURATION_SECONDS) {
            throw new ProtocolViolationException(field + ".seconds " + d.getSeconds() + " is out of range [-"
                    + MAX_DURATION_SECONDS + ", " + MAX_DURATION_SECONDS + "]", rpc, attempts);
        }
        if (Math.abs(d.getNanos()) > MAX_NANOS) {
            throw new ProtocolViolationException(field + ".nanos " + d.getNanos() + " is out of range [-"
                    + MAX_NANOS + ", " + MAX_NANOS + "]", rpc, attempts);
        }
        if ((d.getSeconds() > 0 && d.getNanos() < 0) || (d.getSeconds() < 0 && d.getNanos() > 0)) {
            throw new ProtocolViolationException(field + " is out of range: seconds " + d.getSeconds()
                    + " and nanos " + d.getNanos() + " must have the same sign", rpc, attempts);
        }
        return Duration.ofSeconds(d.getSeconds(), d.getNanos());
    }

    /** The wire form of a typed destination. */
    public static GetReplicationDestinationInfoResponse toProto(ReplicationDestination destination) {
        var b = GetReplicationDestinationInfoResponse.newBuilder();
        if (destination instanceof ReplicationDestination.VolumeGroup g) {
            b.getReplicationDestinationBuilder().getVolumegroupBuilder().setVolumeGroupId(g.volumeGroupId())
                    .putAllVolumeIds(g.volumeIds());
        } else {
            b.getReplicationDestinationBuilder().getVolumeBuilder().setVolumeId(destination.id());
        }
        return b.build();
    }

    /**
     * What is wrong with a destination answered for a source of {@code sourceKind}, or null when nothing is:
     * REQUIRED ids non-empty, the destination's kind equals the source's, no empty member id in the map.
     */
    public static String destinationProblem(ReplicationDestination destination, ReplicationSource.Kind sourceKind) {
        if (destination == null) {
            return "replication_destination is REQUIRED but missing";
        }
        String field = "replication_destination." + destination.kind().wireName();
        if (destination.kind() != sourceKind) {
            return field + " answered for a " + sourceKind.wireName() + " source: the destination's kind must be the"
                    + " source's";
        }
        if (destination.id().isEmpty()) {
            return field + (destination.kind() == ReplicationSource.Kind.VOLUME ? ".volume_id" : ".volume_group_id")
                    + " is REQUIRED but empty";
        }
        if (destination instanceof ReplicationDestination.VolumeGroup g) {
            for (Map.Entry<String, String> e : g.volumeIds().entrySet()) {
                if (e.getKey().isEmpty() || e.getValue().isEmpty()) {
                    return field + ".volume_ids has an empty " + (e.getKey().isEmpty() ? "source volume id (key)"
                            : "destination volume id (value) for " + SafeText.escape(e.getKey()));
                }
            }
        }
        return null;
    }

    /**
     * The typed form of a destination response for a source of {@code sourceKind}.
     *
     * @throws ProtocolViolationException when the destination is missing, of another kind than the source, or
     *                                    has an empty id
     */
    public static ReplicationDestination fromProto(GetReplicationDestinationInfoResponse response,
                                                   ReplicationSource.Kind sourceKind, int attempts) {
        ReplicationDestination destination = destinationOf(response);
        String problem = destinationProblem(destination, sourceKind);
        if (problem != null) {
            throw new ProtocolViolationException(problem, Rpc.GET_REPLICATION_DESTINATION_INFO, attempts);
        }
        return destination;
    }

    /**
     * What is wrong with a destination response for a source of {@code sourceKind}, or null when nothing is: the
     * rules of {@link #destinationProblem(ReplicationDestination, ReplicationSource.Kind)}, read off the wire.
     */
    public static String destinationResponseProblem(GetReplicationDestinationInfoResponse response,
                                                    ReplicationSource.Kind sourceKind) {
        return destinationProblem(destinationOf(response), sourceKind);
    }

    /** The typed destination as answered, unchecked; null when none (or one of no kind) was answered. */
    private static ReplicationDestination destinationOf(GetReplicationDestinationInfoResponse response) {
        if (!response.hasReplicationDestination()) {
            return null;
        }
        var d = response.getReplicationDestination();
        return switch (d.getTypeCase()) {
            case VOLUME -> ReplicationDestination.volume(d.getVolume().getVolumeId());
            case VOLUMEGROUP -> ReplicationDestination.volumeGroup(d.getVolumegroup().getVolumeGroupId(),
                    d.getVolumegroup().getVolumeIdsMap());
            case TYPE_NOT_SET -> null;
        };
    }

    /** The wire form of a typed capability. */
    public static io.volrep.proto.csi.VolumeCapability toProto(VolumeCapability capability) {
        var b = io.volrep.proto.csi.VolumeCapability.newBuilder();
        if (capability.accessType() == VolumeCapability.AccessType.BLOCK) {
            b.setBlock(io.volrep.proto.csi.VolumeCapability.BlockVolume.getDefaultInstance());
        } else {
            b.setMount(io.volrep.proto.csi.VolumeCapability.MountVolume.newBuilder()
                    .setFsType(capability.fsType()).addAllMountFlags(capability.mountFlags()));
        }
        b.getAccessModeBuilder().setModeValue(capability.accessMode().wireNumber());
        return b.build();
    }

    /**
     * The typed form of a wire capability.
     *
     * @throws InvalidArgumentException when neither block nor mount is set
     */
    public static VolumeCapability fromProto(io.volrep.proto.csi.VolumeCapability capability) {
        var mode = VolumeCapability.AccessMode.fromWireNumber(capability.getAccessMode().getModeValue());
        return switch (capability.getAccessTypeCase()) {
            case BLOCK -> VolumeCapability.block(mode);
            case MOUNT -> VolumeCapability.mount(capability.getMount().getFsType(), mode)
                    .withMountFlags(capability.getMount().getMountFlagsList());
            case ACCESSTYPE_NOT_SET -> throw InvalidArgumentException.ofField("volume_capability.access_type",
                    "one of block or mount is required");
        };
    }

    /**
     * The typed form of a NodeHealer response.
     *
     * @throws ProtocolViolationException when the REQUIRED message is empty
     */
    public static HealReport fromProto(NodeHealerResponse response, int attempts) {
        if (response.getMessage().isBlank()) {
            throw new ProtocolViolationException("NodeHealerResponse.message is REQUIRED but the plugin left it empty",
                    Rpc.NODE_HEALER, attempts);
        }
        return new HealReport(response.getAbnormal(), response.getMessage());
    }

    /** The wire form of a typed report. */
    public static NodeHealerResponse toProto(HealReport report) {
        return NodeHealerResponse.newBuilder().setAbnormal(report.abnormal()).setMessage(report.message()).build();
    }

    /** A protobuf timestamp for an instant. */
    public static Timestamp timestamp(Instant instant) {
        return Timestamp.newBuilder().setSeconds(instant.getEpochSecond()).setNanos(instant.getNano()).build();
    }
}
