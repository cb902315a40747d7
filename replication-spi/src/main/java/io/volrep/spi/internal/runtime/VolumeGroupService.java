package io.volrep.spi.internal.runtime;

import com.google.protobuf.Message;
import io.grpc.stub.StreamObserver;
import io.volrep.api.CsiLimits;
import io.volrep.api.Rpc;
import io.volrep.api.Secrets;
import io.volrep.api.UnimplementedException;
import io.volrep.api.VolumeGroup;
import io.volrep.api.VolumeGroupCapability;
import io.volrep.api.internal.wire.AnswerRules;
import io.volrep.api.internal.wire.WireMapping;
import io.volrep.proto.volumegroup.ControllerGetVolumeGroupRequest;
import io.volrep.proto.volumegroup.ControllerGetVolumeGroupResponse;
import io.volrep.proto.volumegroup.ControllerGrpc;
import io.volrep.proto.volumegroup.CreateVolumeGroupRequest;
import io.volrep.proto.volumegroup.CreateVolumeGroupResponse;
import io.volrep.proto.volumegroup.DeleteVolumeGroupRequest;
import io.volrep.proto.volumegroup.DeleteVolumeGroupResponse;
import io.volrep.proto.volumegroup.ListVolumeGroupsRequest;
import io.volrep.proto.volumegroup.ListVolumeGroupsResponse;
import io.volrep.proto.volumegroup.ModifyVolumeGroupMembershipRequest;
import io.volrep.proto.volumegroup.ModifyVolumeGroupMembershipResponse;
import io.volrep.spi.CreateGroupRequest;
import io.volrep.spi.DeleteGroupRequest;
import io.volrep.spi.GetGroupRequest;
import io.volrep.spi.ListGroupsRequest;
import io.volrep.spi.ModifyGroupRequest;
import io.volrep.spi.VolumeGroupDriver;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * {@code volumegroup.Controller} served by a {@link VolumeGroupDriver} through the {@link CallRunner}, the pipeline of
 * every service: each request validated first (REQUIRED ids present and within CSI's 128 bytes, no volume id twice,
 * maps within 4 KiB, {@code max_entries} not negative, the starting token one of {@link PageTokens}), one call at a
 * time per group id (per name for CreateVolumeGroup; a second answers ABORTED), the driver's exceptions mapped
 * through the error scheme, and every answer judged by {@link AnswerRules} before it is sent. An RPC the driver does
 * not {@linkplain VolumeGroupDriver#served() serve} answers 12 UNIMPLEMENTED without calling it. ListVolumeGroups is
 * paged here: the driver answers every group, this service sorts them by id and answers {@code max_entries} of them
 * from the token's position.
 *
 * <pre>{@code
 * ServerServiceDefinition service = new VolumeGroupService(groups, runner).bindService();
 * }</pre>
 */
public final class VolumeGroupService extends ControllerGrpc.ControllerImplBase {
    private final VolumeGroupDriver driver;
    private final CallRunner runner;
    private final Set<VolumeGroupCapability> served;

    public VolumeGroupService(VolumeGroupDriver driver, CallRunner runner) {
        this.driver = Objects.requireNonNull(driver, "driver");
        this.runner = Objects.requireNonNull(runner, "runner");
        this.served = advertised(driver);
    }

    /**
     * What Identity advertises for {@code driver}: the RPC capabilities it serves ({@code VOLUME_GROUP} always) and its
     * behaviours. Read once.
     *
     * @throws IllegalArgumentException when {@link VolumeGroupDriver#served()} leaves out {@code VOLUME_GROUP} or names
     *                                  a behaviour, or {@link VolumeGroupDriver#behaviours()} names an RPC capability
     */
    public static Set<VolumeGroupCapability> advertised(VolumeGroupDriver driver) {
        Set<VolumeGroupCapability> served = EnumSet.noneOf(VolumeGroupCapability.class);
        served.addAll(Objects.requireNonNull(driver.served(), "served()"));
        if (!served.contains(VolumeGroupCapability.VOLUME_GROUP)
                || served.stream().anyMatch(VolumeGroupCapability::isBehaviour)) {
            throw new IllegalArgumentException(
                    "VolumeGroupDriver.served() must hold VOLUME_GROUP and RPC capabilities" + " only, got " + served);
        }
        Set<VolumeGroupCapability> behaviours = Objects.requireNonNull(driver.behaviours(), "behaviours()");
        if (!behaviours.stream().allMatch(VolumeGroupCapability::isBehaviour)) {
            throw new IllegalArgumentException("VolumeGroupDriver.behaviours() must hold behaviours only"
                    + " (LIMIT_VOLUME_TO_ONE_VOLUME_GROUP, DO_NOT_ALLOW_VG_TO_DELETE_VOLUMES), got " + behaviours);
        }
        served.addAll(behaviours);
        return Collections.unmodifiableSet(served);
    }

    /** The guard keys: a group by its id, a group to be created by its name. */
    private record GroupId(String id) {}

    private record GroupName(String name) {}

    @Override
    public void createVolumeGroup(
            CreateVolumeGroupRequest request, StreamObserver<CreateVolumeGroupResponse> observer) {
        runner.unary(Rpc.CREATE_VOLUME_GROUP, request, observer, (r, deadline) -> {
            requireServed(Rpc.CREATE_VOLUME_GROUP);
            CreateGroupRequest typed = CreateGroupRequest.builder()
                    .name(CsiLimits.requireId("name", r.getName()))
                    .parameters(RequestValidation.parameters(r.getParametersMap()))
                    .secrets(RequestValidation.secrets(r.getSecretsMap()))
                    .volumeIds(CsiLimits.requireIds("volume_ids", r.getVolumeIdsList()))
                    .deadline(deadline)
                    .build();
            return call(
                    new GroupName(typed.name()),
                    "volume group named " + typed.name(),
                    typed.secrets(),
                    () -> checked(
                            Rpc.CREATE_VOLUME_GROUP,
                            CreateVolumeGroupResponse.newBuilder()
                                    .setVolumeGroup(wire(driver.create(typed)))
                                    .build(),
                            AnswerRules.Asked.creation(typed.volumeIds())));
        });
    }

    @Override
    public void modifyVolumeGroupMembership(
            ModifyVolumeGroupMembershipRequest request, StreamObserver<ModifyVolumeGroupMembershipResponse> observer) {
        runner.unary(Rpc.MODIFY_VOLUME_GROUP_MEMBERSHIP, request, observer, (r, deadline) -> {
            requireServed(Rpc.MODIFY_VOLUME_GROUP_MEMBERSHIP);
            ModifyGroupRequest typed = ModifyGroupRequest.builder()
                    .volumeGroupId(CsiLimits.requireId("volume_group_id", r.getVolumeGroupId()))
                    .volumeIds(CsiLimits.requireIds("volume_ids", r.getVolumeIdsList()))
                    .parameters(RequestValidation.parameters(r.getParametersMap()))
                    .secrets(RequestValidation.secrets(r.getSecretsMap()))
                    .deadline(deadline)
                    .build();
            return call(
                    new GroupId(typed.volumeGroupId()),
                    "volume group " + typed.volumeGroupId(),
                    typed.secrets(),
                    () -> checked(
                            Rpc.MODIFY_VOLUME_GROUP_MEMBERSHIP,
                            ModifyVolumeGroupMembershipResponse.newBuilder()
                                    .setVolumeGroup(wire(driver.modify(typed)))
                                    .build(),
                            AnswerRules.Asked.membership(typed.volumeGroupId(), typed.volumeIds())));
        });
    }

    @Override
    public void deleteVolumeGroup(
            DeleteVolumeGroupRequest request, StreamObserver<DeleteVolumeGroupResponse> observer) {
        runner.unary(Rpc.DELETE_VOLUME_GROUP, request, observer, (r, deadline) -> {
            requireServed(Rpc.DELETE_VOLUME_GROUP);
            DeleteGroupRequest typed = DeleteGroupRequest.builder()
                    .volumeGroupId(CsiLimits.requireId("volume_group_id", r.getVolumeGroupId()))
                    .secrets(RequestValidation.secrets(r.getSecretsMap()))
                    .deadline(deadline)
                    .build();
            return call(
                    new GroupId(typed.volumeGroupId()),
                    "volume group " + typed.volumeGroupId(),
                    typed.secrets(),
                    () -> {
                        driver.delete(typed);
                        return DeleteVolumeGroupResponse.getDefaultInstance();
                    });
        });
    }

    @Override
    public void controllerGetVolumeGroup(
            ControllerGetVolumeGroupRequest request, StreamObserver<ControllerGetVolumeGroupResponse> observer) {
        runner.unary(Rpc.CONTROLLER_GET_VOLUME_GROUP, request, observer, (r, deadline) -> {
            requireServed(Rpc.CONTROLLER_GET_VOLUME_GROUP);
            GetGroupRequest typed = GetGroupRequest.builder()
                    .volumeGroupId(CsiLimits.requireId("volume_group_id", r.getVolumeGroupId()))
                    .secrets(RequestValidation.secrets(r.getSecretsMap()))
                    .deadline(deadline)
                    .build();
            return call(
                    new GroupId(typed.volumeGroupId()),
                    "volume group " + typed.volumeGroupId(),
                    typed.secrets(),
                    () -> checked(
                            Rpc.CONTROLLER_GET_VOLUME_GROUP,
                            ControllerGetVolumeGroupResponse.newBuilder()
                                    .setVolumeGroup(wire(driver.get(typed)))
                                    .build(),
                            AnswerRules.Asked.group(typed.volumeGroupId())));
        });
    }

    @Override
    public void listVolumeGroups(ListVolumeGroupsRequest request, StreamObserver<ListVolumeGroupsResponse> observer) {
        runner.unary(Rpc.LIST_VOLUME_GROUPS, request, observer, (r, deadline) -> {
            requireServed(Rpc.LIST_VOLUME_GROUPS);
            int maxEntries = CsiLimits.requireNotNegative("max_entries", r.getMaxEntries());
            ListGroupsRequest typed = ListGroupsRequest.builder()
                    .secrets(RequestValidation.secrets(r.getSecretsMap()))
                    .deadline(deadline)
                    .build();
            Optional<String> after = PageTokens.position(r.getStartingToken());
            // Listing concerns no one group: its own key, so listings never wait for each other or for a group.
            return call(
                    new Object(), "volume groups", typed.secrets(), () -> page(driver.list(typed), after, maxEntries));
        });
    }

    /** The page of {@code all} after {@code after}, at most {@code maxEntries} (0: the rest). */
    private static ListVolumeGroupsResponse page(List<VolumeGroup> all, Optional<String> after, int maxEntries) {
        if (all == null) {
            throw new InvalidDriverResponseException("list returned null instead of a list of groups");
        }
        List<VolumeGroup> sorted = new ArrayList<>(all.size());
        for (VolumeGroup g : all) {
            if (g == null) {
                throw new InvalidDriverResponseException("list returned a null group");
            }
            sorted.add(g);
        }
        sorted.sort(Comparator.comparing(VolumeGroup::id));
        ListVolumeGroupsResponse.Builder everything = ListVolumeGroupsResponse.newBuilder();
        sorted.forEach(g -> everything.addEntriesBuilder().setVolumeGroup(WireMapping.toProto(g)));
        // The driver's whole answer is judged once (no group twice, each valid); then it is only sliced.
        checked(Rpc.LIST_VOLUME_GROUPS, everything.build(), AnswerRules.Asked.page(0));
        int from = 0;
        if (after.isPresent()) {
            while (from < sorted.size() && sorted.get(from).id().compareTo(after.get()) <= 0) {
                from++;
            }
        }
        int to = maxEntries == 0 ? sorted.size() : Math.min(sorted.size(), from + maxEntries);
        ListVolumeGroupsResponse.Builder page = ListVolumeGroupsResponse.newBuilder()
                .addAllEntries(everything.getEntriesList().subList(from, to));
        if (to < sorted.size()) {
            page.setNextToken(PageTokens.after(sorted.get(to - 1).id()));
        }
        return page.build();
    }

    private void requireServed(Rpc rpc) {
        VolumeGroupCapability needed = VolumeGroupCapability.requiredFor(rpc);
        if (!served.contains(needed)) {
            throw new UnimplementedException(rpc.methodName() + " is not implemented by this plugin (it does not"
                    + " advertise " + needed + ")");
        }
    }

    private static <R> CallRunner.Call<R> call(Object key, String subject, Secrets secrets, Supplier<R> invocation) {
        return new CallRunner.Call<>(key, subject, secrets, invocation);
    }

    /** A driver's group on the wire: a null group is the driver's bug. */
    private static io.volrep.proto.volumegroup.VolumeGroup wire(VolumeGroup group) {
        if (group == null) {
            throw new InvalidDriverResponseException("the driver returned no volume group (volume_group is REQUIRED)");
        }
        return WireMapping.toProto(group);
    }

    /** The driver's answer, if it keeps the spec's {@link AnswerRules}: else an invalid driver answer. */
    private static <R extends Message> R checked(Rpc rpc, R answer, AnswerRules.Asked asked) {
        InvalidDriverResponseException.requireNoProblems("", AnswerRules.of(rpc, answer, asked));
        return answer;
    }
}
