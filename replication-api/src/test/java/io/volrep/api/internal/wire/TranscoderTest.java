package io.volrep.api.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Message;
import io.grpc.MethodDescriptor.PrototypeMarshaller;
import io.volrep.api.ErrorScheme;
import io.volrep.api.InvalidArgumentException;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.SpecDialect;
import io.volrep.proto.replication.GetVolumeReplicationInfoResponse;
import io.volrep.proto.replication.v0_1_0.ResyncVolumeRequest;
import io.volrep.proto.replication.v0_1_3.DemoteVolumeRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** One descriptor-driven transcoder between the current revision and each legacy one. */
@SuppressWarnings("deprecation") // sends or reads the deprecated volume_id (field 1) on purpose
class TranscoderTest {
    private static Message request(Rpc rpc, ReplicationSource source, String replicationId) {
        return new RequestFields(
                        WireMapping.toProto(source),
                        "",
                        Map.of("mode", "snapshot"),
                        Map.of("user", "admin"),
                        replicationId,
                        rpc != Rpc.GET_VOLUME_REPLICATION_INFO)
                .toRequest(rpc);
    }

    @ParameterizedTest
    @EnumSource(SpecDialect.class)
    void everyRequestOfEveryRevisionRoundTripsToTheSameCurrentRequest(SpecDialect dialect) {
        Transcoder t = Transcoder.of(dialect);
        for (Rpc rpc : t.rpcs()) {
            for (ReplicationSource.Kind kind : ReplicationSource.Kind.values()) {
                if (!dialect.supports(kind)) {
                    continue;
                }
                ReplicationSource source = switch (kind) {
                    case VOLUME -> ReplicationSource.volume("vol-1");
                    case VOLUME_GROUP -> ReplicationSource.volumeGroup("grp-1");
                    case VOLUME_SNAPSHOT -> ReplicationSource.volumeSnapshot("snap-1");
                };
                String rid = dialect == SpecDialect.V0_1_0 ? "" : "rep-1";
                Message current = request(rpc, source, rid);
                Message wire = t.requestToWire(rpc, current);
                assertThat(wire.getDescriptorForType())
                        .isEqualTo(
                                t.method(rpc).getRequestMarshaller() instanceof PrototypeMarshaller<Message> p
                                        ? p.getMessagePrototype().getDescriptorForType()
                                        : null);
                Message back = t.requestFromWire(rpc, wire);
                RequestFields fields = RequestFields.of(back);
                assertThat(WireMapping.fromProto(
                                fields.source() == null
                                        ? WireMapping.toProto(ReplicationSource.volume(fields.volumeId()))
                                        : fields.source()))
                        .as("%s %s %s", dialect, rpc, kind)
                        .isEqualTo(source);
                assertThat(fields.secrets()).containsEntry("user", "admin");
                assertThat(fields.replicationId())
                        .isEqualTo(RequestFields.of(current).replicationId());
                assertThat(fields.force()).isEqualTo(RequestFields.of(current).force());
            }
        }
    }

    @Test
    void upstreamHeadNeverSendsTheReservedFieldOneAndReadsItAsUnknown() {
        Transcoder head = Transcoder.of(SpecDialect.UPSTREAM_2026);
        var withFieldOne = io.volrep.proto.replication.PromoteVolumeRequest.newBuilder()
                .setVolumeId("pvc-1")
                .setReplicationSource(WireMapping.toProto(ReplicationSource.volume("pvc-1")))
                .setForce(true)
                .build();

        // A client in this dialect sends the same message, without field 1.
        var sent =
                (io.volrep.proto.replication.PromoteVolumeRequest) head.requestToWire(Rpc.PROMOTE_VOLUME, withFieldOne);
        assertThat(sent.getVolumeId()).isEmpty();
        assertThat(sent.getReplicationSource()).isEqualTo(withFieldOne.getReplicationSource());
        assertThat(sent.getForce()).isTrue();
        // A server in this dialect reads field 1 as its own protos do: not at all. Alone, it names no source.
        var fieldOneAlone = io.volrep.proto.replication.PromoteVolumeRequest.newBuilder()
                .setVolumeId("pvc-1")
                .build();
        assertThat(RequestFields.of(head.requestFromWire(Rpc.PROMOTE_VOLUME, fieldOneAlone))
                        .volumeId())
                .isEmpty();
        assertThat(RequestFields.of(head.requestFromWire(
                                Rpc.PROMOTE_VOLUME,
                                withFieldOne.toBuilder().setVolumeId("another").build()))
                        .volumeId())
                .isEmpty();
        // The conformance suite sends it as is, to check that it is ignored.
        assertThat(head.requestAsIs(Rpc.PROMOTE_VOLUME, fieldOneAlone)).isEqualTo(fieldOneAlone);
        // No volumesnapshot source upstream: not expressible, and unknown (a source without a type) when received.
        Message snapshot = request(Rpc.PROMOTE_VOLUME, ReplicationSource.volumeSnapshot("snap-1"), "");
        Assertions.assertThatThrownBy(() -> head.requestToWire(Rpc.PROMOTE_VOLUME, snapshot))
                .isInstanceOf(NotExpressibleException.class)
                .hasMessageContaining("volumesnapshot");
        assertThat(((io.volrep.proto.replication.PromoteVolumeRequest)
                                head.requestFromWire(Rpc.PROMOTE_VOLUME, snapshot))
                        .getReplicationSource())
                .isEqualTo(io.volrep.proto.replication.ReplicationSource.getDefaultInstance());
        assertThat(head.method(Rpc.GET_REPLICATION_DESTINATION_INFO))
                .isSameAs(Transcoder.of(SpecDialect.CURRENT).method(Rpc.GET_REPLICATION_DESTINATION_INFO));
        assertThat(ErrorScheme.forDialect(SpecDialect.UPSTREAM_2026)).isSameAs(ErrorScheme.spec());
    }

    @Test
    void v013GroupIsFieldOneAndCarriesItsIdInVolumeId() {
        Transcoder t = Transcoder.of(SpecDialect.V0_1_3);
        var wire = (io.volrep.proto.replication.v0_1_3.PromoteVolumeRequest) t.requestToWire(
                Rpc.PROMOTE_VOLUME, request(Rpc.PROMOTE_VOLUME, ReplicationSource.volumeGroup("vg-7"), ""));
        assertThat(wire.getVolumeId()).isEqualTo("vg-7");
        assertThat(wire.getReplicationSource().getVolumegroup().getVolumeGroupId())
                .isEqualTo("vg-7");
        assertThat(wire.getReplicationSource().toByteArray()[0]).isEqualTo((byte) 0x0a);
        assertThat(wire.getForce()).isTrue();
        // Read back, volume_id no longer names the group: the source does.
        var current = (io.volrep.proto.replication.PromoteVolumeRequest) t.requestFromWire(Rpc.PROMOTE_VOLUME, wire);
        assertThat(current.getVolumeId()).isEmpty();
        assertThat(current.getReplicationSource().getVolumegroup().getVolumeGroupId())
                .isEqualTo("vg-7");
    }

    @Test
    void v010CarriesAVolumeInVolumeIdOnly() {
        var wire = (ResyncVolumeRequest) Transcoder.of(SpecDialect.V0_1_0)
                .requestToWire(Rpc.RESYNC_VOLUME, request(Rpc.RESYNC_VOLUME, ReplicationSource.volume("pvc-1"), ""));
        assertThat(wire.getVolumeId()).isEqualTo("pvc-1");
        assertThat(wire.getParametersMap()).containsEntry("mode", "snapshot");
        assertThat(wire.getUnknownFields().asMap()).isEmpty();
    }

    @Test
    void whatARevisionCannotExpressIsAClearException() {
        Transcoder v010 = Transcoder.of(SpecDialect.V0_1_0);
        assertThatThrownBy(() -> v010.requestToWire(
                        Rpc.GET_VOLUME_REPLICATION_INFO,
                        request(Rpc.GET_VOLUME_REPLICATION_INFO, ReplicationSource.volume("v"), "")))
                .isInstanceOf(NotExpressibleException.class)
                .hasMessage(
                        "GetVolumeReplicationInfo: the RPC does not exist cannot be expressed in spec revision v0.1.0");
        assertThatThrownBy(() -> v010.requestToWire(
                        Rpc.PROMOTE_VOLUME, request(Rpc.PROMOTE_VOLUME, ReplicationSource.volumeGroup("g"), "")))
                .isInstanceOfSatisfying(NotExpressibleException.class, e -> {
                    assertThat(e)
                            .hasMessage("PromoteVolume: a volumegroup source cannot be expressed in spec "
                                    + "revision v0.1.0");
                    assertThat(e.dialect()).isEqualTo(SpecDialect.V0_1_0);
                    assertThat(e.rpc()).isEqualTo(Rpc.PROMOTE_VOLUME);
                });
        assertThatThrownBy(() -> v010.requestToWire(
                        Rpc.ENABLE_VOLUME_REPLICATION,
                        request(Rpc.ENABLE_VOLUME_REPLICATION, ReplicationSource.volume("v"), "rep-1")))
                .isInstanceOfSatisfying(
                        NotExpressibleException.class,
                        e -> assertThat(e)
                                .hasMessage("EnableVolumeReplication: replication_id cannot be expressed "
                                        + "in spec revision v0.1.0"));
        assertThatThrownBy(() -> Transcoder.of(SpecDialect.V0_1_3)
                        .requestToWire(
                                Rpc.DEMOTE_VOLUME,
                                request(Rpc.DEMOTE_VOLUME, ReplicationSource.volumeSnapshot("s"), "")))
                .isInstanceOfSatisfying(
                        NotExpressibleException.class,
                        e -> assertThat(e)
                                .hasMessage("DemoteVolume: a volumesnapshot source cannot be expressed in "
                                        + "spec revision v0.1.3"));
    }

    @Test
    void legacyRequestsWithoutVolumeIdAreInvalidArguments() {
        for (SpecDialect dialect : new SpecDialect[] {SpecDialect.V0_1_3, SpecDialect.V0_1_0}) {
            Message empty =
                    Transcoder.of(dialect).method(Rpc.ENABLE_VOLUME_REPLICATION).getRequestMarshaller()
                                    instanceof PrototypeMarshaller<Message> p
                            ? p.getMessagePrototype()
                            : null;
            assertThatThrownBy(() -> Transcoder.of(dialect).requestFromWire(Rpc.ENABLE_VOLUME_REPLICATION, empty))
                    .isInstanceOf(InvalidArgumentException.class)
                    .hasMessage("volume_id: required field is missing (REQUIRED in spec " + dialect.cliName() + ")");
        }
    }

    @Test
    void responsesDropWhatTheRevisionCannotSayAndReadBackAsNotReported() {
        Instant time = Instant.parse("2026-03-01T10:00:00Z");
        GetVolumeReplicationInfoResponse current = WireMapping.toProto(ReplicationInfo.of(time)
                .withLastSyncDuration(Duration.ofSeconds(3))
                .withLastSyncBytes(99));
        Transcoder v013 = Transcoder.of(SpecDialect.V0_1_3);
        var wire = (io.volrep.proto.replication.v0_1_3.GetVolumeReplicationInfoResponse)
                v013.responseToWire(Rpc.GET_VOLUME_REPLICATION_INFO, current);
        assertThat(wire.getLastSyncTime().getSeconds()).isEqualTo(time.getEpochSecond());
        assertThat(wire.getUnknownFields().asMap()).isEmpty();
        var back = (GetVolumeReplicationInfoResponse) v013.responseFromWire(Rpc.GET_VOLUME_REPLICATION_INFO, wire);
        assertThat(WireMapping.fromProto(back, 1, SpecDialect.V0_1_3)).isEqualTo(ReplicationInfo.of(time));
        // The current revision has the field: its 0 is a value (issue 35), not "not reported".
        assertThat(WireMapping.fromProto(back, 1, SpecDialect.CURRENT).lastSyncBytes())
                .hasValue(0);
        assertThat(WireMapping.fromProto(back, 1).lastSyncBytes()).hasValue(0);
    }

    @Test
    void theCurrentRevisionTranscodesToItselfForFree() {
        Transcoder t = Transcoder.of(SpecDialect.CURRENT);
        Message m = request(Rpc.PROMOTE_VOLUME, ReplicationSource.volumeSnapshot("s"), "r");
        assertThat(t.requestToWire(Rpc.PROMOTE_VOLUME, m)).isSameAs(m);
        assertThat(t.requestFromWire(Rpc.PROMOTE_VOLUME, m)).isSameAs(m);
    }

    @Test
    void requestAsIsSendsWhatAPoliteClientRefuses() {
        Message noVolumeId = Transcoder.of(SpecDialect.V0_1_3)
                .requestAsIs(Rpc.DEMOTE_VOLUME, request(Rpc.DEMOTE_VOLUME, ReplicationSource.volume("v"), ""));
        assertThat(((DemoteVolumeRequest) noVolumeId).getVolumeId()).isEmpty();
        assertThatThrownBy(() -> Transcoder.of(SpecDialect.V0_1_3)
                        .requestAsIs(
                                Rpc.DEMOTE_VOLUME,
                                request(Rpc.DEMOTE_VOLUME, ReplicationSource.volumeSnapshot("s"), "")))
                .hasMessageContaining("replication_source.volumesnapshot does not exist in spec revision v0.1.3");
    }
}
