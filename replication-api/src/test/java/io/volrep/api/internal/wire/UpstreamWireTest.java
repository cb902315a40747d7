package io.volrep.api.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Descriptors.Descriptor;
import io.volrep.api.ProtocolViolationException;
import io.volrep.api.ReplicationDestination;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.SpecDialect;
import io.volrep.proto.identity.Capability;
import io.volrep.proto.replication.GetReplicationDestinationInfoRequest;
import io.volrep.proto.replication.GetReplicationDestinationInfoResponse;
import io.volrep.proto.replication.GetVolumeReplicationInfoResponse;
import io.volrep.proto.replication.PromoteVolumeRequest;
import io.volrep.proto.replication.ReplicationDestination.VolumeGroupDestination;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The current revision as the superset of seed 001 and upstream HEAD: numbers exact, typed model, checks. */
class UpstreamWireTest {
    private static int number(Descriptor type, String field) {
        return type.findFieldByName(field).getNumber();
    }

    @Test
    void fieldNumbersAreUpstreams() {
        Descriptor info = GetVolumeReplicationInfoResponse.getDescriptor();
        assertThat(number(info, "status")).isEqualTo(4);
        assertThat(number(info, "status_message")).isEqualTo(5);
        assertThat(GetVolumeReplicationInfoResponse.Status.DEGRADED.getNumber()).isEqualTo(2);
        assertThat(GetVolumeReplicationInfoResponse.Status.ERROR.getNumber()).isEqualTo(3);
        Descriptor request = GetReplicationDestinationInfoRequest.getDescriptor();
        assertThat(number(request, "secrets")).isEqualTo(1);
        assertThat(number(request, "replication_source")).isEqualTo(2);
        assertThat(request.getFields()).hasSize(2);
        assertThat(number(GetReplicationDestinationInfoResponse.getDescriptor(), "replication_destination"))
                .isEqualTo(1);
        Descriptor destination = io.volrep.proto.replication.ReplicationDestination.getDescriptor();
        assertThat(number(destination, "volume")).isEqualTo(1);
        assertThat(number(destination, "volumegroup")).isEqualTo(2);
        assertThat(number(VolumeGroupDestination.getDescriptor(), "volume_group_id"))
                .isEqualTo(1);
        assertThat(number(VolumeGroupDestination.getDescriptor(), "volume_ids")).isEqualTo(2);
        assertThat(Capability.VolumeReplication.Type.GET_REPLICATION_DESTINATION_INFO.getNumber())
                .isEqualTo(2);
        // 4 is volume_replication upstream; volrep gives the healer no oneof member (it is Service.NODE_SERVICE).
        assertThat(Capability.getDescriptor().findFieldByNumber(4).getName()).isEqualTo("volume_replication");
        assertThat(Capability.getDescriptor().getFields())
                .noneMatch(f -> f.getName().contains("heal"));
        // The seed's deprecated field 1 stays in the six requests of the superset.
        assertThat(number(PromoteVolumeRequest.getDescriptor(), "volume_id")).isEqualTo(1);
    }

    @Test
    void infoCarriesTheStatusAndUnknownWhenNotSaid() {
        Instant t = Instant.parse("2026-07-14T00:00:00Z");
        ReplicationInfo degraded = ReplicationInfo.of(t).withStatus(ReplicationInfo.Status.DEGRADED, "peer down");
        GetVolumeReplicationInfoResponse wire = WireMapping.toProto(degraded);
        assertThat(wire.getStatus()).isEqualTo(GetVolumeReplicationInfoResponse.Status.DEGRADED);
        assertThat(wire.getStatusMessage()).isEqualTo("peer down");
        // proto3 sends no bytes as 0, which reads back as a value (0 B, issue 35).
        assertThat(WireMapping.fromProto(wire, 1)).isEqualTo(degraded.withLastSyncBytes(0));
        assertThat(ReplicationInfo.of(t).status()).isEqualTo(ReplicationInfo.Status.UNKNOWN);
        assertThat(degraded.status().needsAttention()).isTrue();

        var outside = wire.toBuilder().setStatusValue(7).build();
        assertThatThrownBy(() -> WireMapping.fromProto(outside, 2))
                .isInstanceOf(ProtocolViolationException.class)
                .hasMessageContaining("status: 7 is none of UNKNOWN (0), HEALTHY (1), DEGRADED (2), ERROR (3)");
        // v0.1.3 has no status: read as UNKNOWN; written without it.
        Transcoder v013 = Transcoder.of(SpecDialect.V0_1_3);
        var legacy = v013.responseToWire(Rpc.GET_VOLUME_REPLICATION_INFO, wire);
        assertThat(legacy.getUnknownFields().asMap()).isEmpty();
        assertThat(WireMapping.fromProto(
                                (GetVolumeReplicationInfoResponse)
                                        v013.responseFromWire(Rpc.GET_VOLUME_REPLICATION_INFO, legacy),
                                1)
                        .status())
                .isEqualTo(ReplicationInfo.Status.UNKNOWN);
    }

    @Test
    void destinationsRoundTripAndTheirRulesAreChecked() {
        var volume = ReplicationDestination.volume("dst-1");
        assertThat(WireMapping.fromProto(WireMapping.toProto(volume), ReplicationSource.Kind.VOLUME, 1))
                .isEqualTo(volume);
        var group = ReplicationDestination.volumeGroup("dst-grp", Map.of("a", "a'", "b", "b'"));
        assertThat(WireMapping.fromProto(WireMapping.toProto(group), ReplicationSource.Kind.VOLUME_GROUP, 1))
                .isEqualTo(group);

        assertThatThrownBy(() ->
                        WireMapping.fromProto(WireMapping.toProto(volume), ReplicationSource.Kind.VOLUME_GROUP, 1))
                .isInstanceOfSatisfying(
                        ProtocolViolationException.class,
                        e -> assertThat(e.field()).contains("replication_destination"))
                .hasMessage("replication_destination: a volume destination"
                        + " answered for a volumegroup source: the destination's kind must be the source's");
        assertThatThrownBy(() -> WireMapping.fromProto(
                        GetReplicationDestinationInfoResponse.getDefaultInstance(), ReplicationSource.Kind.VOLUME, 3))
                .isInstanceOfSatisfying(ProtocolViolationException.class, e -> {
                    assertThat(e.rpc()).isEqualTo(Rpc.GET_REPLICATION_DESTINATION_INFO);
                    assertThat(e.attempts()).isEqualTo(3);
                    assertThat(e.field()).contains("replication_destination");
                    assertThat(e.getMessage()).isEqualTo("replication_destination: REQUIRED but not set");
                });
    }

    @Test
    void legacyRevisionsCannotAskForADestination() {
        var request = new RequestFields(
                        WireMapping.toProto(ReplicationSource.volume("v")), "", Map.of(), Map.of(), "", false)
                .toRequest(Rpc.GET_REPLICATION_DESTINATION_INFO);
        assertThat(request).isInstanceOf(GetReplicationDestinationInfoRequest.class);
        for (SpecDialect legacy : new SpecDialect[] {SpecDialect.V0_1_3, SpecDialect.V0_1_0}) {
            assertThat(legacy.supports(Rpc.GET_REPLICATION_DESTINATION_INFO)).isFalse();
            assertThatThrownBy(() -> Transcoder.of(legacy).requestToWire(Rpc.GET_REPLICATION_DESTINATION_INFO, request))
                    .isInstanceOf(NotExpressibleException.class)
                    .hasMessage(
                            "GetReplicationDestinationInfo: the RPC does not exist cannot be expressed in spec revision "
                                    + legacy.cliName());
        }
        assertThat(SpecDialect.CURRENT.supports(Rpc.GET_REPLICATION_DESTINATION_INFO))
                .isTrue();
    }
}
