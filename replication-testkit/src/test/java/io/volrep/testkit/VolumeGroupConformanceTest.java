package io.volrep.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Message;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.volrep.api.InvalidArgumentException;
import io.volrep.api.PreconditionFailedException;
import io.volrep.api.ReplicationDestination;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.Secrets;
import io.volrep.api.SourceNotFoundException;
import io.volrep.api.UnimplementedException;
import io.volrep.api.VolumeGroup;
import io.volrep.proto.volumegroup.CreateVolumeGroupRequest;
import io.volrep.proto.volumegroup.ListVolumeGroupsRequest;
import io.volrep.proto.volumegroup.ListVolumeGroupsResponse;
import io.volrep.spi.CreateGroupRequest;
import io.volrep.spi.DeleteGroupRequest;
import io.volrep.spi.DestinationRequest;
import io.volrep.spi.DisableRequest;
import io.volrep.spi.ForwardingReplicationDriver;
import io.volrep.spi.ForwardingVolumeGroupDriver;
import io.volrep.spi.GetGroupRequest;
import io.volrep.spi.ListGroupsRequest;
import io.volrep.spi.ModifyGroupRequest;
import io.volrep.spi.ReplicationDriver;
import io.volrep.spi.VolumeGroupDriver;
import io.volrep.testkit.reference.ReferenceDriver;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.opentest4j.TestAbortedException;

/**
 * The volume group checks against the reference (every check passes, nothing is left behind) and against plugins with
 * exactly one volume group defect each, caught by the check named for it. Only the volume group groups run here: the
 * rest of the suite has its own self-tests, and this keeps the build fast.
 */
class VolumeGroupConformanceTest {
    static final Map<String, String> SECRETS = Map.of("user", "admin");

    /** Runs the two volume group groups; check id -> "PASSED", "FAILED: ...", "ABORTED: ...". */
    static Map<String, String> run(ConformanceConfig config) {
        List<Check> checks = new ArrayList<>(VolumeGroupChecks.group().checks(config));
        checks.addAll(VolumeGroupLifecycleChecks.group().checks(config));
        Map<String, String> outcomes = new LinkedHashMap<>();
        try (ConformanceSession session = ConformanceSession.open(config)) {
            for (Check check : checks) {
                try {
                    session.run(check);
                    outcomes.put(check.id(), "PASSED");
                } catch (TestAbortedException e) {
                    outcomes.put(check.id(), "ABORTED: " + e.getMessage());
                } catch (Throwable t) {
                    outcomes.put(check.id(), "FAILED: " + t.getMessage());
                }
            }
        }
        return outcomes;
    }

    static ReferenceDriver reference() {
        return ReferenceDriver.builder()
                .volumes(2)
                .groups(1)
                .requiredSecret("user", "admin")
                .build();
    }

    /** {@code groups} null: the reference {@code replication} serves the groups too. */
    static ConformanceConfig.Builder config(ReplicationDriver replication, VolumeGroupDriver groups) {
        VolumeGroupDriver served = groups != null ? groups : (VolumeGroupDriver) replication;
        return ConformanceConfig.builder()
                .driver(replication)
                .volumeGroupDriver(served)
                .volumes("vol-0", "vol-1")
                .volumeGroups("grp-0")
                .secrets(SECRETS);
    }

    @Test
    void theReferencePassesEveryVolumeGroupCheckAndLeavesNoGroupBehind() {
        ReferenceDriver reference = reference();
        Map<String, String> outcomes = run(config(reference, reference).build());

        assertThat(outcomes)
                .hasSizeGreaterThanOrEqualTo(30)
                .allSatisfy((id, outcome) -> assertThat(outcome).as(id).isEqualTo("PASSED"));
        assertThat(outcomes.keySet()).allSatisfy(id -> assertThat(id).matches("[A-Za-z]+/(group|plugin)/[a-z0-9-]+"));
        // Only the fixtures are left: every group a check created was deleted, none left replicated.
        assertThat(reference.sources())
                .containsExactly(
                        ReplicationSource.volume("vol-0"),
                        ReplicationSource.volume("vol-1"),
                        ReplicationSource.volumeGroup("grp-0"));
        assertThat(reference.list(
                        ListGroupsRequest.builder().secrets(Secrets.of(SECRETS)).build()))
                .extracting(VolumeGroup::id)
                .containsExactly("grp-0");
        assertThat(reference.sources())
                .allSatisfy(s -> assertThat(reference.state(s).enabled()).isFalse());
    }

    @Test
    void aPluginWithoutTheServiceIsNotImplementedEverywhereAndThatIsNoFailure() {
        ReferenceDriver reference = reference();
        Map<String, String> outcomes = run(ConformanceConfig.builder()
                .driver(reference)
                .volumes("vol-0", "vol-1")
                .secrets(SECRETS)
                .build());
        assertThat(outcomes)
                .allSatisfy((id, outcome) -> assertThat(outcome)
                        .as(id)
                        .startsWith(
                                "ABORTED: " + ConformanceContext.NOT_IMPLEMENTED_PREFIX + "volumegroup.Controller"));
    }

    @Test
    void withoutModifyOrKeptVolumesNoFixtureVolumeIsEverPutIntoAGroup() {
        ReferenceDriver reference = reference();
        List<CreateGroupRequest> creates = new CopyOnWriteArrayList<>();
        VolumeGroupDriver createAndDelete = new VolumeGroupDriver() {
            @Override
            public VolumeGroup create(CreateGroupRequest r) {
                creates.add(r);
                return reference.create(r);
            }

            @Override
            public void delete(DeleteGroupRequest r) {
                reference.delete(r);
            }
        };
        Map<String, String> outcomes = run(config(reference, createAndDelete).build());
        assertThat(creates)
                .isNotEmpty()
                .allSatisfy(r -> assertThat(r.volumeIds()).isEmpty());
        assertThat(outcomes)
                .doesNotContainValue("FAILED")
                .allSatisfy((id, outcome) -> assertThat(outcome).as(id).doesNotStartWith("FAILED"));
        assertThat(outcomes.get("volumegroup/group/created-replicated-resized-failed-over"))
                .contains("ModifyVolumeGroupMembership");
        assertThat(reference.list(
                        ListGroupsRequest.builder().secrets(Secrets.of(SECRETS)).build()))
                .extracting(VolumeGroup::id)
                .containsExactly("grp-0");
    }

    @ParameterizedTest
    @EnumSource(GroupDefect.class)
    void eachDefectIsFailedByItsNamedCheck(GroupDefect defect) {
        Map<String, String> outcomes = run(defect.target().build());
        assertThat(outcomes.get(defect.caughtBy))
                .as("%s, all: %s", defect, outcomes)
                .startsWith("FAILED")
                .contains(defect.reason);
    }

    @Test
    void aPluginThatAuthenticatesNothingFailsEveryVolumeGroupAuthenticationCheck() {
        ReferenceDriver open = ReferenceDriver.builder().volumes(2).groups(1).build(); // defect: no secrets
        Map<String, String> outcomes = run(config(open, open).build());
        List<String> authChecks = outcomes.keySet().stream()
                .filter(id -> id.contains("/group/auth-"))
                .toList();
        assertThat(authChecks).hasSize(10);
        // One defect, one FAIL per RPC: the missing secrets' check did not run because of the wrong secrets' one.
        assertThat(authChecks)
                .allSatisfy(id -> assertThat(outcomes.get(id))
                        .as(id)
                        .startsWith(
                                id.endsWith("auth-wrong")
                                        ? "FAILED"
                                        : "ABORTED: NOT RUN: because of check " + id.replace("missing", "wrong"))
                        .contains("expected 16 UNAUTHENTICATED, got 0 OK"));
    }

    @Test
    void aPluginThatKeepsAReplicatedGroupsMembershipSkipsTheLifecycleSayingTheSpecLeavesItOpen() {
        ReferenceDriver reference = reference();
        VolumeGroupDriver refusing = new ForwardingVolumeGroupDriver(reference) {
            @Override
            public VolumeGroup modify(ModifyGroupRequest r) {
                if (reference
                        .state(ReplicationSource.volumeGroup(r.volumeGroupId()))
                        .enabled()) {
                    throw new InvalidArgumentException("cannot change a replicated group");
                }
                return super.modify(r);
            }
        };
        Map<String, String> outcomes = run(config(reference, refusing).build());
        assertThat(outcomes.get(VolumeGroupLifecycleChecks.ID))
                .startsWith("ABORTED: SKIPPED: the plugin does not" + " change the membership of a replicated group")
                .contains("the spec leaves open whether it must");
    }

    /** The reference's replication, with its group destinations replaced. */
    static ReplicationDriver replicationWithDestinations(
            ReferenceDriver reference, Function<ReplicationDestination, ReplicationDestination> edit) {
        return new ForwardingReplicationDriver(reference) {
            @Override
            public ReplicationDestination destination(DestinationRequest r) {
                return edit.apply(delegate().destination(r));
            }
        };
    }

    /** Rewrites the requests of {@code rpc} before the runtime sees them. */
    static ServerInterceptor rewriteRequest(Rpc rpc, Function<Message, Message> edit) {
        return new ServerInterceptor() {
            @Override
            public <Q, A> ServerCall.Listener<Q> interceptCall(
                    ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
                if (!call.getMethodDescriptor().getFullMethodName().equals(rpc.fullMethodName())) {
                    return next.startCall(call, headers);
                }
                return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
                        next.startCall(call, headers)) {
                    @Override
                    @SuppressWarnings("unchecked")
                    public void onMessage(Q message) {
                        super.onMessage((Q) edit.apply((Message) message));
                    }
                };
            }
        };
    }

    /** Plugins with one volume group defect each, and the check that must catch it. */
    enum GroupDefect {
        CREATE_NOT_IDEMPOTENT("CreateVolumeGroup/group/idempotent", "twice answered two groups") {
            @Override
            ConformanceConfig.Builder target() {
                ReferenceDriver reference = reference();
                AtomicInteger creates = new AtomicInteger();
                return config(reference, new ForwardingVolumeGroupDriver(reference) {
                    @Override
                    public VolumeGroup create(CreateGroupRequest r) { // defect: a new group every time
                        return super.create(r.toBuilder()
                                .name(r.name() + "-" + creates.incrementAndGet())
                                .build());
                    }
                });
            }
        },
        INCOMPATIBLE_NAME_ANSWERED_AS_IS(
                "CreateVolumeGroup/group/incompatible-parameters", "expected 6 ALREADY_EXISTS, got 0 OK") {
            @Override
            ConformanceConfig.Builder target() {
                ReferenceDriver reference = reference();
                return config(reference, new ForwardingVolumeGroupDriver(reference) {
                    @Override
                    public VolumeGroup create(CreateGroupRequest r) { // defect: parameters ignored
                        return super.create(r.toBuilder().parameters(Map.of()).build());
                    }
                });
            }
        },
        ONE_VOLUME_IN_TWO_GROUPS(
                "CreateVolumeGroup/group/limit-one-group", "expected 9 FAILED_PRECONDITION, got 0 OK") {
            @Override
            ConformanceConfig.Builder target() {
                ReferenceDriver reference = reference();
                return config(reference, new ForwardingVolumeGroupDriver(reference) {
                    @Override
                    public VolumeGroup create(CreateGroupRequest r) {
                        try {
                            return super.create(r);
                        } catch (PreconditionFailedException e) { // defect: LIMIT advertised, not honoured
                            return VolumeGroup.of("vg-" + r.name(), r.volumeIds());
                        }
                    }
                });
            }
        },
        MODIFY_ONLY_ADDS(
                "ModifyVolumeGroupMembership/group/replaces-membership",
                "must have the members [vol-1], but ControllerGetVolumeGroup answers [vol-0, vol-1]") {
            @Override
            ConformanceConfig.Builder target() {
                ReferenceDriver reference = reference();
                return config(reference, new ForwardingVolumeGroupDriver(reference) {
                    @Override
                    public VolumeGroup modify(ModifyGroupRequest r) {
                        List<String> union = new ArrayList<>(reference
                                .get(GetGroupRequest.builder()
                                        .volumeGroupId(r.volumeGroupId())
                                        .secrets(r.secrets())
                                        .build())
                                .volumeIds());
                        r.volumeIds().stream().filter(v -> !union.contains(v)).forEach(union::add);
                        super.modify(r.toBuilder().volumeIds(union).build());
                        return VolumeGroup.of(r.volumeGroupId(), r.volumeIds()); // defect: says what was asked
                    }
                });
            }
        },
        EMPTY_MEMBERSHIP_IGNORED(
                "ModifyVolumeGroupMembership/group/empty-removes-all",
                "must have the members [], but ControllerGetVolumeGroup answers [vol-0]") {
            @Override
            ConformanceConfig.Builder target() {
                ReferenceDriver reference = reference();
                return config(reference, new ForwardingVolumeGroupDriver(reference) {
                    @Override
                    public VolumeGroup modify(ModifyGroupRequest r) {
                        if (r.volumeIds().isEmpty()) { // defect: "nothing to change"
                            return VolumeGroup.of(r.volumeGroupId());
                        }
                        return super.modify(r);
                    }
                });
            }
        },
        DELETE_OF_UNKNOWN_GROUP_NOT_FOUND("DeleteVolumeGroup/group/unknown-group", "expected 0 OK, got 5 NOT_FOUND") {
            @Override
            ConformanceConfig.Builder target() {
                ReferenceDriver reference = reference();
                return config(reference, new ForwardingVolumeGroupDriver(reference) {
                    @Override
                    public void delete(DeleteGroupRequest r) {
                        if (reference
                                .list(ListGroupsRequest.builder()
                                        .secrets(Secrets.of(SECRETS))
                                        .build())
                                .stream()
                                .noneMatch(g -> g.id().equals(r.volumeGroupId()))) {
                            throw new SourceNotFoundException("no such group"); // defect: the spec says 0 OK
                        }
                        super.delete(r);
                    }
                });
            }
        },
        DELETED_GROUP_STILL_ANSWERED("ControllerGetVolumeGroup/group/deleted", "expected 5 NOT_FOUND, got 0 OK") {
            @Override
            ConformanceConfig.Builder target() {
                ReferenceDriver reference = reference();
                return config(reference, new ForwardingVolumeGroupDriver(reference) {
                    @Override
                    public VolumeGroup get(GetGroupRequest r) {
                        try {
                            return super.get(r);
                        } catch (SourceNotFoundException e) { // defect: a stale cache answers
                            if (r.volumeGroupId().startsWith("vg-")) {
                                return VolumeGroup.of(r.volumeGroupId());
                            }
                            throw e;
                        }
                    }
                });
            }
        },
        REPLICATED_GROUP_DELETED("DeleteVolumeGroup/group/in-use", "expected 9 FAILED_PRECONDITION, got 0 OK") {
            @Override
            ConformanceConfig.Builder target() {
                ReferenceDriver reference = reference();
                return config(reference, new ForwardingVolumeGroupDriver(reference) {
                    @Override
                    public void delete(DeleteGroupRequest r) {
                        reference.disable(DisableRequest.builder()
                                .source(ReplicationSource.volumeGroup(r.volumeGroupId()))
                                .secrets(r.secrets())
                                .build()); // defect: in use, deleted anyway
                        super.delete(r);
                    }
                });
            }
        },
        LIST_ADVERTISED_NOT_SERVED(
                "volumegroup/plugin/advertised-rpcs-served",
                "advertised but not served: ListVolumeGroups (advertised as VolumeGroup.LIST_VOLUME_GROUPS)") {
            @Override
            ConformanceConfig.Builder target() {
                ReferenceDriver reference = reference();
                return config(reference, new ForwardingVolumeGroupDriver(reference) {
                    @Override
                    public List<VolumeGroup> list(ListGroupsRequest r) {
                        throw new UnimplementedException("not yet"); // defect: advertised
                    }
                });
            }
        },
        FOREIGN_TOKEN_ACCEPTED("ListVolumeGroups/group/invalid-token", "expected 10 ABORTED, got 0 OK") {
            @Override
            ConformanceConfig.Builder target() {
                ReferenceDriver reference = reference();
                // Below the runtime (it checks tokens itself): a token it never issued read as "from the start".
                return config(reference, reference).interceptor(rewriteRequest(Rpc.LIST_VOLUME_GROUPS, m -> {
                    ListVolumeGroupsRequest r = (ListVolumeGroupsRequest) m;
                    return r.getStartingToken().startsWith("vg1.")
                            ? r
                            : r.toBuilder().setStartingToken("").build();
                }));
            }
        },
        NEXT_TOKEN_DROPPED("ListVolumeGroups/group/pagination", "does not list") {
            @Override
            ConformanceConfig.Builder target() {
                ReferenceDriver reference = reference();
                return config(reference, reference)
                        .interceptor(Defect.rewriteResponse(
                                Rpc.LIST_VOLUME_GROUPS,
                                m -> ((ListVolumeGroupsResponse) m)
                                        .toBuilder().clearNextToken().build()));
            }
        },
        NAMELESS_CREATE_ACCEPTED("CreateVolumeGroup/group/missing-name", "expected 3 INVALID_ARGUMENT, got 0 OK") {
            @Override
            ConformanceConfig.Builder target() {
                // Below the runtime (it validates names itself): an empty name read as a default one.
                return config(reference(), null).interceptor(rewriteRequest(Rpc.CREATE_VOLUME_GROUP, m -> {
                    CreateVolumeGroupRequest r = (CreateVolumeGroupRequest) m;
                    return r.getName().isEmpty()
                            ? r.toBuilder().setName("unnamed").build()
                            : r;
                }));
            }
        },
        LONG_NAME_CUT("CreateVolumeGroup/group/name-over-limit", "expected 3 INVALID_ARGUMENT, got 0 OK") {
            @Override
            ConformanceConfig.Builder target() {
                return config(reference(), null).interceptor(rewriteRequest(Rpc.CREATE_VOLUME_GROUP, m -> {
                    CreateVolumeGroupRequest r = (CreateVolumeGroupRequest) m; // defect: cut, not refused
                    return r.getName().length() > 128
                            ? r.toBuilder()
                                    .setName(r.getName().substring(0, 128))
                                    .build()
                            : r;
                }));
            }
        },
        MODIFY_WITHOUT_ID_LOOKED_UP(groupIdDefaulted(Rpc.MODIFY_VOLUME_GROUP_MEMBERSHIP)),
        DELETE_WITHOUT_ID_LOOKED_UP(groupIdDefaulted(Rpc.DELETE_VOLUME_GROUP)),
        GET_WITHOUT_ID_LOOKED_UP(groupIdDefaulted(Rpc.CONTROLLER_GET_VOLUME_GROUP)),
        MODIFY_OF_UNKNOWN_GROUP_ANSWERED(
                "ModifyVolumeGroupMembership/group/unknown-group", "expected 5 NOT_FOUND, got 0 OK") {
            @Override
            ConformanceConfig.Builder target() {
                ReferenceDriver reference = reference();
                return config(reference, new ForwardingVolumeGroupDriver(reference) {
                    @Override
                    public VolumeGroup modify(ModifyGroupRequest r) {
                        if (reference
                                .list(ListGroupsRequest.builder()
                                        .secrets(r.secrets())
                                        .build())
                                .stream()
                                .noneMatch(g -> g.id().equals(r.volumeGroupId()))) {
                            return VolumeGroup.of(r.volumeGroupId(), r.volumeIds()); // defect: as if it were
                        }
                        return super.modify(r);
                    }
                });
            }
        },
        UNKNOWN_VOLUME_IGNORED("ModifyVolumeGroupMembership/group/unknown-volume", "expected 5 NOT_FOUND, got 0 OK") {
            @Override
            ConformanceConfig.Builder target() {
                ReferenceDriver reference = reference();
                return config(reference, new ForwardingVolumeGroupDriver(reference) {
                    @Override
                    public VolumeGroup modify(ModifyGroupRequest r) {
                        List<String> known = r.volumeIds().stream()
                                .filter(v -> !v.equals(VolumeGroupChecks.MISSING_VOLUME))
                                .toList(); // defect: unknown volumes dropped
                        VolumeGroup changed =
                                super.modify(r.toBuilder().volumeIds(known).build());
                        return VolumeGroup.of(changed.id(), r.volumeIds());
                    }
                });
            }
        },
        MODIFY_IGNORES_THE_LIMIT(
                "ModifyVolumeGroupMembership/group/limit-one-group", "expected 3 INVALID_ARGUMENT, got 0 OK") {
            @Override
            ConformanceConfig.Builder target() {
                ReferenceDriver reference = reference();
                return config(reference, new ForwardingVolumeGroupDriver(reference) {
                    @Override
                    public VolumeGroup modify(ModifyGroupRequest r) {
                        try {
                            return super.modify(r);
                        } catch (InvalidArgumentException e) { // defect: LIMIT advertised, not honoured
                            return VolumeGroup.of(r.volumeGroupId(), r.volumeIds());
                        }
                    }
                });
            }
        },
        DELETE_KEEPS_THE_GROUP("DeleteVolumeGroup/group/deleted", "volume group") {
            @Override
            ConformanceConfig.Builder target() {
                ReferenceDriver reference = reference();
                return config(reference, new ForwardingVolumeGroupDriver(reference) {
                    @Override
                    public void delete(DeleteGroupRequest r) {
                        // defect: answers OK, deletes nothing
                    }
                });
            }
        },
        GET_OF_UNKNOWN_GROUP_ANSWERED(
                "ControllerGetVolumeGroup/group/unknown-group", "expected 5 NOT_FOUND, got 0 OK") {
            @Override
            ConformanceConfig.Builder target() {
                ReferenceDriver reference = reference();
                return config(reference, new ForwardingVolumeGroupDriver(reference) {
                    @Override
                    public VolumeGroup get(GetGroupRequest r) {
                        try {
                            return super.get(r);
                        } catch (SourceNotFoundException e) { // defect: an empty group for any id
                            return VolumeGroup.of(r.volumeGroupId());
                        }
                    }
                });
            }
        },
        NEGATIVE_MAX_ENTRIES_ACCEPTED(
                "ListVolumeGroups/group/negative-max-entries", "expected 3 INVALID_ARGUMENT, got 0 OK") {
            @Override
            ConformanceConfig.Builder target() {
                return config(reference(), null).interceptor(rewriteRequest(Rpc.LIST_VOLUME_GROUPS, m -> {
                    ListVolumeGroupsRequest r = (ListVolumeGroupsRequest) m; // defect: read as "no limit"
                    return r.getMaxEntries() < 0
                            ? r.toBuilder().setMaxEntries(0).build()
                            : r;
                }));
            }
        },
        CREATE_WITHOUT_AUTHENTICATION("CreateVolumeGroup/group/auth-wrong", "expected 16 UNAUTHENTICATED, got 0 OK") {
            @Override
            ConformanceConfig.Builder target() {
                ReferenceDriver open =
                        ReferenceDriver.builder().volumes(2).groups(1).build(); // defect: no secrets
                return config(open, open);
            }
        },
        DESTINATION_MAP_OF_THE_FIRST_MEMBERS(
                VolumeGroupLifecycleChecks.ID, "a member map MUST be complete for the group's current members") {
            @Override
            ConformanceConfig.Builder target() {
                ReferenceDriver reference = reference();
                Map<String, Map<String, String>> first = new ConcurrentHashMap<>();
                return config(
                        replicationWithDestinations(reference, d -> {
                            if (d instanceof ReplicationDestination.VolumeGroup g) { // defect: the map of the enable
                                return ReplicationDestination.volumeGroup(
                                        g.id(), first.computeIfAbsent(g.id(), id -> g.volumeIds()));
                            }
                            return d;
                        }),
                        reference);
            }
        },
        CREATED_GROUP_NOT_A_SOURCE(VolumeGroupLifecycleChecks.ID, "EnableVolumeReplication on volume group") {
            @Override
            ConformanceConfig.Builder target() {
                ReferenceDriver reference = reference();
                return config(reference, new ForwardingVolumeGroupDriver(reference) {
                    @Override
                    public VolumeGroup create(CreateGroupRequest r) { // defect: the id replication knows not
                        VolumeGroup g = super.create(r);
                        return r.name().contains("lifecycle")
                                ? new VolumeGroup(g.id() + "-x", g.context(), g.members())
                                : g;
                    }

                    @Override
                    public VolumeGroup get(GetGroupRequest r) {
                        String id = r.volumeGroupId().endsWith("-x")
                                ? r.volumeGroupId()
                                        .substring(0, r.volumeGroupId().length() - 2)
                                : r.volumeGroupId();
                        VolumeGroup g = super.get(GetGroupRequest.builder()
                                .volumeGroupId(id)
                                .secrets(r.secrets())
                                .build());
                        return new VolumeGroup(r.volumeGroupId(), g.context(), g.members());
                    }
                });
            }
        };

        final String caughtBy;
        /** What the failure says. */
        final String reason;

        private final Defective defective;

        GroupDefect(String caughtBy, String reason) {
            this.caughtBy = caughtBy;
            this.reason = reason;
            this.defective = null;
        }

        GroupDefect(Defective defective) {
            this.caughtBy = defective.caughtBy();
            this.reason = defective.reason();
            this.defective = defective;
        }

        ConformanceConfig.Builder target() {
            return defective.target().get();
        }
    }

    /** A defect made once for several RPCs: the check that catches it, what it says, the plugin. */
    record Defective(String caughtBy, String reason, Supplier<ConformanceConfig.Builder> target) {}

    /**
     * A plugin that reads an empty {@code volume_group_id} of {@code rpc} as some group's id (below the runtime, which
     * validates ids itself): a group that does not exist, so Get and Modify answer 5 and Delete 0, never 3.
     */
    static Defective groupIdDefaulted(Rpc rpc) {
        return new Defective(
                VolumeGroupChecks.id(rpc, "missing-id"),
                "expected 3 INVALID_ARGUMENT, got " + (rpc == Rpc.DELETE_VOLUME_GROUP ? "0 OK" : "5 NOT_FOUND"),
                () -> config(reference(), null).interceptor(rewriteRequest(rpc, m -> {
                    var id = m.getDescriptorForType().findFieldByName("volume_group_id");
                    return ((String) m.getField(id)).isEmpty()
                            ? m.toBuilder().setField(id, "vg-defaulted").build()
                            : m;
                })));
    }

    @Test
    void theChecksSendWhatAPoliteClientRefuses() {
        // The kit sends an empty name and a negative max_entries, which volrep's client refuses before sending.
        List<Message> seen = new CopyOnWriteArrayList<>();
        ReferenceDriver reference = reference();
        ServerInterceptor recording = rewriteRequest(Rpc.CREATE_VOLUME_GROUP, m -> {
            seen.add(m);
            return m;
        });
        run(config(reference, reference).interceptor(recording).build());
        assertThat(seen)
                .extracting(m -> ((CreateVolumeGroupRequest) m).getName())
                .contains("");
    }
}
