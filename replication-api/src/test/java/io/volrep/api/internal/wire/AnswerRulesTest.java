package io.volrep.api.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.google.protobuf.Duration;
import com.google.protobuf.Empty;
import com.google.protobuf.Timestamp;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.internal.wire.AnswerProblem.Kind;
import io.volrep.proto.csi.Volume;
import io.volrep.proto.healer.NodeHealerResponse;
import io.volrep.proto.identity.GetCapabilitiesResponse;
import io.volrep.proto.identity.GetIdentityResponse;
import io.volrep.proto.identity.ProbeResponse;
import io.volrep.proto.replication.GetReplicationDestinationInfoResponse;
import io.volrep.proto.replication.GetVolumeReplicationInfoResponse;
import io.volrep.proto.replication.ReplicationDestination;
import io.volrep.proto.replication.ResyncVolumeResponse;
import io.volrep.proto.volumegroup.ControllerGetVolumeGroupResponse;
import io.volrep.proto.volumegroup.CreateVolumeGroupResponse;
import io.volrep.proto.volumegroup.ListVolumeGroupsResponse;
import io.volrep.proto.volumegroup.ModifyVolumeGroupMembershipResponse;
import io.volrep.proto.volumegroup.VolumeGroup;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The answer rules, message by message: what each finds, the field it names and the kind of rule. That the client,
 * the runtime, the exec bridge and the kit all apply them alike is {@code AnswerAgreementTest}'s (module answer-agreement).
 */
class AnswerRulesTest {
    private static final Timestamp NOW =
            Timestamp.newBuilder().setSeconds(1_767_225_600L).build();

    @Test
    void infoListsEveryProblemEachNamingItsField() {
        var info = GetVolumeReplicationInfoResponse.newBuilder()
                .setLastSyncTime(Timestamp.newBuilder()
                        .setSeconds(AnswerRules.MAX_TIMESTAMP_SECONDS + 1)
                        .setNanos(-1))
                .setLastSyncDuration(Duration.newBuilder().setSeconds(-2))
                .setLastSyncBytes(-3)
                .setStatusValue(9)
                .build();

        assertThat(AnswerRules.info(info))
                .extracting(AnswerProblem::field, AnswerProblem::kind)
                .containsExactly(
                        tuple("last_sync_time.seconds", Kind.OUT_OF_RANGE),
                        tuple("last_sync_time.nanos", Kind.OUT_OF_RANGE),
                        tuple("last_sync_duration", Kind.OUT_OF_RANGE),
                        tuple("last_sync_bytes", Kind.OUT_OF_RANGE),
                        tuple("status", Kind.OUT_OF_RANGE));
        assertThat(AnswerRules.info(GetVolumeReplicationInfoResponse.getDefaultInstance()))
                .containsExactly(new AnswerProblem("last_sync_time", Kind.MISSING, "REQUIRED but not set"));
        assertThat(AnswerRules.info(GetVolumeReplicationInfoResponse.newBuilder()
                        .setLastSyncTime(NOW)
                        .setLastSyncDuration(Duration.newBuilder().setSeconds(AnswerRules.MAX_DURATION_SECONDS))
                        .build()))
                .isEmpty();
    }

    @Test
    void aDurationMustHaveOneSignAndNotBeNegative() {
        var mixed = GetVolumeReplicationInfoResponse.newBuilder()
                .setLastSyncTime(NOW)
                .setLastSyncDuration(Duration.newBuilder().setSeconds(1).setNanos(-1))
                .build();
        assertThat(AnswerRules.info(mixed))
                .singleElement()
                .hasToString("last_sync_duration: seconds 1 and nanos -1 must have the same sign");
        var negativeNanos = mixed.toBuilder()
                .setLastSyncDuration(Duration.newBuilder().setNanos(-1))
                .build();
        assertThat(AnswerRules.info(negativeNanos))
                .singleElement()
                .extracting(AnswerProblem::field)
                .isEqualTo("last_sync_duration");
    }

    private static GetReplicationDestinationInfoResponse group(String id, Map<String, String> members) {
        return GetReplicationDestinationInfoResponse.newBuilder()
                .setReplicationDestination(ReplicationDestination.newBuilder()
                        .setVolumegroup(ReplicationDestination.VolumeGroupDestination.newBuilder()
                                .setVolumeGroupId(id)
                                .putAllVolumeIds(members)))
                .build();
    }

    @Test
    void destinationIdsAndMembersAreBoundedByCsisLimits() {
        var group = ReplicationSource.Kind.VOLUME_GROUP;
        assertThat(AnswerRules.destination(group("g".repeat(128), Map.of("a", "b".repeat(128))), group))
                .isEmpty();
        assertThat(AnswerRules.destination(group("g".repeat(129), Map.of()), group))
                .singleElement()
                .hasToString("replication_destination.volumegroup.volume_group_id: 129 bytes exceeds the CSI limit"
                        + " of 128 bytes");
        // One bad member says enough, however many there are; the map's size is its own problem.
        Map<String, String> huge = new LinkedHashMap<>();
        for (int i = 0; i < 1000; i++) {
            huge.put("k".repeat(129) + i, "");
        }
        assertThat(AnswerRules.destination(group("g", huge), group))
                .extracting(AnswerProblem::field, AnswerProblem::kind)
                .containsExactly(
                        tuple("replication_destination.volumegroup.volume_ids", Kind.MISSING),
                        tuple("replication_destination.volumegroup.volume_ids", Kind.OVER_LIMIT));
        assertThat(AnswerRules.destination(group("g", Map.of("é".repeat(65), "x")), group))
                .singleElement()
                .satisfies(p -> assertThat(p.detail()).contains("130 bytes"));
        assertThat(AnswerRules.destination(group("g", Map.of()), ReplicationSource.Kind.VOLUME))
                .singleElement()
                .extracting(AnswerProblem::field, AnswerProblem::kind)
                .containsExactly("replication_destination", Kind.MALFORMED);
    }

    @Test
    void identityNamesFollowTheDomainNameNotation() {
        for (String good : new String[] {"a", "rbd.csi.ceph.com", "Rbd-2.example.io", "x".repeat(63)}) {
            assertThat(AnswerRules.identity(GetIdentityResponse.newBuilder()
                            .setName(good)
                            .setVendorVersion("1")
                            .build()))
                    .as(good)
                    .isEmpty();
        }
        for (String bad :
                new String[] {"-a", "a-", "a.", ".a", "a_b", "a b", "x".repeat(64), "é.example.com", "rbd\u001b[2J"}) {
            assertThat(AnswerRules.identity(GetIdentityResponse.newBuilder()
                            .setName(bad)
                            .setVendorVersion("1")
                            .build()))
                    .as(bad)
                    .singleElement()
                    .satisfies(p -> {
                        assertThat(p.field()).isEqualTo("name");
                        assertThat(p.kind()).isEqualTo(Kind.MALFORMED);
                        assertThat(p.detail()).doesNotContain("\u001b");
                    });
        }
        assertThat(AnswerRules.identity(GetIdentityResponse.getDefaultInstance()))
                .extracting(AnswerProblem::field)
                .containsExactly("name", "vendor_version");
        assertThat(AnswerRules.identity(GetIdentityResponse.newBuilder()
                        .setName("a")
                        .setVendorVersion("1")
                        .putManifest("notes", "n".repeat(4096))
                        .build()))
                .singleElement()
                .extracting(AnswerProblem::field, AnswerProblem::kind)
                .containsExactly("manifest", Kind.OVER_LIMIT);
    }

    @Test
    void aHealerAnswerNeedsItsMessage() {
        assertThat(AnswerRules.healer(
                        NodeHealerResponse.newBuilder().setMessage(" \t").build()))
                .singleElement()
                .hasToString("message: REQUIRED but empty");
        assertThat(AnswerRules.healer(
                        NodeHealerResponse.newBuilder().setMessage("clean").build()))
                .isEmpty();
    }

    @Test
    void everyRpcHasItsRulesAndTheEmptyAnswersHaveNone() {
        for (Rpc rpc : Rpc.values()) {
            var empty = switch (rpc) {
                case GET_VOLUME_REPLICATION_INFO -> GetVolumeReplicationInfoResponse.getDefaultInstance();
                case GET_REPLICATION_DESTINATION_INFO -> GetReplicationDestinationInfoResponse.getDefaultInstance();
                case NODE_HEALER -> NodeHealerResponse.getDefaultInstance();
                case GET_IDENTITY -> GetIdentityResponse.getDefaultInstance();
                case GET_CAPABILITIES -> GetCapabilitiesResponse.getDefaultInstance();
                case PROBE -> ProbeResponse.getDefaultInstance();
                case RESYNC_VOLUME -> ResyncVolumeResponse.getDefaultInstance();
                case CREATE_VOLUME_GROUP -> CreateVolumeGroupResponse.getDefaultInstance();
                case MODIFY_VOLUME_GROUP_MEMBERSHIP -> ModifyVolumeGroupMembershipResponse.getDefaultInstance();
                case CONTROLLER_GET_VOLUME_GROUP -> ControllerGetVolumeGroupResponse.getDefaultInstance();
                case LIST_VOLUME_GROUPS -> ListVolumeGroupsResponse.getDefaultInstance();
                default -> Empty.getDefaultInstance();
            };
            boolean required = switch (rpc) {
                case GET_VOLUME_REPLICATION_INFO,
                        GET_REPLICATION_DESTINATION_INFO,
                        NODE_HEALER,
                        GET_IDENTITY,
                        CREATE_VOLUME_GROUP,
                        MODIFY_VOLUME_GROUP_MEMBERSHIP,
                        CONTROLLER_GET_VOLUME_GROUP -> true;
                default -> false;
            };
            assertThat(AnswerRules.of(rpc, empty, ReplicationSource.Kind.VOLUME))
                    .as("%s", rpc)
                    .allSatisfy(p -> assertThat(p.kind()).isEqualTo(Kind.MISSING))
                    .hasSizeBetween(required ? 1 : 0, required ? 2 : 0);
        }
    }

    private static VolumeGroup.Builder group(String id, String... members) {
        VolumeGroup.Builder b = VolumeGroup.newBuilder().setVolumeGroupId(id);
        for (String m : members) {
            b.addVolumes(Volume.newBuilder().setVolumeId(m));
        }
        return b;
    }

    @Test
    void aVolumeGroupAnswerNeedsItsGroupWithAnIdAndMembersWithinTheCsiLimits() {
        assertThat(AnswerRules.volumeGroupCreated(
                        CreateVolumeGroupResponse.newBuilder()
                                .setVolumeGroup(group("g".repeat(128), "vol-0", "vol-1"))
                                .build(),
                        List.of("vol-0", "vol-1")))
                .isEmpty();
        assertThat(AnswerRules.volumeGroupCreated(CreateVolumeGroupResponse.getDefaultInstance(), List.of()))
                .extracting(AnswerProblem::field, AnswerProblem::kind)
                .containsExactly(tuple("volume_group", Kind.MISSING));
        assertThat(AnswerRules.volumeGroup(ControllerGetVolumeGroupResponse.newBuilder()
                        .setVolumeGroup(group("", "vol-0"))
                        .build()))
                .extracting(AnswerProblem::field, AnswerProblem::kind)
                .containsExactly(tuple("volume_group.volume_group_id", Kind.MISSING));
        // One bad member says enough; the first one is named, by its place.
        VolumeGroup.Builder bad = group("g", "vol-0", "", "x".repeat(129));
        bad.addVolumes(Volume.newBuilder().setVolumeId("vol-9").setCapacityBytes(-1));
        assertThat(AnswerRules.volumeGroup(ControllerGetVolumeGroupResponse.newBuilder()
                        .setVolumeGroup(bad)
                        .build()))
                .extracting(AnswerProblem::field, AnswerProblem::kind)
                .containsExactly(tuple("volume_group.volumes[1].volume_id", Kind.MISSING));
        assertThat(AnswerRules.volumeGroup(ControllerGetVolumeGroupResponse.newBuilder()
                        .setVolumeGroup(group("g")
                                .addVolumes(Volume.newBuilder().setVolumeId("v").setCapacityBytes(-5)))
                        .build()))
                .singleElement()
                .hasToString("volume_group.volumes[0].capacity_bytes: MUST NOT be negative, got -5");
        assertThat(AnswerRules.volumeGroup(ControllerGetVolumeGroupResponse.newBuilder()
                        .setVolumeGroup(group("g", "vol-0", "vol-0"))
                        .build()))
                .singleElement()
                .hasToString("volume_group.volumes[1].volume_id: \"vol-0\" is listed twice");
        assertThat(AnswerRules.volumeGroup(ControllerGetVolumeGroupResponse.newBuilder()
                        .setVolumeGroup(group("g").putVolumeGroupContext("k", "v".repeat(4096)))
                        .build()))
                .extracting(AnswerProblem::field, AnswerProblem::kind)
                .containsExactly(tuple("volume_group.volume_group_context", Kind.OVER_LIMIT));
    }

    @Test
    void aModifyAnswerListsExactlyTheMembershipAskedFor() {
        var answer = ModifyVolumeGroupMembershipResponse.newBuilder()
                .setVolumeGroup(group("g", "vol-1", "vol-2"))
                .build();
        assertThat(AnswerRules.of(
                        Rpc.MODIFY_VOLUME_GROUP_MEMBERSHIP,
                        answer,
                        AnswerRules.Asked.membership("g", List.of("vol-2", "vol-1"))))
                .isEmpty();
        assertThat(AnswerRules.of(
                        Rpc.MODIFY_VOLUME_GROUP_MEMBERSHIP,
                        answer,
                        AnswerRules.Asked.membership("g", List.of("vol-1", "vol-3"))))
                .singleElement()
                .hasToString("volume_group.volumes: the membership asked for is [\"vol-1\", \"vol-3\"], the answer"
                        + " lists [\"vol-1\", \"vol-2\"] (missing [\"vol-3\"]) (not asked for [\"vol-2\"])");
        // An empty membership asked for: the group answered must be empty too.
        assertThat(AnswerRules.volumeGroupModified(answer, "g", List.of()))
                .singleElement()
                .extracting(AnswerProblem::kind)
                .isEqualTo(Kind.MALFORMED);
        // Not knowing what was asked, only the group's own rules apply.
        assertThat(AnswerRules.of(Rpc.MODIFY_VOLUME_GROUP_MEMBERSHIP, answer, AnswerRules.Asked.nothing()))
                .isEmpty();
    }

    @Test
    void anAnswerIsAboutTheGroupAskedAboutAndACreatedGroupHoldsOnlyWhatWasAskedFor() {
        var other = group("vg-OTHER", "vol-0").build();
        String expected = "volume_group.volume_group_id: the answer is about volume group \"vg-OTHER\", the call"
                + " asked about \"vg-1\"";
        assertThat(AnswerRules.of(
                        Rpc.CONTROLLER_GET_VOLUME_GROUP,
                        ControllerGetVolumeGroupResponse.newBuilder()
                                .setVolumeGroup(other)
                                .build(),
                        AnswerRules.Asked.group("vg-1")))
                .singleElement()
                .hasToString(expected);
        assertThat(AnswerRules.of(
                        Rpc.MODIFY_VOLUME_GROUP_MEMBERSHIP,
                        ModifyVolumeGroupMembershipResponse.newBuilder()
                                .setVolumeGroup(other)
                                .build(),
                        AnswerRules.Asked.membership("vg-1", List.of("vol-0"))))
                .singleElement()
                .hasToString(expected);
        assertThat(AnswerRules.of(
                        Rpc.CONTROLLER_GET_VOLUME_GROUP,
                        ControllerGetVolumeGroupResponse.newBuilder()
                                .setVolumeGroup(other)
                                .build(),
                        AnswerRules.Asked.group("vg-OTHER")))
                .isEmpty();
        // Create: a subset of the volumes asked for (the spec does not require them listed), nothing else.
        var created = CreateVolumeGroupResponse.newBuilder()
                .setVolumeGroup(group("vg-1", "vol-0", "vol-9"))
                .build();
        assertThat(AnswerRules.of(Rpc.CREATE_VOLUME_GROUP, created, AnswerRules.Asked.creation(List.of("vol-0"))))
                .singleElement()
                .hasToString("volume_group.volumes: the volumes asked for are [\"vol-0\"], the answer lists"
                        + " [\"vol-0\", \"vol-9\"] (not asked for [\"vol-9\"])");
        assertThat(AnswerRules.of(
                        Rpc.CREATE_VOLUME_GROUP,
                        created,
                        AnswerRules.Asked.creation(List.of("vol-9", "vol-0", "vol-1"))))
                .isEmpty();
        assertThat(AnswerRules.volumeGroupCreated(
                        CreateVolumeGroupResponse.newBuilder()
                                .setVolumeGroup(group("vg-1"))
                                .build(),
                        List.of("vol-0")))
                .isEmpty();
    }

    @Test
    void aListPageHoldsAtMostMaxEntriesValidGroupsEachOnce() {
        ListVolumeGroupsResponse.Builder page = ListVolumeGroupsResponse.newBuilder();
        for (String id : List.of("g-0", "g-1", "g-2")) {
            page.addEntries(ListVolumeGroupsResponse.Entry.newBuilder().setVolumeGroup(group(id, id + "-vol")));
        }
        assertThat(AnswerRules.volumeGroups(page.build(), 0)).isEmpty();
        assertThat(AnswerRules.volumeGroups(page.build(), 3)).isEmpty();
        assertThat(AnswerRules.of(Rpc.LIST_VOLUME_GROUPS, page.build(), AnswerRules.Asked.page(2)))
                .singleElement()
                .hasToString("entries: 3 entries answered, max_entries asked for at most 2");
        page.addEntries(ListVolumeGroupsResponse.Entry.getDefaultInstance());
        assertThat(AnswerRules.volumeGroups(page.build(), 0))
                .singleElement()
                .hasToString("entries[3].volume_group: REQUIRED but not set");
        ListVolumeGroupsResponse twice = ListVolumeGroupsResponse.newBuilder()
                .addEntries(ListVolumeGroupsResponse.Entry.newBuilder().setVolumeGroup(group("g-0")))
                .addEntries(ListVolumeGroupsResponse.Entry.newBuilder().setVolumeGroup(group("g-0")))
                .build();
        assertThat(AnswerRules.volumeGroups(twice, 0))
                .singleElement()
                .hasToString("entries[1].volume_group.volume_group_id: \"g-0\" is listed twice in one page");
    }
}
