package io.volrep.api.internal.wire;

import com.google.protobuf.Message;
import com.google.protobuf.Timestamp;
import io.grpc.MethodDescriptor;
import io.volrep.api.HealReport;
import io.volrep.api.InvalidArgumentException;
import io.volrep.api.ProtocolViolationException;
import io.volrep.api.ReplicationDestination;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.SpecDialect;
import io.volrep.api.VolumeCapability;
import io.volrep.api.VolumeGroup.Member;
import io.volrep.proto.csi.Volume;
import io.volrep.proto.csi.VolumeCapability.BlockVolume;
import io.volrep.proto.csi.VolumeCapability.MountVolume;
import io.volrep.proto.healer.NodeHealerResponse;
import io.volrep.proto.replication.GetReplicationDestinationInfoResponse;
import io.volrep.proto.replication.GetVolumeReplicationInfoResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
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
    private WireMapping() {}

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
            case VOLUMEGROUP ->
                ReplicationSource.volumeGroup(source.getVolumegroup().getVolumeGroupId());
            case VOLUMESNAPSHOT ->
                ReplicationSource.volumeSnapshot(source.getVolumesnapshot().getVolumeSnapshotId());
            case TYPE_NOT_SET ->
                throw InvalidArgumentException.ofField(
                        "replication_source", "one of volume, volumegroup or volumesnapshot is required");
        };
    }

    /** The wire form of typed info. */
    public static GetVolumeReplicationInfoResponse toProto(ReplicationInfo info) {
        var b = GetVolumeReplicationInfoResponse.newBuilder().setLastSyncTime(timestamp(info.lastSyncTime()));
        info.lastSyncDuration()
                .ifPresent(d -> b.setLastSyncDuration(com.google.protobuf.Duration.newBuilder()
                        .setSeconds(d.getSeconds())
                        .setNanos(d.getNano())));
        info.lastSyncBytes().ifPresent(b::setLastSyncBytes);
        return b.setStatusValue(info.status().wireNumber())
                .setStatusMessage(info.statusMessage())
                .build();
    }

    /**
     * The typed form of an info response.
     *
     * @throws ProtocolViolationException naming the field when the answer breaks {@link AnswerRules#info}
     */
    public static ReplicationInfo fromProto(GetVolumeReplicationInfoResponse response, int attempts) {
        requireNoProblems(AnswerRules.info(response), Rpc.GET_VOLUME_REPLICATION_INFO, attempts);
        Timestamp t = response.getLastSyncTime();
        com.google.protobuf.Duration took = response.getLastSyncDuration();
        Optional<Duration> duration = response.hasLastSyncDuration()
                ? Optional.of(Duration.ofSeconds(took.getSeconds(), took.getNanos()))
                : Optional.empty();
        // proto3 cannot tell 0 from unset: 0 is read as a value (a sync that moved nothing, "0 B"), as the owners
        // decided (issue 35); only a revision without the field (v0.1.3) reports no bytes (the overload below).
        OptionalLong bytes = OptionalLong.of(response.getLastSyncBytes());
        return new ReplicationInfo(
                Instant.ofEpochSecond(t.getSeconds(), t.getNanos()),
                duration,
                bytes,
                ReplicationInfo.Status.fromWireNumber(response.getStatusValue()),
                response.getStatusMessage());
    }

    /**
     * The typed form of an info response read in {@code revision}: as {@link #fromProto(GetVolumeReplicationInfoResponse,
     * int)}, except that a revision without {@code last_sync_bytes} (v0.1.3) reports no bytes, where its transcoded
     * answer reads 0.
     *
     * <pre>{@code
     * var current = (GetVolumeReplicationInfoResponse) transcoder.responseFromWire(Rpc.GET_VOLUME_REPLICATION_INFO, wire);
     * ReplicationInfo info = WireMapping.fromProto(current, attempts, transcoder.dialect());
     * }</pre>
     */
    public static ReplicationInfo fromProto(
            GetVolumeReplicationInfoResponse response, int attempts, SpecDialect revision) {
        ReplicationInfo info = fromProto(response, attempts);
        return reportsSyncBytes(revision)
                ? info
                : new ReplicationInfo(
                        info.lastSyncTime(),
                        info.lastSyncDuration(),
                        OptionalLong.empty(),
                        info.status(),
                        info.statusMessage());
    }

    /** Whether {@code revision}'s info answer has a {@code last_sync_bytes} field. */
    private static boolean reportsSyncBytes(SpecDialect revision) {
        Transcoder transcoder = Transcoder.of(revision);
        if (!transcoder.defines(Rpc.GET_VOLUME_REPLICATION_INFO)) {
            return false;
        }
        return ((MethodDescriptor.PrototypeMarshaller<?>) transcoder
                                        .method(Rpc.GET_VOLUME_REPLICATION_INFO)
                                        .getResponseMarshaller())
                                .getMessagePrototype()
                        instanceof Message m
                && m.getDescriptorForType().findFieldByName("last_sync_bytes") != null;
    }

    /**
     * The client's side of the {@link AnswerRules}: a received answer with problems is a protocol violation.
     *
     * <pre>{@code
     * WireMapping.requireNoProblems(AnswerRules.identity(response), Rpc.GET_IDENTITY, attempts);
     * }</pre>
     *
     * @throws ProtocolViolationException listing every problem, its {@link ProtocolViolationException#field()} the
     *                                    first one's field
     */
    public static void requireNoProblems(List<AnswerProblem> problems, Rpc rpc, int attempts) {
        if (!problems.isEmpty()) {
            throw new ProtocolViolationException(
                    AnswerProblem.describe(problems),
                    rpc,
                    attempts,
                    problems.get(0).field());
        }
    }

    /** The wire form of a typed destination. */
    public static GetReplicationDestinationInfoResponse toProto(ReplicationDestination destination) {
        var b = GetReplicationDestinationInfoResponse.newBuilder();
        if (destination instanceof ReplicationDestination.VolumeGroup g) {
            b.getReplicationDestinationBuilder()
                    .getVolumegroupBuilder()
                    .setVolumeGroupId(g.volumeGroupId())
                    .putAllVolumeIds(g.volumeIds());
        } else {
            b.getReplicationDestinationBuilder().getVolumeBuilder().setVolumeId(destination.id());
        }
        return b.build();
    }

    /**
     * The typed form of a destination response for a source of {@code sourceKind}.
     *
     * @throws ProtocolViolationException naming the field when the answer breaks {@link AnswerRules#destination}
     */
    public static ReplicationDestination fromProto(
            GetReplicationDestinationInfoResponse response, ReplicationSource.Kind sourceKind, int attempts) {
        requireNoProblems(
                AnswerRules.destination(response, sourceKind), Rpc.GET_REPLICATION_DESTINATION_INFO, attempts);
        var d = response.getReplicationDestination();
        return d.hasVolumegroup()
                ? ReplicationDestination.volumeGroup(
                        d.getVolumegroup().getVolumeGroupId(),
                        d.getVolumegroup().getVolumeIdsMap())
                : ReplicationDestination.volume(d.getVolume().getVolumeId());
    }

    /** The wire form of a typed capability. */
    public static io.volrep.proto.csi.VolumeCapability toProto(VolumeCapability capability) {
        var b = io.volrep.proto.csi.VolumeCapability.newBuilder();
        if (capability.accessType() == VolumeCapability.AccessType.BLOCK) {
            b.setBlock(BlockVolume.getDefaultInstance());
        } else {
            b.setMount(
                    MountVolume.newBuilder().setFsType(capability.fsType()).addAllMountFlags(capability.mountFlags()));
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
        var mode = VolumeCapability.AccessMode.fromWireNumber(
                capability.getAccessMode().getModeValue());
        return switch (capability.getAccessTypeCase()) {
            case BLOCK -> VolumeCapability.block(mode);
            case MOUNT ->
                VolumeCapability.mount(capability.getMount().getFsType(), mode)
                        .withMountFlags(capability.getMount().getMountFlagsList());
            case ACCESSTYPE_NOT_SET ->
                throw InvalidArgumentException.ofField(
                        "volume_capability.access_type", "one of block or mount is required");
        };
    }

    /**
     * The typed form of a NodeHealer response.
     *
     * @throws ProtocolViolationException naming the field when the answer breaks {@link AnswerRules#healer}
     */
    public static HealReport fromProto(NodeHealerResponse response, int attempts) {
        requireNoProblems(AnswerRules.healer(response), Rpc.NODE_HEALER, attempts);
        return new HealReport(response.getAbnormal(), response.getMessage());
    }

    /** The wire form of a typed report. */
    public static NodeHealerResponse toProto(HealReport report) {
        return NodeHealerResponse.newBuilder()
                .setAbnormal(report.abnormal())
                .setMessage(report.message())
                .build();
    }

    /** The wire form of a typed volume group (its members as CSI volumes: id, capacity, context). */
    public static io.volrep.proto.volumegroup.VolumeGroup toProto(io.volrep.api.VolumeGroup group) {
        var b = io.volrep.proto.volumegroup.VolumeGroup.newBuilder()
                .setVolumeGroupId(group.id())
                .putAllVolumeGroupContext(group.context());
        for (Member m : group.members()) {
            b.addVolumes(Volume.newBuilder()
                    .setVolumeId(m.volumeId())
                    .setCapacityBytes(m.capacityBytes())
                    .putAllVolumeContext(m.context()));
        }
        return b.build();
    }

    /**
     * The typed form of a wire volume group, as it is: judge the answer with {@link AnswerRules} first (the client
     * does, {@link #requireNoProblems}).
     */
    public static io.volrep.api.VolumeGroup fromProto(io.volrep.proto.volumegroup.VolumeGroup group) {
        List<Member> members = group.getVolumesList().stream()
                .map(v -> new Member(v.getVolumeId(), v.getCapacityBytes(), v.getVolumeContextMap()))
                .toList();
        return new io.volrep.api.VolumeGroup(group.getVolumeGroupId(), group.getVolumeGroupContextMap(), members);
    }

    /** A protobuf timestamp for an instant. */
    public static Timestamp timestamp(Instant instant) {
        return Timestamp.newBuilder()
                .setSeconds(instant.getEpochSecond())
                .setNanos(instant.getNano())
                .build();
    }
}
