package io.volrep.testkit;

import com.google.protobuf.BoolValue;
import com.google.protobuf.ByteString;
import com.google.protobuf.Duration;
import com.google.protobuf.Message;
import com.google.protobuf.Timestamp;
import com.google.protobuf.UnknownFieldSet;
import io.volrep.api.ReplicationSource.Kind;
import io.volrep.api.Rpc;
import io.volrep.proto.healer.NodeHealerResponse;
import io.volrep.proto.identity.Capability;
import io.volrep.proto.identity.GetCapabilitiesResponse;
import io.volrep.proto.identity.GetIdentityResponse;
import io.volrep.proto.identity.ProbeResponse;
import io.volrep.proto.replication.GetReplicationDestinationInfoResponse;
import io.volrep.proto.replication.GetVolumeReplicationInfoResponse;
import io.volrep.proto.replication.ReplicationDestination;
import io.volrep.proto.replication.ResyncVolumeResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Good and bad answers of every answer message, in the current revision's wire form: what {@link
 * AnswerAgreementTest} feeds to the client, the server runtime, the exec bridge and the kit alike. A bad answer
 * names the field each layer must name when it rejects it.
 */
final class AnswerCorpus {
    /** Timestamp's range: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z. */
    static final long MIN_TIMESTAMP_SECONDS = -62_135_596_800L;

    static final long MAX_TIMESTAMP_SECONDS = 253_402_300_799L;
    /** Duration's range: about +-10,000 years. */
    static final long MAX_DURATION_SECONDS = 315_576_000_000L;
    /** 2026-01-01T00:00:00Z. */
    static final long NOW = 1_767_225_600L;

    /**
     * One answer.
     *
     * @param name what it is, for the test's name
     * @param rpc the RPC it answers
     * @param kind the kind of source it answers for (the destination's rules depend on it)
     * @param wire the answer
     * @param field null for a good answer; for a bad one, the field every layer must name
     */
    record Answer(String name, Rpc rpc, Kind kind, Message wire, String field) {
        boolean valid() {
            return field == null;
        }

        @Override
        public String toString() {
            return (valid() ? "good " : "bad ") + name;
        }
    }

    private AnswerCorpus() {}

    static List<Answer> all() {
        List<Answer> all = new ArrayList<>();
        all.addAll(info());
        all.addAll(destinations());
        all.addAll(resync());
        all.addAll(healer());
        all.addAll(identity());
        return all;
    }

    private static Answer good(String name, Rpc rpc, Kind kind, Message wire) {
        return new Answer(name, rpc, kind, wire, null);
    }

    private static Answer bad(String name, Rpc rpc, Kind kind, Message wire, String field) {
        return new Answer(name, rpc, kind, wire, field);
    }

    static Timestamp time(long seconds, int nanos) {
        return Timestamp.newBuilder().setSeconds(seconds).setNanos(nanos).build();
    }

    static Duration duration(long seconds, int nanos) {
        return Duration.newBuilder().setSeconds(seconds).setNanos(nanos).build();
    }

    private static GetVolumeReplicationInfoResponse.Builder info(long seconds, int nanos) {
        return GetVolumeReplicationInfoResponse.newBuilder().setLastSyncTime(time(seconds, nanos));
    }

    private static Answer goodInfo(String name, GetVolumeReplicationInfoResponse.Builder wire) {
        return good("info: " + name, Rpc.GET_VOLUME_REPLICATION_INFO, Kind.VOLUME, wire.build());
    }

    private static Answer badInfo(String name, GetVolumeReplicationInfoResponse.Builder wire, String field) {
        return bad("info: " + name, Rpc.GET_VOLUME_REPLICATION_INFO, Kind.VOLUME, wire.build(), field);
    }

    static List<Answer> info() {
        return List.of(
                goodInfo("last_sync_time only", info(NOW, 0)),
                goodInfo(
                        "every field",
                        info(NOW, 5)
                                .setLastSyncDuration(duration(3, 500_000_000))
                                .setLastSyncBytes(4096)
                                .setStatus(GetVolumeReplicationInfoResponse.Status.HEALTHY)
                                .setStatusMessage("replicating")),
                goodInfo(
                        "DEGRADED with a message",
                        info(NOW, 0)
                                .setStatus(GetVolumeReplicationInfoResponse.Status.DEGRADED)
                                .setStatusMessage("peer down")),
                goodInfo("the earliest Timestamp", info(MIN_TIMESTAMP_SECONDS, 0)),
                goodInfo("the latest Timestamp", info(MAX_TIMESTAMP_SECONDS, 999_999_999)),
                goodInfo("the longest Duration", info(NOW, 0).setLastSyncDuration(duration(MAX_DURATION_SECONDS, 0))),
                badInfo(
                        "no last_sync_time",
                        GetVolumeReplicationInfoResponse.newBuilder().setLastSyncBytes(1),
                        "last_sync_time"),
                badInfo("last_sync_time after 9999", info(MAX_TIMESTAMP_SECONDS + 1, 0), "last_sync_time"),
                badInfo("last_sync_time before 0001", info(MIN_TIMESTAMP_SECONDS - 1, 0), "last_sync_time"),
                badInfo("last_sync_time with negative nanos", info(NOW, -1), "last_sync_time"),
                badInfo("last_sync_time with a second of nanos", info(NOW, 1_000_000_000), "last_sync_time"),
                badInfo("negative last_sync_bytes", info(NOW, 0).setLastSyncBytes(-1), "last_sync_bytes"),
                badInfo(
                        "negative last_sync_duration",
                        info(NOW, 0).setLastSyncDuration(duration(-1, 0)),
                        "last_sync_duration"),
                badInfo(
                        "last_sync_duration past 10,000 years",
                        info(NOW, 0).setLastSyncDuration(duration(MAX_DURATION_SECONDS + 1, 0)),
                        "last_sync_duration"),
                badInfo(
                        "last_sync_duration with mixed signs",
                        info(NOW, 0).setLastSyncDuration(duration(1, -1)),
                        "last_sync_duration"),
                badInfo("status outside the enum", info(NOW, 0).setStatusValue(7), "status"));
    }

    /** A string of exactly {@code bytes} bytes. */
    static String ofBytes(String prefix, int bytes) {
        return prefix + "x".repeat(bytes - prefix.length());
    }

    static GetReplicationDestinationInfoResponse volumeDestination(String id) {
        return GetReplicationDestinationInfoResponse.newBuilder()
                .setReplicationDestination(ReplicationDestination.newBuilder()
                        .setVolume(ReplicationDestination.VolumeDestination.newBuilder()
                                .setVolumeId(id)))
                .build();
    }

    static GetReplicationDestinationInfoResponse groupDestination(String id, Map<String, String> members) {
        return GetReplicationDestinationInfoResponse.newBuilder()
                .setReplicationDestination(ReplicationDestination.newBuilder()
                        .setVolumegroup(ReplicationDestination.VolumeGroupDestination.newBuilder()
                                .setVolumeGroupId(id)
                                .putAllVolumeIds(members)))
                .build();
    }

    /** {@code count} members whose keys and values are 40 bytes each. */
    private static Map<String, String> members(int count) {
        Map<String, String> members = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            members.put(ofBytes("src-" + i + "-", 40), ofBytes("dst-" + i + "-", 40));
        }
        return members;
    }

    static List<Answer> destinations() {
        Rpc rpc = Rpc.GET_REPLICATION_DESTINATION_INFO;
        String volumeId = "replication_destination.volume.volume_id";
        String groupId = "replication_destination.volumegroup.volume_group_id";
        String memberIds = "replication_destination.volumegroup.volume_ids";
        return List.of(
                good("destination: a volume", rpc, Kind.VOLUME, volumeDestination("dst-vol-0")),
                good(
                        "destination: a volume id of 128 bytes",
                        rpc,
                        Kind.VOLUME,
                        volumeDestination(ofBytes("dst-", 128))),
                bad(
                        "destination: none",
                        rpc,
                        Kind.VOLUME,
                        GetReplicationDestinationInfoResponse.getDefaultInstance(),
                        "replication_destination"),
                bad("destination: an empty volume id", rpc, Kind.VOLUME, volumeDestination(""), volumeId),
                bad(
                        "destination: a volume id of 129 bytes",
                        rpc,
                        Kind.VOLUME,
                        volumeDestination(ofBytes("dst-", 129)),
                        volumeId),
                bad(
                        "destination: a volume id of 500 KB",
                        rpc,
                        Kind.VOLUME,
                        volumeDestination(ofBytes("dst-", 500_000)),
                        volumeId),
                bad(
                        "destination: a group's destination for a volume",
                        rpc,
                        Kind.VOLUME,
                        groupDestination("dst-grp-0", Map.of()),
                        "replication_destination"),
                good(
                        "destination: a group without members",
                        rpc,
                        Kind.VOLUME_GROUP,
                        groupDestination("dst-grp-0", Map.of())),
                good(
                        "destination: a group with members",
                        rpc,
                        Kind.VOLUME_GROUP,
                        groupDestination("dst-grp-0", Map.of("vol-0", "dst-vol-0", "vol-1", "dst-vol-1"))),
                good(
                        "destination: a group whose member map is 4 KiB",
                        rpc,
                        Kind.VOLUME_GROUP,
                        groupDestination("dst-grp-0", members(51))),
                bad(
                        "destination: a volume's destination for a group",
                        rpc,
                        Kind.VOLUME_GROUP,
                        volumeDestination("dst-vol-0"),
                        "replication_destination"),
                bad("destination: an empty group id", rpc, Kind.VOLUME_GROUP, groupDestination("", Map.of()), groupId),
                bad(
                        "destination: a group id of 129 bytes",
                        rpc,
                        Kind.VOLUME_GROUP,
                        groupDestination(ofBytes("dst-", 129), Map.of()),
                        groupId),
                bad(
                        "destination: a member without its source id",
                        rpc,
                        Kind.VOLUME_GROUP,
                        groupDestination("dst-grp-0", Map.of("", "dst-vol-0")),
                        memberIds),
                bad(
                        "destination: a member without its destination id",
                        rpc,
                        Kind.VOLUME_GROUP,
                        groupDestination("dst-grp-0", Map.of("vol-0", "")),
                        memberIds),
                bad(
                        "destination: a member source id of 129 bytes",
                        rpc,
                        Kind.VOLUME_GROUP,
                        groupDestination("dst-grp-0", Map.of(ofBytes("vol-", 129), "dst-vol-0")),
                        memberIds),
                bad(
                        "destination: a member destination id of 129 bytes",
                        rpc,
                        Kind.VOLUME_GROUP,
                        groupDestination("dst-grp-0", Map.of("vol-0", ofBytes("dst-", 129))),
                        memberIds),
                bad(
                        "destination: a member map over 4 KiB",
                        rpc,
                        Kind.VOLUME_GROUP,
                        groupDestination("dst-grp-0", members(52)),
                        memberIds));
    }

    static List<Answer> resync() {
        return List.of(
                good(
                        "resync: ready",
                        Rpc.RESYNC_VOLUME,
                        Kind.VOLUME,
                        ResyncVolumeResponse.newBuilder().setReady(true).build()),
                good(
                        "resync: not ready yet",
                        Rpc.RESYNC_VOLUME,
                        Kind.VOLUME,
                        ResyncVolumeResponse.newBuilder().setReady(false).build()));
    }

    static List<Answer> healer() {
        Rpc rpc = Rpc.NODE_HEALER;
        return List.of(
                good(
                        "heal: healthy",
                        rpc,
                        Kind.VOLUME,
                        NodeHealerResponse.newBuilder().setMessage("clean").build()),
                good(
                        "heal: abnormal",
                        rpc,
                        Kind.VOLUME,
                        NodeHealerResponse.newBuilder()
                                .setAbnormal(true)
                                .setMessage("read-only remount")
                                .build()),
                bad(
                        "heal: no message",
                        rpc,
                        Kind.VOLUME,
                        NodeHealerResponse.newBuilder().setAbnormal(true).build(),
                        "message"),
                bad(
                        "heal: a blank message",
                        rpc,
                        Kind.VOLUME,
                        NodeHealerResponse.newBuilder().setMessage("  ").build(),
                        "message"));
    }

    private static GetIdentityResponse identity(String name, String version) {
        return GetIdentityResponse.newBuilder()
                .setName(name)
                .setVendorVersion(version)
                .build();
    }

    static List<Answer> identity() {
        Rpc id = Rpc.GET_IDENTITY;
        Capability controller = Capability.newBuilder()
                .setService(Capability.Service.newBuilder().setType(Capability.Service.Type.CONTROLLER_SERVICE))
                .build();
        Capability replication = Capability.newBuilder()
                .setVolumeReplication(Capability.VolumeReplication.newBuilder()
                        .setType(Capability.VolumeReplication.Type.VOLUME_REPLICATION))
                .build();
        // A later revision's capabilities: a type number this build does not know, and a oneof member it lacks.
        Capability newerType = Capability.newBuilder()
                .setVolumeReplication(Capability.VolumeReplication.newBuilder().setTypeValue(9))
                .build();
        Capability newerKind = Capability.newBuilder()
                .setUnknownFields(UnknownFieldSet.newBuilder()
                        .addField(
                                7,
                                UnknownFieldSet.Field.newBuilder()
                                        .addLengthDelimited(ByteString.copyFrom(new byte[] {8, 1}))
                                        .build())
                        .build())
                .build();
        Map<String, String> bigManifest = new LinkedHashMap<>();
        bigManifest.put("notes", "n".repeat(4096));
        return List.of(
                good("identity: rbd.example.com", id, Kind.VOLUME, identity("rbd.example.com", "1.2.3")),
                good("identity: a one-character name", id, Kind.VOLUME, identity("a", "1")),
                good("identity: a name of 63 characters", id, Kind.VOLUME, identity(ofBytes("a.", 63), "1")),
                good(
                        "identity: mixed case, dashes and digits",
                        id,
                        Kind.VOLUME,
                        identity("Rbd-CSI.example-2.io", "v2")),
                good(
                        "identity: a manifest",
                        id,
                        Kind.VOLUME,
                        identity("rbd.example.com", "1").toBuilder()
                                .putManifest("commit", "80d74f9")
                                .build()),
                bad("identity: an empty name", id, Kind.VOLUME, identity("", "1"), "name"),
                bad("identity: a name of 64 characters", id, Kind.VOLUME, identity(ofBytes("a.", 64), "1"), "name"),
                bad(
                        "identity: a name starting with a dash",
                        id,
                        Kind.VOLUME,
                        identity("-rbd.example.com", "1"),
                        "name"),
                bad("identity: a name ending with a dot", id, Kind.VOLUME, identity("rbd.example.com.", "1"), "name"),
                bad(
                        "identity: a name with an underscore",
                        id,
                        Kind.VOLUME,
                        identity("rbd_csi.example.com", "1"),
                        "name"),
                bad("identity: a name with a space", id, Kind.VOLUME, identity("rbd example", "1"), "name"),
                bad(
                        "identity: an empty vendor_version",
                        id,
                        Kind.VOLUME,
                        identity("rbd.example.com", ""),
                        "vendor_version"),
                bad(
                        "identity: a manifest over 4 KiB",
                        id,
                        Kind.VOLUME,
                        identity("rbd.example.com", "1").toBuilder()
                                .putAllManifest(bigManifest)
                                .build(),
                        "manifest"),
                good(
                        "capabilities: controller and replication",
                        Rpc.GET_CAPABILITIES,
                        Kind.VOLUME,
                        GetCapabilitiesResponse.newBuilder()
                                .addCapabilities(controller)
                                .addCapabilities(replication)
                                .build()),
                good(
                        "capabilities: types of a later revision",
                        Rpc.GET_CAPABILITIES,
                        Kind.VOLUME,
                        GetCapabilitiesResponse.newBuilder()
                                .addCapabilities(controller)
                                .addCapabilities(replication)
                                .addCapabilities(newerType)
                                .addCapabilities(newerKind)
                                .build()),
                good("probe: ready absent", Rpc.PROBE, Kind.VOLUME, ProbeResponse.getDefaultInstance()),
                good(
                        "probe: ready",
                        Rpc.PROBE,
                        Kind.VOLUME,
                        ProbeResponse.newBuilder().setReady(BoolValue.of(true)).build()));
    }
}
