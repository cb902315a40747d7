package io.volrep.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ErrorSchemeTest {
    private final ErrorScheme scheme = ErrorScheme.spec();

    @Test
    void holdsEveryRowOfTheSpecsTables() {
        // Seed 001's 38 replication rows, upstream 2026's 8 GetReplicationDestinationInfo rows, the healer's 6, the
        // volume group service's 29.
        assertThat(scheme.rows()).hasSize(81);
        assertThat(scheme.rows().stream().filter(r -> r.rpc().isVolumeGroup())).hasSize(29);
        assertThat(scheme.rows().stream().filter(r -> r.rpc().isReplication())).hasSize(46);
        assertThat(scheme.rows(Rpc.NODE_HEALER)).hasSize(6);
        assertThat(scheme.rows(Rpc.ENABLE_VOLUME_REPLICATION))
                .extracting(ErrorScheme.Row::code)
                .containsExactly(
                        StatusCode.INVALID_ARGUMENT,
                        StatusCode.NOT_FOUND,
                        StatusCode.ABORTED,
                        StatusCode.UNAUTHENTICATED,
                        StatusCode.UNKNOWN);
        assertThat(scheme.rows(Rpc.DISABLE_VOLUME_REPLICATION)).hasSize(5);
        for (Rpc rpc :
                List.of(Rpc.PROMOTE_VOLUME, Rpc.DEMOTE_VOLUME, Rpc.RESYNC_VOLUME, Rpc.GET_VOLUME_REPLICATION_INFO)) {
            assertThat(scheme.rows(rpc))
                    .extracting(ErrorScheme.Row::code)
                    .containsExactlyInAnyOrder(
                            StatusCode.INVALID_ARGUMENT,
                            StatusCode.NOT_FOUND,
                            StatusCode.FAILED_PRECONDITION,
                            StatusCode.ABORTED,
                            StatusCode.UNIMPLEMENTED,
                            StatusCode.UNAUTHENTICATED,
                            StatusCode.UNKNOWN);
        }
        assertThat(scheme.rows(Rpc.NODE_HEALER))
                .extracting(ErrorScheme.Row::code)
                .containsExactly(
                        StatusCode.INVALID_ARGUMENT,
                        StatusCode.NOT_FOUND,
                        StatusCode.UNIMPLEMENTED,
                        StatusCode.ABORTED,
                        StatusCode.UNAUTHENTICATED,
                        StatusCode.UNKNOWN);
    }

    @Test
    void unimplementedIsListedOnlyWhereTheSpecAllowsIt() {
        String allowed = Arrays.stream(Rpc.values())
                .filter(r -> scheme.lists(r, StatusCode.UNIMPLEMENTED))
                .map(Rpc::methodName)
                .collect(Collectors.joining(","));
        assertThat(allowed)
                .isEqualTo("PromoteVolume,DemoteVolume,ResyncVolume,GetVolumeReplicationInfo,"
                        + "GetReplicationDestinationInfo,NodeHealer,CreateVolumeGroup,ModifyVolumeGroupMembership,"
                        + "DeleteVolumeGroup,ListVolumeGroups,ControllerGetVolumeGroup");
    }

    @Test
    void identityHasNoTableTransportCodesBackOffAndEveryOtherCodeStops() {
        List<Rpc> identity = Arrays.stream(Rpc.values()).filter(Rpc::isIdentity).toList();
        assertThat(identity).containsExactly(Rpc.GET_IDENTITY, Rpc.GET_CAPABILITIES, Rpc.PROBE);
        assertThat(identity).allSatisfy(rpc -> {
            assertThat(rpc.isReplication()).isFalse();
            assertThat(rpc.service()).isEqualTo("identity.Identity");
            assertThat(scheme.rows(rpc)).isEmpty();
            for (StatusCode code : StatusCode.values()) {
                Recovery expected = ErrorScheme.TRANSPORT_BACKOFF_CODES.contains(code)
                        ? Recovery.BACKOFF
                        : code == StatusCode.UNIMPLEMENTED ? Recovery.NEVER : Recovery.INSPECT_LOGS;
                if (code != StatusCode.OK) {
                    assertThat(scheme.recovery(rpc, code))
                            .as("%s %s", rpc, code)
                            .isEqualTo(expected);
                    assertThat(SpecDialect.V0_1_0.errorScheme().recovery(rpc, code))
                            .isEqualTo(expected);
                }
            }
        });
        // Where a table has the code, it decides: ABORTED is retried for PromoteVolume, not for Probe.
        assertThat(scheme.recovery(Rpc.PROMOTE_VOLUME, StatusCode.ABORTED)).isEqualTo(Recovery.BACKOFF);
        assertThat(Rpc.fromMethodName("Probe")).contains(Rpc.PROBE);
        assertThat(Rpc.GET_IDENTITY.fullMethodName()).isEqualTo("identity.Identity/GetIdentity");
    }

    @Test
    void theDestinationTableIsUpstreams() {
        assertThat(scheme.rows(Rpc.GET_REPLICATION_DESTINATION_INFO))
                .extracting(ErrorScheme.Row::code)
                .containsExactly(
                        StatusCode.INVALID_ARGUMENT,
                        StatusCode.NOT_FOUND,
                        StatusCode.FAILED_PRECONDITION,
                        StatusCode.UNAVAILABLE,
                        StatusCode.ABORTED,
                        StatusCode.UNIMPLEMENTED,
                        StatusCode.UNAUTHENTICATED,
                        StatusCode.UNKNOWN);
        // Destination info not yet available is transient: retried with back-off.
        assertThat(scheme.recovery(Rpc.GET_REPLICATION_DESTINATION_INFO, StatusCode.UNAVAILABLE))
                .isEqualTo(Recovery.BACKOFF);
        assertThat(scheme.find(Rpc.GET_REPLICATION_DESTINATION_INFO, StatusCode.UNAVAILABLE)
                        .orElseThrow()
                        .condition())
                .isEqualTo("Destination info not yet available");
        // The legacy revisions have no such RPC, hence no table.
        assertThat(ErrorScheme.forDialect(SpecDialect.V0_1_3).rows(Rpc.GET_REPLICATION_DESTINATION_INFO))
                .isEmpty();
        assertThat(ErrorScheme.forDialect(SpecDialect.V0_1_0).rows(Rpc.GET_REPLICATION_DESTINATION_INFO))
                .isEmpty();
    }

    @Test
    void carriesTheSpecsTextVerbatim() {
        var row = scheme.find(Rpc.RESYNC_VOLUME, StatusCode.FAILED_PRECONDITION).orElseThrow();
        assertThat(row.condition())
                .isEqualTo("Replication Source is not replicated or Replication Source is not demoted");
        assertThat(row.recoveryText())
                .isEqualTo("Caller SHOULD ensure that Replication is enabled and the Replication Source is demoted.");
        assertThat(scheme.find(Rpc.PROMOTE_VOLUME, StatusCode.UNIMPLEMENTED)
                        .orElseThrow()
                        .recoveryText())
                .isEqualTo("Caller MUST NOT retry.");
        assertThat(row.displayName())
                .isEqualTo("ResyncVolume: Replication Source is not replicated or Replication "
                        + "Source is not demoted -> 9 FAILED_PRECONDITION");
    }

    @Test
    void classifiesRecoveryAsTheDesignSays() {
        // A row's class is its code's, except where the row's own text says otherwise (the volume group tables).
        assertThat(scheme.rows().stream()
                        .filter(r -> r.recovery() != Recovery.forCode(r.code()))
                        .map(r -> r.displayName() + " " + r.recovery()))
                .containsExactly(
                        "CreateVolumeGroup: Volume group already exists but is incompatible -> 6 ALREADY_EXISTS FIX_REQUEST",
                        "ModifyVolumeGroupMembership: Unable to add volumes because the maximum is reached -> 8 "
                                + "RESOURCE_EXHAUSTED ENSURE_PRECONDITION",
                        "ListVolumeGroups: Invalid `starting_token` -> 10 ABORTED FIX_REQUEST");
        assertThat(scheme.recovery(Rpc.PROMOTE_VOLUME, StatusCode.INVALID_ARGUMENT))
                .isEqualTo(Recovery.FIX_REQUEST);
        assertThat(scheme.recovery(Rpc.PROMOTE_VOLUME, StatusCode.NOT_FOUND)).isEqualTo(Recovery.VERIFY_THEN_BACKOFF);
        assertThat(scheme.recovery(Rpc.PROMOTE_VOLUME, StatusCode.FAILED_PRECONDITION))
                .isEqualTo(Recovery.ENSURE_PRECONDITION);
        assertThat(scheme.recovery(Rpc.PROMOTE_VOLUME, StatusCode.ABORTED)).isEqualTo(Recovery.BACKOFF);
        assertThat(scheme.recovery(Rpc.PROMOTE_VOLUME, StatusCode.UNIMPLEMENTED))
                .isEqualTo(Recovery.NEVER);
        assertThat(scheme.recovery(Rpc.PROMOTE_VOLUME, StatusCode.UNAUTHENTICATED))
                .isEqualTo(Recovery.RENEW_SECRETS);
        assertThat(scheme.recovery(Rpc.PROMOTE_VOLUME, StatusCode.UNKNOWN)).isEqualTo(Recovery.INSPECT_LOGS);
        for (StatusCode transport : ErrorScheme.TRANSPORT_BACKOFF_CODES) {
            assertThat(scheme.lists(Rpc.ENABLE_VOLUME_REPLICATION, transport)).isFalse();
            assertThat(scheme.recovery(Rpc.ENABLE_VOLUME_REPLICATION, transport))
                    .isEqualTo(Recovery.BACKOFF);
        }
        assertThat(ErrorScheme.TRANSPORT_BACKOFF_CODES)
                .containsExactlyInAnyOrder(
                        StatusCode.UNAVAILABLE, StatusCode.DEADLINE_EXCEEDED, StatusCode.RESOURCE_EXHAUSTED);
    }

    @Test
    void tableIsImmutable() {
        assertThatThrownBy(() -> scheme.rows().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> scheme.rows(Rpc.NODE_HEALER).clear())
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void exceptionsCarryTheirRowsRecovery() {
        var e = ReplicationException.of(StatusCode.FAILED_PRECONDITION, "not demoted", Rpc.RESYNC_VOLUME, 1, null);
        assertThat(e).isInstanceOf(PreconditionFailedException.class);
        assertThat(((PreconditionFailedException) e).precondition())
                .contains("Replication is enabled and the Replication Source is demoted");
        assertThat(e.recovery()).isEqualTo(Recovery.ENSURE_PRECONDITION);
        assertThat(ReplicationException.of(StatusCode.ABORTED, "m", Rpc.DEMOTE_VOLUME, 2, null))
                .isInstanceOf(OperationPendingException.class);
        assertThat(new SourceNotFoundException("gone").withContext(Rpc.PROMOTE_VOLUME, 3))
                .isInstanceOf(SourceNotFoundException.class)
                .satisfies(x -> assertThat(x.attempts()).isEqualTo(3))
                .satisfies(x -> assertThat(x.rpc()).isEqualTo(Rpc.PROMOTE_VOLUME));
    }

    @Test
    void legacyDialectsHaveTheirOwnTables() {
        ErrorScheme v010 = ErrorScheme.forDialect(SpecDialect.V0_1_0);
        ErrorScheme v013 = ErrorScheme.forDialect(SpecDialect.V0_1_3);
        assertThat(ErrorScheme.forDialect(SpecDialect.CURRENT)).isSameAs(scheme);
        assertThat(v010.rows().stream().filter(r -> r.rpc().isReplication())).hasSize(31);
        assertThat(v010.rows(Rpc.GET_VOLUME_REPLICATION_INFO)).isEmpty();
        assertThat(v010.find(Rpc.ENABLE_VOLUME_REPLICATION, StatusCode.NOT_FOUND)
                        .orElseThrow()
                        .condition())
                .isEqualTo("Volume does not exist");
        assertThat(v013.rows().stream().filter(r -> r.rpc().isReplication())).hasSize(38);
        assertThat(v013.find(Rpc.RESYNC_VOLUME, StatusCode.FAILED_PRECONDITION)
                        .orElseThrow()
                        .condition())
                .isEqualTo("Volume is not replicated or image is not demoted");
        assertThat(v013.rows(Rpc.NODE_HEALER)).hasSize(6);
        // The volume group service has one revision: every dialect reads its tables.
        assertThat(v010.rows(Rpc.CREATE_VOLUME_GROUP)).isEqualTo(scheme.rows(Rpc.CREATE_VOLUME_GROUP));
        assertThat(v013.recovery(Rpc.LIST_VOLUME_GROUPS, StatusCode.ABORTED)).isEqualTo(Recovery.FIX_REQUEST);
        assertThat(SpecDialect.V0_1_0.supports(Rpc.GET_VOLUME_REPLICATION_INFO)).isFalse();
        assertThat(SpecDialect.V0_1_0.supports(ReplicationSource.Kind.VOLUME_GROUP))
                .isFalse();
        assertThat(SpecDialect.V0_1_3.supports(ReplicationSource.Kind.VOLUME_SNAPSHOT))
                .isFalse();
        assertThat(SpecDialect.fromName("v0.1.3")).isEqualTo(SpecDialect.V0_1_3);
    }

    @Test
    void theVolumeGroupTablesAreUpstreamsWithTheGeneralCases() {
        assertThat(scheme.rows(Rpc.CREATE_VOLUME_GROUP))
                .extracting(ErrorScheme.Row::code)
                .containsExactly(
                        StatusCode.INVALID_ARGUMENT,
                        StatusCode.INVALID_ARGUMENT,
                        StatusCode.ALREADY_EXISTS,
                        StatusCode.FAILED_PRECONDITION,
                        StatusCode.UNIMPLEMENTED,
                        StatusCode.UNAUTHENTICATED,
                        StatusCode.UNKNOWN);
        assertThat(scheme.rows(Rpc.MODIFY_VOLUME_GROUP_MEMBERSHIP))
                .extracting(ErrorScheme.Row::code)
                .containsExactly(
                        StatusCode.INVALID_ARGUMENT,
                        StatusCode.INVALID_ARGUMENT,
                        StatusCode.NOT_FOUND,
                        StatusCode.RESOURCE_EXHAUSTED,
                        StatusCode.UNIMPLEMENTED,
                        StatusCode.UNAUTHENTICATED,
                        StatusCode.UNKNOWN);
        assertThat(scheme.rows(Rpc.DELETE_VOLUME_GROUP))
                .extracting(ErrorScheme.Row::code)
                .containsExactly(
                        StatusCode.INVALID_ARGUMENT,
                        StatusCode.FAILED_PRECONDITION,
                        StatusCode.UNIMPLEMENTED,
                        StatusCode.UNAUTHENTICATED,
                        StatusCode.UNKNOWN);
        assertThat(scheme.rows(Rpc.LIST_VOLUME_GROUPS))
                .extracting(ErrorScheme.Row::code)
                .containsExactly(
                        StatusCode.INVALID_ARGUMENT,
                        StatusCode.ABORTED,
                        StatusCode.UNIMPLEMENTED,
                        StatusCode.UNAUTHENTICATED,
                        StatusCode.UNKNOWN);
        assertThat(scheme.rows(Rpc.CONTROLLER_GET_VOLUME_GROUP))
                .extracting(ErrorScheme.Row::code)
                .containsExactly(
                        StatusCode.INVALID_ARGUMENT,
                        StatusCode.NOT_FOUND,
                        StatusCode.UNIMPLEMENTED,
                        StatusCode.UNAUTHENTICATED,
                        StatusCode.UNKNOWN);
        assertThat(scheme.find(Rpc.DELETE_VOLUME_GROUP, StatusCode.FAILED_PRECONDITION)
                        .orElseThrow()
                        .recoveryText())
                .isEqualTo("Caller SHOULD ensure that there are no other resources using the volume group and that it"
                        + " has no snapshots, and then retry with exponential back off.");
        // An invalid token is not retried as it is: the listing starts over with an empty one.
        assertThat(scheme.find(Rpc.LIST_VOLUME_GROUPS, StatusCode.ABORTED)
                        .orElseThrow()
                        .recoveryText())
                .isEqualTo(
                        "Caller SHOULD start the `ListVolumeGroups` operation again with an empty `starting_token`.");
        // Not found is verified before any retry, as for replication sources.
        assertThat(scheme.recovery(Rpc.CONTROLLER_GET_VOLUME_GROUP, StatusCode.NOT_FOUND))
                .isEqualTo(Recovery.VERIFY_THEN_BACKOFF);
        // Delete of a group that does not exist answers OK: its table has no 5.
        assertThat(scheme.lists(Rpc.DELETE_VOLUME_GROUP, StatusCode.NOT_FOUND)).isFalse();
    }

    @Test
    void upstreamsSevenForUngroupableVolumesIsReadAsNine() {
        ErrorScheme.Row row = scheme.find(Rpc.CREATE_VOLUME_GROUP, StatusCode.FAILED_PRECONDITION)
                .orElseThrow();
        assertThat(row.condition()).isEqualTo("Volumes cannot be grouped together");
        assertThat(row.alsoAccepted()).containsExactly(StatusCode.PERMISSION_DENIED);
        assertThat(row.accepts(StatusCode.PERMISSION_DENIED)).isTrue();
        assertThat(row.accepts(StatusCode.ALREADY_EXISTS)).isFalse();
        // 7 from CreateVolumeGroup finds the 9 row, is listed, and is read (and recovered from) as 9.
        assertThat(scheme.find(Rpc.CREATE_VOLUME_GROUP, StatusCode.PERMISSION_DENIED))
                .contains(row);
        assertThat(scheme.lists(Rpc.CREATE_VOLUME_GROUP, StatusCode.PERMISSION_DENIED))
                .isTrue();
        assertThat(scheme.canonical(Rpc.CREATE_VOLUME_GROUP, StatusCode.PERMISSION_DENIED))
                .isEqualTo(StatusCode.FAILED_PRECONDITION);
        assertThat(scheme.recovery(Rpc.CREATE_VOLUME_GROUP, StatusCode.PERMISSION_DENIED))
                .isEqualTo(Recovery.ENSURE_PRECONDITION);
        // Only there: 7 from any other RPC is 7, outside its table.
        assertThat(scheme.canonical(Rpc.MODIFY_VOLUME_GROUP_MEMBERSHIP, StatusCode.PERMISSION_DENIED))
                .isEqualTo(StatusCode.PERMISSION_DENIED);
        assertThat(scheme.lists(Rpc.PROMOTE_VOLUME, StatusCode.PERMISSION_DENIED))
                .isFalse();
        assertThat(scheme.toMarkdown())
                .contains("| Volumes cannot be grouped together | 9 FAILED_PRECONDITION"
                        + " (7 PERMISSION_DENIED accepted) | `ENSURE_PRECONDITION` |");
    }

    @Test
    void twoRowsOfOneCodeAreFoundByConditionAndBothRecoveryTextsAreGiven() {
        assertThat(scheme.find(Rpc.CREATE_VOLUME_GROUP, "Not supported")
                        .orElseThrow()
                        .recoveryText())
                .isEqualTo("Caller MUST use different parameters.");
        assertThat(scheme.find(Rpc.CREATE_VOLUME_GROUP, StatusCode.INVALID_ARGUMENT)
                        .orElseThrow()
                        .condition())
                .isEqualTo("Missing required field");
        assertThat(scheme.recoveryText(Rpc.CREATE_VOLUME_GROUP, StatusCode.INVALID_ARGUMENT))
                .isEqualTo(
                        "If Missing required field: Caller MUST fix the request by adding the missing required field before"
                                + " retrying. If Not supported: Caller MUST use different parameters.");
        // Upstream's 7 is read as the 9 row, its recovery text included.
        assertThat(scheme.recoveryText(Rpc.CREATE_VOLUME_GROUP, StatusCode.PERMISSION_DENIED))
                .isEqualTo(
                        "Caller MUST fix the configuration of the volumes so that they meet the requirements for grouping"
                                + " before retrying.");
        // One row of the code: its text alone, as before.
        assertThat(scheme.recoveryText(Rpc.PROMOTE_VOLUME, StatusCode.INVALID_ARGUMENT))
                .isEqualTo("Caller MUST fix the request by adding the missing required field before retrying.");
        assertThat(scheme.find(Rpc.CREATE_VOLUME_GROUP, "no such condition")).isEmpty();
    }

    @Test
    void aRowThatListsSeveralConditionsUnderOneCodeGivesEachItsOwnRecovery() {
        String enabled = "Caller SHOULD ensure that replication is enabled.";
        for (SpecDialect dialect : SpecDialect.values()) {
            ErrorScheme table = ErrorScheme.forDialect(dialect);
            ErrorScheme.Row row = table.find(Rpc.PROMOTE_VOLUME, StatusCode.FAILED_PRECONDITION)
                    .orElseThrow();
            assertThat(row.recoveryText())
                    .as(dialect + ": the spec's text stays verbatim")
                    .isEqualTo(enabled);
            assertThat(row.cases())
                    .as(dialect.toString())
                    .extracting(ErrorScheme.Case::condition)
                    .containsExactly("replication is not enabled", "it cannot be promoted without force option");
            ErrorScheme.Case notEnabled = row.cases().get(0);
            ErrorScheme.Case needsForce = row.cases().get(1);
            assertThat(notEnabled.recoveryText()).isEqualTo(enabled);
            assertThat(notEnabled.specText()).isTrue();
            assertThat(notEnabled.unforcedOnly()).isFalse();
            assertThat(needsForce.specText())
                    .as("the spec's table gives this condition no recovery")
                    .isFalse();
            assertThat(needsForce.unforcedOnly()).isTrue();
            assertThat(needsForce.recoveryText())
                    .contains("retry without force")
                    .contains("exponential back off")
                    .contains("two primaries");

            // Chosen by what the request asked: only an unforced promote can be refused for want of force.
            assertThat(table.cases(Rpc.PROMOTE_VOLUME, StatusCode.FAILED_PRECONDITION, true))
                    .containsExactly(notEnabled);
            assertThat(table.cases(Rpc.PROMOTE_VOLUME, StatusCode.FAILED_PRECONDITION, false))
                    .containsExactly(notEnabled, needsForce);
            assertThat(table.recoveryText(Rpc.PROMOTE_VOLUME, StatusCode.FAILED_PRECONDITION, true))
                    .isEqualTo(enabled);
            assertThat(table.recoveryText(Rpc.PROMOTE_VOLUME, StatusCode.FAILED_PRECONDITION, false))
                    .isEqualTo("If replication is not enabled: " + enabled + " If it cannot be promoted without force"
                            + " option (volrep's words; the spec gives this condition no recovery): "
                            + needsForce.recoveryText())
                    .isEqualTo(table.recoveryText(Rpc.PROMOTE_VOLUME, StatusCode.FAILED_PRECONDITION));
        }
        // A row whose recovery text covers every condition it lists is one case: its own.
        ErrorScheme.Row resync =
                scheme.find(Rpc.RESYNC_VOLUME, StatusCode.FAILED_PRECONDITION).orElseThrow();
        assertThat(resync.cases()).singleElement().satisfies(c -> {
            assertThat(c.condition()).isEqualTo(resync.condition());
            assertThat(c.recoveryText()).isEqualTo(resync.recoveryText());
            assertThat(c.specText()).isTrue();
        });
        assertThat(scheme.recoveryText(Rpc.RESYNC_VOLUME, StatusCode.FAILED_PRECONDITION, true))
                .isEqualTo(resync.recoveryText());
        assertThat(scheme.cases(Rpc.PROMOTE_VOLUME, StatusCode.DEADLINE_EXCEEDED, false))
                .isEmpty();
        assertThat(scheme.recoveryText(Rpc.PROMOTE_VOLUME, StatusCode.DEADLINE_EXCEEDED, false))
                .isEqualTo(Recovery.BACKOFF.advice());
    }

    @Test
    void anExceptionQuotesTheCasesItsRequestCanMeet() {
        var unforced = ReplicationException.of(
                        StatusCode.FAILED_PRECONDITION, "demotion not propagated yet", Rpc.PROMOTE_VOLUME, 1, null)
                .requestForced(false);
        var forced = unforced.requestForced(true);
        assertThat(unforced).isInstanceOf(PreconditionFailedException.class);
        assertThat(forced).isInstanceOf(PreconditionFailedException.class);
        assertThat(unforced.recoveryText()).contains("retry without force");
        assertThat(((PreconditionFailedException) forced).precondition())
                .isEqualTo("Caller SHOULD ensure that replication is enabled.");
        // Not told what the request asked: every case the row stands for.
        assertThat(ReplicationException.of(StatusCode.FAILED_PRECONDITION, "m", Rpc.PROMOTE_VOLUME, 1, null)
                        .recoveryText())
                .isEqualTo(unforced.recoveryText());
        // The revision's table and the request's force travel together.
        var legacy = unforced.inRevision(SpecDialect.V0_1_3.errorScheme()).requestForced(true);
        assertThat(legacy.recoveryText()).isEqualTo("Caller SHOULD ensure that replication is enabled.");
    }
}
