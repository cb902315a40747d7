package io.volrep.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import io.grpc.MethodDescriptor;
import io.grpc.Status.Code;
import io.volrep.api.internal.wire.WireMapping;
import io.volrep.proto.healer.HealerNodeGrpc;
import io.volrep.proto.healer.NodeHealerResponse;
import io.volrep.proto.identity.IdentityGrpc;
import io.volrep.proto.replication.GetVolumeReplicationInfoResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class TypedModelTest {

    @Test
    void sourceKindsNameTheProtosOneofMembersAndIdFields() {
        Descriptor source = io.volrep.proto.replication.ReplicationSource.getDescriptor();
        for (ReplicationSource.Kind kind : ReplicationSource.Kind.values()) {
            FieldDescriptor member = source.findFieldByName(kind.wireName());
            assertThat(member).as("the oneof member %s", kind.wireName()).isNotNull();
            assertThat(member.getContainingOneof().getName()).isEqualTo("type");
            FieldDescriptor id = member.getMessageType().getFields().get(0);
            assertThat(kind.idField()).isEqualTo("replication_source." + member.getName() + "." + id.getName());
            assertThat(ReplicationSource.Kind.fromWireName(kind.wireName())).isEqualTo(kind);
        }
        assertThat(ReplicationSource.Kind.VOLUME_GROUP.wireName()).isEqualTo("volumegroup");
        assertThat(ReplicationSource.Kind.VOLUME_SNAPSHOT.idField())
                .isEqualTo("replication_source.volumesnapshot.volume_snapshot_id");
    }

    @Test
    void rpcsAreExactlyTheMethodsOfTheSpecsServices() {
        assertThat(Arrays.stream(Rpc.values()).map(Rpc::fullMethodName))
                .containsExactlyInAnyOrderElementsOf(Stream.of(
                                io.volrep.proto.replication.ControllerGrpc.getServiceDescriptor(),
                                HealerNodeGrpc.getServiceDescriptor(),
                                io.volrep.proto.volumegroup.ControllerGrpc.getServiceDescriptor(),
                                IdentityGrpc.getServiceDescriptor())
                        .flatMap(service -> service.getMethods().stream())
                        .map(MethodDescriptor::getFullMethodName)
                        .toList());
        assertThat(Rpc.CONTROLLER_GET_VOLUME_GROUP.fullMethodName())
                .isEqualTo("volumegroup.Controller/ControllerGetVolumeGroup");
        assertThat(Rpc.fromMethodName("GetReplicationDestinationInfo")).contains(Rpc.GET_REPLICATION_DESTINATION_INFO);
        assertThat(Rpc.NODE_HEALER.service()).isEqualTo("healer.HealerNode");
    }

    @Test
    void statusCodesAreGrpcsCodesWithTheirWireNumbers() {
        assertThat(Arrays.stream(StatusCode.values()).map(StatusCode::name))
                .containsExactlyElementsOf(
                        Arrays.stream(Code.values()).map(Enum::name).toList());
        assertThat(StatusCode.OK.value()).isZero();
        assertThat(StatusCode.FAILED_PRECONDITION.value()).isEqualTo(9);
        assertThat(StatusCode.UNAUTHENTICATED.display()).isEqualTo("16 UNAUTHENTICATED");
        for (StatusCode code : StatusCode.values()) {
            assertThat(StatusCode.fromValue(code.value())).isEqualTo(code);
        }
        assertThat(StatusCode.fromValue(17)).isEqualTo(StatusCode.UNKNOWN);
    }

    @Test
    void sourceIdsAreValidatedAgainstTheCsiLimitNamingTheField() {
        assertThat(ReplicationSource.volume("x".repeat(128)).id()).hasSize(128);
        assertThatThrownBy(() -> ReplicationSource.volume("x".repeat(129)))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessage("replication_source.volume.volume_id: 129 bytes exceeds the CSI limit of 128 bytes");
        // 43 three-byte characters = 129 bytes, though only 43 chars
        assertThatThrownBy(() -> ReplicationSource.volumeGroup("\u20ac".repeat(43)))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageStartingWith("replication_source.volumegroup.volume_group_id: 129 bytes");
        assertThatThrownBy(() -> ReplicationSource.volumeSnapshot(""))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessageStartingWith("replication_source.volumesnapshot.volume_snapshot_id: required");
        assertThatThrownBy(() -> ReplicationSource.volume(null)).isInstanceOf(InvalidArgumentException.class);
    }

    @Test
    void mapsAreLimitedToFourKibibytesWithoutPrintingValues() {
        assertThat(CsiLimits.utf8Length("\uD83D\uDE00")).isEqualTo(4);
        Map<String, String> atLimit = Map.of("k", "v".repeat(4095));
        assertThat(CsiLimits.requireMapWithinLimit("secrets", atLimit)).isSameAs(atLimit);
        assertThatThrownBy(() -> CsiLimits.requireMapWithinLimit("secrets", Map.of("k", "SECRETVALUE".repeat(400))))
                .isInstanceOf(InvalidArgumentException.class)
                .hasMessage("secrets: 4401 bytes in total exceeds the CSI limit of 4096 bytes")
                .hasMessageNotContaining("SECRETVALUE");
    }

    @Test
    void infoRoundTripsAndRejectsWhatTheSpecForbids() {
        var info = ReplicationInfo.of(Instant.parse("2026-01-02T03:04:05.006Z"))
                .withLastSyncDuration(Duration.ofMillis(1500))
                .withLastSyncBytes(42);
        assertThat(WireMapping.fromProto(WireMapping.toProto(info), 1)).isEqualTo(info);
        assertThatThrownBy(() -> WireMapping.fromProto(GetVolumeReplicationInfoResponse.getDefaultInstance(), 1))
                .isInstanceOfSatisfying(
                        ProtocolViolationException.class,
                        e -> assertThat(e.field()).contains("last_sync_time"));
        var negative = WireMapping.toProto(ReplicationInfo.of(Instant.EPOCH)).toBuilder()
                .setLastSyncBytes(-1)
                .build();
        assertThatThrownBy(() -> WireMapping.fromProto(negative, 1))
                .isInstanceOf(ProtocolViolationException.class)
                .hasMessage("last_sync_bytes: MUST NOT be negative, got -1");
        assertThatThrownBy(() -> ReplicationInfo.of(Instant.EPOCH).withLastSyncBytes(-5))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void sourcesRoundTripThroughTheWire() {
        for (ReplicationSource s : new ReplicationSource[] {
            ReplicationSource.volume("v"), ReplicationSource.volumeGroup("g"), ReplicationSource.volumeSnapshot("s")
        }) {
            assertThat(WireMapping.fromProto(WireMapping.toProto(s))).isEqualTo(s);
        }
        assertThatThrownBy(
                        () -> WireMapping.fromProto(io.volrep.proto.replication.ReplicationSource.getDefaultInstance()))
                .isInstanceOfSatisfying(
                        InvalidArgumentException.class,
                        e -> assertThat(e.field()).contains("replication_source"))
                .hasMessageStartingWith("replication_source:");
    }

    @Test
    void healerModelRoundTripsAndRequiresAMessage() {
        var mount = VolumeCapability.mount("ext4", VolumeCapability.AccessMode.SINGLE_NODE_WRITER)
                .withMountFlags(List.of("noatime"));
        assertThat(WireMapping.fromProto(WireMapping.toProto(mount))).isEqualTo(mount);
        var block = VolumeCapability.block(VolumeCapability.AccessMode.MULTI_NODE_MULTI_WRITER);
        assertThat(WireMapping.toProto(block).getAccessMode().getModeValue()).isEqualTo(5);
        assertThat(WireMapping.fromProto(WireMapping.toProto(block))).isEqualTo(block);
        assertThatThrownBy(() -> WireMapping.fromProto(io.volrep.proto.csi.VolumeCapability.getDefaultInstance()))
                .isInstanceOfSatisfying(
                        InvalidArgumentException.class,
                        e -> assertThat(e.field()).contains("volume_capability.access_type"))
                .hasMessageStartingWith("volume_capability.access_type");
        var report = HealReport.abnormal("fsck found errors");
        assertThat(WireMapping.fromProto(WireMapping.toProto(report), 1)).isEqualTo(report);
        assertThatThrownBy(() -> WireMapping.fromProto(NodeHealerResponse.getDefaultInstance(), 1))
                .isInstanceOf(ProtocolViolationException.class)
                .hasMessage("message: REQUIRED but empty");
    }

    @Test
    void aVolumeGroupRoundTripsThroughTheWireWithItsMembersAndContext() {
        VolumeGroup group = new VolumeGroup(
                "vg-1",
                Map.of("pool", "rbd"),
                List.of(
                        new VolumeGroup.Member("vol-0", 1 << 30, Map.of("fs", "ext4")),
                        VolumeGroup.Member.of("vol-1")));
        assertThat(WireMapping.fromProto(WireMapping.toProto(group))).isEqualTo(group);
        assertThat(group.volumeIds()).containsExactly("vol-0", "vol-1");
        assertThat(group.members().get(0).capacity()).hasValue(1 << 30);
        assertThat(group.members().get(1).capacity()).isEmpty();
        assertThat(VolumeGroup.of("vg-2", "a", "b").withMembers(List.of()).volumeIds())
                .isEmpty();
        assertThat(group).hasToString("volume group vg-1 [vol-0, vol-1]");
        assertThatThrownBy(() -> group.members().add(VolumeGroup.Member.of("x")))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> new VolumeGroup(null, Map.of(), List.of()))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("id");
    }

    @Test
    void volumeGroupCapabilitiesSayWhichRpcsTheyOffer() {
        assertThat(VolumeGroupCapability.requiredFor(Rpc.CREATE_VOLUME_GROUP))
                .isEqualTo(VolumeGroupCapability.VOLUME_GROUP);
        assertThat(VolumeGroupCapability.requiredFor(Rpc.DELETE_VOLUME_GROUP))
                .isEqualTo(VolumeGroupCapability.VOLUME_GROUP);
        assertThat(VolumeGroupCapability.requiredFor(Rpc.MODIFY_VOLUME_GROUP_MEMBERSHIP))
                .isEqualTo(VolumeGroupCapability.MODIFY_VOLUME_GROUP);
        assertThat(VolumeGroupCapability.requiredFor(Rpc.CONTROLLER_GET_VOLUME_GROUP))
                .isEqualTo(VolumeGroupCapability.GET_VOLUME_GROUP);
        assertThat(VolumeGroupCapability.requiredFor(Rpc.LIST_VOLUME_GROUPS))
                .isEqualTo(VolumeGroupCapability.LIST_VOLUME_GROUPS);
        assertThatThrownBy(() -> VolumeGroupCapability.requiredFor(Rpc.PROMOTE_VOLUME))
                .isInstanceOf(IllegalArgumentException.class);
        // The wire numbers are the identity proto's, enum value by enum value.
        for (VolumeGroupCapability c : VolumeGroupCapability.values()) {
            assertThat(io.volrep.proto.identity.Capability.VolumeGroup.Type.forNumber(c.wireNumber())
                            .name())
                    .isEqualTo(c.name());
            assertThat(VolumeGroupCapability.fromWireNumber(c.wireNumber())).contains(c);
        }
        assertThat(VolumeGroupCapability.fromWireNumber(0)).isEmpty();
        assertThat(VolumeGroupCapability.fromWireNumber(99)).isEmpty();
        assertThat(VolumeGroupCapability.LIMIT_VOLUME_TO_ONE_VOLUME_GROUP.isBehaviour())
                .isTrue();
        assertThat(VolumeGroupCapability.LIST_VOLUME_GROUPS.isBehaviour()).isFalse();
        assertThat(Arrays.stream(Rpc.values()).filter(Rpc::isVolumeGroup))
                .allSatisfy(rpc -> assertThat(rpc.service()).isEqualTo("volumegroup.Controller"));
    }
}
