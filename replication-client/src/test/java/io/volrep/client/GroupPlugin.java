package io.volrep.client;

import com.google.protobuf.Message;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.volrep.api.Rpc;
import io.volrep.api.VolumeGroupCapability;
import io.volrep.proto.csi.Volume;
import io.volrep.proto.identity.Capability;
import io.volrep.proto.identity.GetCapabilitiesRequest;
import io.volrep.proto.identity.GetCapabilitiesResponse;
import io.volrep.proto.identity.IdentityGrpc;
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
import io.volrep.proto.volumegroup.VolumeGroup;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * An independent volumegroup.Controller (and Identity) written on the generated stubs, for the client's tests:
 * groups in memory (id "vg-" + name), the capabilities it advertises, per-RPC scripts of failure codes, answers that can
 * be bent, simple offset tokens ("t" + offset), and a record of every request.
 */
final class GroupPlugin {
    final Map<String, List<String>> groups = new TreeMap<>();
    final List<Message> requests = new CopyOnWriteArrayList<>();
    final Map<Rpc, Deque<Status>> scripts = new ConcurrentHashMap<>();
    volatile Set<VolumeGroupCapability> advertised = EnumSet.allOf(VolumeGroupCapability.class);
    volatile UnaryOperator<VolumeGroup> bend = g -> g;
    /** Whether the page's token repeats the one asked with (a plugin that never gets further). */
    volatile boolean stuckToken;
    /**
     * A listing that never ends, when set: every page answers this many fresh groups (0: an empty page) and a fresh
     * {@code next_token}, whatever the groups in {@link #groups}.
     */
    volatile Integer endlessPages;

    private final AtomicInteger endlessPage = new AtomicInteger();

    final AtomicInteger capabilityCalls = new AtomicInteger();
    final AtomicInteger inFlight = new AtomicInteger();
    final AtomicInteger mostInFlight = new AtomicInteger();
    volatile long latencyMillis;

    /** The next calls of {@code rpc} answer these codes, in order, then as usual. */
    GroupPlugin script(Rpc rpc, Status... statuses) {
        scripts.computeIfAbsent(rpc, r -> new ArrayDeque<>()).addAll(List.of(statuses));
        return this;
    }

    List<Message> requests(Class<?> type) {
        return requests.stream().filter(type::isInstance).toList();
    }

    private synchronized Status scripted(Rpc rpc) {
        Deque<Status> script = scripts.get(rpc);
        return script == null || script.isEmpty() ? null : script.poll();
    }

    private static VolumeGroup wire(String id, List<String> members) {
        VolumeGroup.Builder b = VolumeGroup.newBuilder().setVolumeGroupId(id);
        members.forEach(m -> b.addVolumes(Volume.newBuilder().setVolumeId(m)));
        return b.build();
    }

    /**
     * Runs one call: records it, answers its scripted failure or {@code answer}. The call stops counting as in flight
     * just before its answer is sent, as a server's per-source guard is released: once the client has the answer it
     * may send the next call, which must not find this one still counted.
     */
    private <R> void serve(Rpc rpc, Message request, StreamObserver<R> o, Supplier<R> answer) {
        requests.add(request);
        int now = inFlight.incrementAndGet();
        mostInFlight.accumulateAndGet(now, Math::max);
        R r = null;
        Status failure;
        try {
            if (latencyMillis > 0) {
                Thread.sleep(latencyMillis);
            }
            failure = scripted(rpc);
            if (failure == null) {
                synchronized (this) {
                    r = answer.get();
                }
            }
        } catch (StatusException e) {
            failure = e.status;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failure = Status.CANCELLED;
        } finally {
            inFlight.decrementAndGet();
        }
        if (failure != null) {
            o.onError(failure.asRuntimeException());
        } else {
            o.onNext(r);
            o.onCompleted();
        }
    }

    private static final class StatusException extends RuntimeException {
        final Status status;

        StatusException(Status status) {
            super(status.getDescription());
            this.status = status;
        }
    }

    ControllerGrpc.ControllerImplBase controller() {
        return new ControllerGrpc.ControllerImplBase() {
            @Override
            public void createVolumeGroup(CreateVolumeGroupRequest r, StreamObserver<CreateVolumeGroupResponse> o) {
                serve(Rpc.CREATE_VOLUME_GROUP, r, o, () -> {
                    String id = "vg-" + r.getName();
                    groups.putIfAbsent(id, new ArrayList<>(r.getVolumeIdsList()));
                    return CreateVolumeGroupResponse.newBuilder()
                            .setVolumeGroup(bend.apply(wire(id, groups.get(id))))
                            .build();
                });
            }

            @Override
            public void modifyVolumeGroupMembership(
                    ModifyVolumeGroupMembershipRequest r, StreamObserver<ModifyVolumeGroupMembershipResponse> o) {
                serve(Rpc.MODIFY_VOLUME_GROUP_MEMBERSHIP, r, o, () -> {
                    if (!groups.containsKey(r.getVolumeGroupId())) {
                        throw new StatusException(Status.NOT_FOUND.withDescription("no group"));
                    }
                    groups.put(r.getVolumeGroupId(), new ArrayList<>(r.getVolumeIdsList()));
                    return ModifyVolumeGroupMembershipResponse.newBuilder()
                            .setVolumeGroup(bend.apply(wire(r.getVolumeGroupId(), groups.get(r.getVolumeGroupId()))))
                            .build();
                });
            }

            @Override
            public void deleteVolumeGroup(DeleteVolumeGroupRequest r, StreamObserver<DeleteVolumeGroupResponse> o) {
                serve(Rpc.DELETE_VOLUME_GROUP, r, o, () -> {
                    groups.remove(r.getVolumeGroupId());
                    return DeleteVolumeGroupResponse.getDefaultInstance();
                });
            }

            @Override
            public void controllerGetVolumeGroup(
                    ControllerGetVolumeGroupRequest r, StreamObserver<ControllerGetVolumeGroupResponse> o) {
                serve(Rpc.CONTROLLER_GET_VOLUME_GROUP, r, o, () -> {
                    List<String> members = groups.get(r.getVolumeGroupId());
                    if (members == null) {
                        throw new StatusException(
                                Status.NOT_FOUND.withDescription("no volume group " + r.getVolumeGroupId()));
                    }
                    return ControllerGetVolumeGroupResponse.newBuilder()
                            .setVolumeGroup(bend.apply(wire(r.getVolumeGroupId(), members)))
                            .build();
                });
            }

            @Override
            public void listVolumeGroups(ListVolumeGroupsRequest r, StreamObserver<ListVolumeGroupsResponse> o) {
                serve(Rpc.LIST_VOLUME_GROUPS, r, o, () -> {
                    Integer endless = endlessPages;
                    if (endless != null) {
                        int page = endlessPage.incrementAndGet();
                        ListVolumeGroupsResponse.Builder b =
                                ListVolumeGroupsResponse.newBuilder().setNextToken("endless-" + page);
                        for (int i = 0; i < endless; i++) {
                            b.addEntriesBuilder().setVolumeGroup(wire("vg-" + page + "-" + i, List.of()));
                        }
                        return b.build();
                    }
                    int from = r.getStartingToken().isEmpty()
                            ? 0
                            : Integer.parseInt(r.getStartingToken().substring(1));
                    List<String> ids = new ArrayList<>(groups.keySet());
                    int to = r.getMaxEntries() == 0 ? ids.size() : Math.min(ids.size(), from + r.getMaxEntries());
                    ListVolumeGroupsResponse.Builder b = ListVolumeGroupsResponse.newBuilder();
                    for (String id : ids.subList(Math.min(from, ids.size()), to)) {
                        b.addEntriesBuilder().setVolumeGroup(bend.apply(wire(id, groups.get(id))));
                    }
                    if (to < ids.size()) {
                        b.setNextToken(stuckToken && from > 0 ? r.getStartingToken() : "t" + to);
                    }
                    return b.build();
                });
            }
        };
    }

    IdentityGrpc.IdentityImplBase identity() {
        return new IdentityGrpc.IdentityImplBase() {
            @Override
            public void getCapabilities(GetCapabilitiesRequest request, StreamObserver<GetCapabilitiesResponse> o) {
                capabilityCalls.incrementAndGet();
                GetCapabilitiesResponse.Builder b = GetCapabilitiesResponse.newBuilder()
                        .addCapabilities(Capability.newBuilder()
                                .setService(Capability.Service.newBuilder()
                                        .setType(Capability.Service.Type.CONTROLLER_SERVICE)));
                for (VolumeGroupCapability c : advertised) {
                    b.addCapabilities(Capability.newBuilder()
                            .setVolumeGroup(Capability.VolumeGroup.newBuilder().setTypeValue(c.wireNumber())));
                }
                o.onNext(b.build());
                o.onCompleted();
            }
        };
    }
}
