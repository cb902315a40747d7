package io.volrep.api.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.google.protobuf.Duration;
import com.google.protobuf.Timestamp;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.wire.AnswerProblem.Kind;
import io.volrep.proto.healer.NodeHealerResponse;
import io.volrep.proto.identity.GetIdentityResponse;
import io.volrep.proto.replication.GetReplicationDestinationInfoResponse;
import io.volrep.proto.replication.GetVolumeReplicationInfoResponse;
import io.volrep.proto.replication.ReplicationDestination;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The answer rules, message by message: what each finds, the field it names and the kind of rule. That the client,
 * the runtime, the exec bridge and the kit all apply them alike is {@code AnswerAgreementTest}'s (replication-client).
 */
class AnswerRulesTest {
    private static final Timestamp NOW = Timestamp.newBuilder().setSeconds(1_767_225_600L).build();

    @Test
    void infoListsEveryProblemEachNamingItsField() {
        var info = GetVolumeReplicationInfoResponse.newBuilder()
                .setLastSyncTime(Timestamp.newBuilder().setSeconds(AnswerRules.MAX_TIMESTAMP_SECONDS + 1).setNanos(-1))
                .setLastSyncDuration(Duration.newBuilder().setSeconds(-2))
                .setLastSyncBytes(-3).setStatusValue(9).build();

        assertThat(AnswerRules.info(info)).extracting(AnswerProblem::field, AnswerProblem::kind).containsExactly(
                tuple("last_sync_time.seconds", Kind.OUT_OF_RANGE),
                tuple("last_sync_time.nanos", Kind.OUT_OF_RANGE),
                tuple("last_sync_duration", Kind.OUT_OF_RANGE),
                tuple("last_sync_bytes", Kind.OUT_OF_RANGE),
                tuple("status", Kind.OUT_OF_RANGE));
        assertThat(AnswerRules.info(GetVolumeReplicationInfoResponse.getDefaultInstance()))
                .containsExactly(new AnswerProblem("last_sync_time", Kind.MISSING, "REQUIRED but not set"));
        assertThat(AnswerRules.info(GetVolumeReplicationInfoResponse.newBuilder().setLastSyncTime(NOW)
                .setLastSyncDuration(Duration.newBuilder().setSeconds(AnswerRules.MAX_DURATION_SECONDS)).build()))
                .isEmpty();
    }

    @Test
    void aDurationMustHaveOneSignAndNotBeNegative() {
        var mixed = GetVolumeReplicationInfoResponse.newBuilder().setLastSyncTime(NOW)
                .setLastSyncDuration(Duration.newBuilder().setSeconds(1).setNanos(-1)).build();
        assertThat(AnswerRules.info(mixed)).singleElement().hasToString(
                "last_sync_duration: seconds 1 and nanos -1 must have the same sign");
        var negativeNanos = mixed.toBuilder().setLastSyncDuration(Duration.newBuilder().setNanos(-1)).build();
        assertThat(AnswerRules.info(negativeNanos)).singleElement()
                .extracting(AnswerProblem::field).isEqualTo("last_sync_duration");
    }

    private static GetReplicationDestinationInfoResponse group(String id, Map<String, String> members) {
        return GetReplicationDestinationInfoResponse.newBuilder().setReplicationDestination(ReplicationDestination
                .newBuilder().setVolumegroup(ReplicationDestination.VolumeGroupDestination.newBuilder()
                        .setVolumeGroupId(id).putAllVolumeIds(members))).build();
    }

    @Test
    void destinationIdsAndMembersAreBoundedByCsisLimits() {
        var group = ReplicationSource.Kind.VOLUME_GROUP;
        assertThat(AnswerRules.destination(group("g".repeat(128), Map.of("a", "b".repeat(128))), group)).isEmpty();
        assertThat(AnswerRules.destination(group("g".repeat(129), Map.of()), group)).singleElement()
                .hasToString("replication_destination.volumegroup.volume_group_id: 129 bytes exceeds the CSI limit"
                        + " of 128 bytes");
        // One bad member says enough, however many there are; the map's size is its own problem.
        Map<String, String> huge = new LinkedHashMap<>();
        for (int i = 0; i < 1000; i++) {
            huge.put("k".repeat(129) + i, "");
        }
        assertThat(AnswerRules.destination(group("g", huge), group))
                .extracting(AnswerProblem::field, AnswerProblem::kind).containsExactly(
                        tuple("replication_destination.volumegroup.volume_ids", Kind.MISSING),
                        tuple("replication_destination.volumegroup.volume_ids", Kind.OVER_LIMIT));
        assertThat(AnswerRules.destination(group("g", Map.of("é".repeat(65), "x")), group)).singleElement()
                .satisfies(p -> assertThat(p.detail()).contains("130 bytes"));
        assertThat(AnswerRules.destination(group("g", Map.of()), ReplicationSource.Kind.VOLUME)).singleElement()
                .extracting(AnswerProblem::field, AnswerProblem::kind)
                .containsExactly("replication_destination", Kind.MALFORMED);
    }

    @Test
    void identityNamesFollowTheDomainNameNotation() {
        for (String good : new String[] {"a", "rbd.csi.ceph.com", "Rbd-2.example.io", "x".repeat(63)}) {
            assertThat(AnswerRules.identity(GetIdentityResponse.newBuilder().setName(good).setVendorVersion("1")
                    .build())).as(good).isEmpty();
        }
        for (String bad : new String[] {"-a", "a-", "a.", ".a", "a_b", "a b", "x".repeat(64), "é.example.com",
                "rbd\u001b[2J"}) {
            assertThat(AnswerRules.identity(GetIdentityResponse.newBuilder().setName(bad).setVendorVersion("1")
                    .build())).as(bad).singleElement().satisfies(p -> {
                        assertThat(p.field()).isEqualTo("name");
                        assertThat(p.kind()).isEqualTo(Kind.MALFORMED);
                        assertThat(p.detail()).doesNotContain("\u001b");
                    });
        }
        assertThat(AnswerRules.identity(GetIdentityResponse.getDefaultInstance()))
                .extracting(AnswerProblem::field).containsExactly("name", "vendor_version");
        assertThat(AnswerRules.identity(GetIdentityResponse.newBuilder().setName("a").setVendorVersion("1")
                .putManifest("notes", "n".repeat(4096)).build())).singleElement()
                .extracting(AnswerProblem::field, AnswerProblem::kind).containsExactly("manifest", Kind.OVER_LIMIT);
    }

    @Test
    void aHealerAnswerNeedsItsMessage() {
        assertThat(AnswerRules.healer(NodeHealerResponse.newBuilder().setMessage(" \t").build())).singleElement()
                .hasToString("message: REQUIRED but empty");
        assertThat(AnswerRules.healer(NodeHealerResponse.newBuilder().setMessage("clean").build())).isEmpty();
    }

    @Test
    void everyRpcHasItsRulesAndTheEmptyAnswersHaveNone() {
        for (Rpc rpc : Rpc.values()) {
            var empty = switch (rpc) {
                case GET_VOLUME_REPLICATION_INFO -> GetVolumeReplicationInfoResponse.getDefaultInstance();
                case GET_REPLICATION_DESTINATION_INFO -> GetReplicationDestinationInfoResponse.getDefaultInstance();
                case NODE_HEALER -> NodeHealerResponse.getDefaultInstance();
                case GET_IDENTITY -> GetIdentityResponse.getDefaultInstance();
                case GET_CAPABILITIES -> io.volrep.proto.identity.GetCapabilitiesResponse.getDefaultInstance();
                case PROBE -> io.volrep.proto.identity.ProbeResponse.getDefaultInstance();
                case RESYNC_VOLUME -> io.volrep.proto.replication.ResyncVolumeResponse.getDefaultInstance();
                default -> com.google.protobuf.Empty.getDefaultInstance();
            };
            boolean required = switch (rpc) {
                case GET_VOLUME_REPLICATION_INFO, GET_REPLICATION_DESTINATION_INFO, NODE_HEALER, GET_IDENTITY -> true;
                default -> false;
            };
            assertThat(AnswerRules.of(rpc, empty, ReplicationSource.Kind.VOLUME)).as("%s", rpc)
                    .allSatisfy(p -> assertThat(p.kind()).isEqualTo(Kind.MISSING))
                    .hasSizeBetween(required ? 1 : 0, required ? 2 : 0);
        }
    }
}
