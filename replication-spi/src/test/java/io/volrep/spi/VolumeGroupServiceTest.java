package io.volrep.spi;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.volrep.api.PreconditionFailedException;
import io.volrep.api.ReplicationException;
import io.volrep.api.SourceNotFoundException;
import io.volrep.api.StatusCode;
import io.volrep.api.VolumeGroup;
import io.volrep.api.VolumeGroupCapability;
import io.volrep.proto.identity.Capability;
import io.volrep.proto.identity.GetCapabilitiesRequest;
import io.volrep.proto.identity.IdentityGrpc;
import io.volrep.proto.volumegroup.ControllerGetVolumeGroupRequest;
import io.volrep.proto.volumegroup.ControllerGrpc;
import io.volrep.proto.volumegroup.CreateVolumeGroupRequest;
import io.volrep.proto.volumegroup.DeleteVolumeGroupRequest;
import io.volrep.proto.volumegroup.ListVolumeGroupsRequest;
import io.volrep.proto.volumegroup.ListVolumeGroupsResponse;
import io.volrep.proto.volumegroup.ModifyVolumeGroupMembershipRequest;
import io.volrep.testsupport.GrpcCleanup;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * volumegroup.Controller through the runtime: validation before the driver, what is served and advertised, the
 * runtime's paging and its tokens, the answer rules, the error mapping, one call per group.
 */
class VolumeGroupServiceTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    private final List<Object> seen = new CopyOnWriteArrayList<>();

    /** Every RPC implemented, over a map of groups; {@link #answer} may replace what create and modify answer. */
    private final class Groups implements VolumeGroupDriver {
        final Map<String, VolumeGroup> groups = Collections.synchronizedMap(new TreeMap<>());
        volatile Function<VolumeGroup, VolumeGroup> answer = g -> g;
        volatile Runnable onCall = () -> {};

        @Override
        public VolumeGroup create(CreateGroupRequest r) {
            seen.add(r);
            onCall.run();
            VolumeGroup g = groups.computeIfAbsent("vg-" + r.name(), id -> VolumeGroup.of(id, r.volumeIds()));
            return answer.apply(g);
        }

        @Override
        public void delete(DeleteGroupRequest r) {
            seen.add(r);
            if (r.volumeGroupId().equals("in-use")) {
                throw new PreconditionFailedException("volume group in-use is replicated");
            }
            groups.remove(r.volumeGroupId());
        }

        @Override
        public VolumeGroup modify(ModifyGroupRequest r) {
            seen.add(r);
            VolumeGroup g = groups.computeIfPresent(r.volumeGroupId(), (id, old) -> VolumeGroup.of(id, r.volumeIds()));
            if (g == null) {
                throw new SourceNotFoundException("no volume group " + r.volumeGroupId());
            }
            return answer.apply(g);
        }

        @Override
        public VolumeGroup get(GetGroupRequest r) {
            seen.add(r);
            VolumeGroup g = groups.get(r.volumeGroupId());
            if (g == null) {
                throw new SourceNotFoundException("no volume group " + r.volumeGroupId());
            }
            return g;
        }

        @Override
        public List<VolumeGroup> list(ListGroupsRequest r) {
            seen.add(r);
            List<VolumeGroup> all = new ArrayList<>(groups.values());
            Collections.reverse(all); // any order: the runtime sorts
            return all;
        }

        @Override
        public Set<VolumeGroupCapability> served() {
            return EnumSet.of(
                    VolumeGroupCapability.VOLUME_GROUP,
                    VolumeGroupCapability.MODIFY_VOLUME_GROUP,
                    VolumeGroupCapability.GET_VOLUME_GROUP,
                    VolumeGroupCapability.LIST_VOLUME_GROUPS);
        }

        @Override
        public Set<VolumeGroupCapability> behaviours() {
            return Set.of(VolumeGroupCapability.LIMIT_VOLUME_TO_ONE_VOLUME_GROUP);
        }
    }

    /** Create and delete only: the service without its optional RPCs. */
    private class CreateAndDeleteOnly implements VolumeGroupDriver {
        @Override
        public VolumeGroup create(CreateGroupRequest r) {
            seen.add(r);
            return VolumeGroup.of("vg-" + r.name());
        }

        @Override
        public void delete(DeleteGroupRequest r) {
            seen.add(r);
        }
    }

    private String serve(VolumeGroupDriver driver) {
        String name = InProcessServerBuilder.generateName();
        grpc.register(ReplicationServer.builder()
                .volumeGroups(driver)
                .listen("inprocess:" + name)
                .build()
                .start());
        return name;
    }

    private ControllerGrpc.ControllerBlockingStub stub(String name) {
        ManagedChannel channel =
                grpc.register(InProcessChannelBuilder.forName(name).build());
        return ControllerGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
    }

    private List<String> capabilities(String name) {
        ManagedChannel channel =
                grpc.register(InProcessChannelBuilder.forName(name).build());
        return IdentityGrpc.newBlockingStub(channel)
                .getCapabilities(GetCapabilitiesRequest.getDefaultInstance())
                .getCapabilitiesList()
                .stream()
                .map(c -> c.getTypeCase() == Capability.TypeCase.SERVICE
                        ? c.getService().getType().name()
                        : c.getTypeCase() + ":" + c.getVolumeGroup().getType().name())
                .toList();
    }

    private static Status status(Runnable call) {
        return InProcessHarness.statusOf(call);
    }

    @Test
    void identityAdvertisesExactlyWhatTheDriverServesAndTheRestAnswers12WithoutCallingIt() {
        assertThat(capabilities(serve(new Groups())))
                .containsExactly(
                        "CONTROLLER_SERVICE",
                        "VOLUME_GROUP:VOLUME_GROUP",
                        "VOLUME_GROUP:LIMIT_VOLUME_TO_ONE_VOLUME_GROUP",
                        "VOLUME_GROUP:MODIFY_VOLUME_GROUP",
                        "VOLUME_GROUP:GET_VOLUME_GROUP",
                        "VOLUME_GROUP:LIST_VOLUME_GROUPS");
        String minimal = serve(new CreateAndDeleteOnly());
        assertThat(capabilities(minimal)).containsExactly("CONTROLLER_SERVICE", "VOLUME_GROUP:VOLUME_GROUP");
        var stub = stub(minimal);
        assertThat(stub.createVolumeGroup(CreateVolumeGroupRequest.newBuilder()
                                .setName("a")
                                .build())
                        .getVolumeGroup()
                        .getVolumeGroupId())
                .isEqualTo("vg-a");
        seen.clear();
        Status modify = status(() -> stub.modifyVolumeGroupMembership(ModifyVolumeGroupMembershipRequest.newBuilder()
                .setVolumeGroupId("vg-a")
                .build()));
        assertThat(modify.getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
        assertThat(modify.getDescription()).contains("does not advertise MODIFY_VOLUME_GROUP");
        assertThat(status(() -> stub.controllerGetVolumeGroup(ControllerGetVolumeGroupRequest.newBuilder()
                                .setVolumeGroupId("vg-a")
                                .build()))
                        .getCode())
                .isEqualTo(Status.Code.UNIMPLEMENTED);
        assertThat(status(() -> stub.listVolumeGroups(ListVolumeGroupsRequest.getDefaultInstance()))
                        .getCode())
                .isEqualTo(Status.Code.UNIMPLEMENTED);
        assertThat(seen).isEmpty();
    }

    @Test
    void capabilitiesThatAreNotTheirKindFailTheBuild() {
        VolumeGroupDriver wrong = new CreateAndDeleteOnly() {
            @Override
            public Set<VolumeGroupCapability> behaviours() {
                return Set.of(VolumeGroupCapability.LIST_VOLUME_GROUPS);
            }
        };
        Assertions.assertThatThrownBy(() -> ReplicationServer.builder().volumeGroups(wrong))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("behaviours only");
    }

    @Test
    void requestsAreValidatedBeforeTheDriverNamingTheField() {
        var stub = stub(serve(new Groups()));
        Map<String, Runnable> bad = new LinkedHashMap<>();
        bad.put("name", () -> stub.createVolumeGroup(CreateVolumeGroupRequest.getDefaultInstance()));
        bad.put(
                "name: 129 bytes",
                () -> stub.createVolumeGroup(CreateVolumeGroupRequest.newBuilder()
                        .setName("n".repeat(129))
                        .build()));
        bad.put(
                "volume_ids[1]: required",
                () -> stub.createVolumeGroup(CreateVolumeGroupRequest.newBuilder()
                        .setName("a")
                        .addVolumeIds("vol-0")
                        .addVolumeIds("")
                        .build()));
        bad.put(
                "volume_ids[2]: \"vol-0\" is given twice",
                () -> stub.createVolumeGroup(CreateVolumeGroupRequest.newBuilder()
                        .setName("a")
                        .addVolumeIds("vol-0")
                        .addVolumeIds("vol-1")
                        .addVolumeIds("vol-0")
                        .build()));
        bad.put(
                "parameters: ",
                () -> stub.createVolumeGroup(CreateVolumeGroupRequest.newBuilder()
                        .setName("a")
                        .putParameters("p", "x".repeat(4096))
                        .build()));
        bad.put(
                "volume_group_id: required",
                () -> stub.modifyVolumeGroupMembership(ModifyVolumeGroupMembershipRequest.getDefaultInstance()));
        bad.put(
                "secrets: ",
                () -> stub.deleteVolumeGroup(DeleteVolumeGroupRequest.newBuilder()
                        .setVolumeGroupId("g")
                        .putSecrets("k", "s".repeat(4096))
                        .build()));
        bad.put(
                "volume_group_id: 129 bytes",
                () -> stub.controllerGetVolumeGroup(ControllerGetVolumeGroupRequest.newBuilder()
                        .setVolumeGroupId("g".repeat(129))
                        .build()));
        bad.put(
                "max_entries: MUST NOT be negative, got -1",
                () -> stub.listVolumeGroups(
                        ListVolumeGroupsRequest.newBuilder().setMaxEntries(-1).build()));
        bad.forEach((expected, call) -> {
            Status s = status(call);
            assertThat(s.getCode()).as(expected).isEqualTo(Status.Code.INVALID_ARGUMENT);
            assertThat(s.getDescription()).as(expected).startsWith(expected);
        });
        assertThat(seen).isEmpty();
    }

    @Test
    void listingIsPagedByTheRuntimeCompleteAndWithoutRepeatsAndAForeignTokenAnswers10() {
        Groups groups = new Groups();
        var stub = stub(serve(groups));
        for (String name : List.of("e", "a", "d", "b", "c")) {
            stub.createVolumeGroup(CreateVolumeGroupRequest.newBuilder()
                    .setName(name)
                    .addVolumeIds("vol-" + name)
                    .build());
        }
        List<String> ids = new ArrayList<>();
        List<Integer> sizes = new ArrayList<>();
        String token = "";
        do {
            ListVolumeGroupsResponse page = stub.listVolumeGroups(ListVolumeGroupsRequest.newBuilder()
                    .setMaxEntries(2)
                    .setStartingToken(token)
                    .build());
            sizes.add(page.getEntriesCount());
            page.getEntriesList().forEach(e -> ids.add(e.getVolumeGroup().getVolumeGroupId()));
            token = page.getNextToken();
        } while (!token.isEmpty());
        assertThat(ids).containsExactly("vg-a", "vg-b", "vg-c", "vg-d", "vg-e");
        assertThat(sizes).containsExactly(2, 2, 1);
        // No limit: everything at once, no token.
        ListVolumeGroupsResponse all = stub.listVolumeGroups(ListVolumeGroupsRequest.getDefaultInstance());
        assertThat(all.getEntriesCount()).isEqualTo(5);
        assertThat(all.getNextToken()).isEmpty();
        assertThat(all.getEntries(0).getVolumeGroup().getVolumes(0).getVolumeId())
                .isEqualTo("vol-a");
        // A group deleted between pages leaves the token valid: the listing goes on after it.
        String afterB = stub.listVolumeGroups(
                        ListVolumeGroupsRequest.newBuilder().setMaxEntries(2).build())
                .getNextToken();
        stub.deleteVolumeGroup(
                DeleteVolumeGroupRequest.newBuilder().setVolumeGroupId("vg-b").build());
        assertThat(stub.listVolumeGroups(ListVolumeGroupsRequest.newBuilder()
                                .setStartingToken(afterB)
                                .build())
                        .getEntriesList())
                .extracting(e -> e.getVolumeGroup().getVolumeGroupId())
                .containsExactly("vg-c", "vg-d", "vg-e");
        // Anything else is not a token of this plugin: 10 ABORTED, as the table says, before the driver is asked.
        seen.clear();
        for (String foreign : List.of("garbage", "vg1.!!!", "vg1.", "vg1." + "Zm9v".repeat(50))) {
            Status s = status(() -> stub.listVolumeGroups(ListVolumeGroupsRequest.newBuilder()
                    .setStartingToken(foreign)
                    .build()));
            assertThat(s.getCode()).as(foreign).isEqualTo(Status.Code.ABORTED);
            assertThat(s.getDescription())
                    .as(foreign)
                    .startsWith("starting_token: ")
                    .doesNotContain(foreign);
        }
        assertThat(seen).isEmpty();
    }

    @Test
    void answersThatBreakTheRulesAreTheDriversBug() {
        Groups groups = new Groups();
        var stub = stub(serve(groups));
        groups.answer = g -> new VolumeGroup("", Map.of(), g.members());
        Status s = status(() -> stub.createVolumeGroup(
                CreateVolumeGroupRequest.newBuilder().setName("a").build()));
        assertThat(s.getCode()).isEqualTo(Status.Code.UNKNOWN);
        assertThat(s.getDescription())
                .isEqualTo(
                        "driver returned an invalid response: volume_group.volume_group_id:" + " REQUIRED but empty");
        // Modify must answer exactly the membership asked for.
        groups.answer = g -> g;
        stub.createVolumeGroup(
                CreateVolumeGroupRequest.newBuilder().setName("b").build());
        groups.answer = g -> VolumeGroup.of(g.id(), "vol-9");
        s = status(() -> stub.modifyVolumeGroupMembership(ModifyVolumeGroupMembershipRequest.newBuilder()
                .setVolumeGroupId("vg-b")
                .addVolumeIds("vol-1")
                .build()));
        assertThat(s.getCode()).isEqualTo(Status.Code.UNKNOWN);
        assertThat(s.getDescription()).contains("volume_group.volumes: the membership asked for is [\"vol-1\"]");
        // An answer about another group than the one asked about; a created group with a volume nobody asked for.
        groups.answer = g -> VolumeGroup.of("vg-OTHER", g.volumeIds());
        s = status(() -> stub.modifyVolumeGroupMembership(ModifyVolumeGroupMembershipRequest.newBuilder()
                .setVolumeGroupId("vg-b")
                .addVolumeIds("vol-1")
                .build()));
        assertThat(s.getDescription())
                .contains("the answer is about volume group \"vg-OTHER\", the call asked about \"vg-b\"");
        groups.answer = g -> VolumeGroup.of(g.id(), "vol-9");
        s = status(() -> stub.createVolumeGroup(CreateVolumeGroupRequest.newBuilder()
                .setName("d")
                .addVolumeIds("vol-1")
                .build()));
        assertThat(s.getDescription()).contains("(not asked for [\"vol-9\"])");
        groups.answer = g -> null;
        s = status(() -> stub.createVolumeGroup(
                CreateVolumeGroupRequest.newBuilder().setName("c").build()));
        assertThat(s.getDescription()).contains("the driver returned no volume group");
        // A group listed twice by the driver.
        groups.answer = g -> g;
        groups.groups.put("dup", VolumeGroup.of("vg-b"));
        s = status(() -> stub.listVolumeGroups(ListVolumeGroupsRequest.getDefaultInstance()));
        assertThat(s.getCode()).isEqualTo(Status.Code.UNKNOWN);
        assertThat(s.getDescription()).contains("\"vg-b\" is listed twice in one page");
    }

    @Test
    void theDriversExceptionsKeepTheirCodesAndSecretsNeverShow() {
        Groups groups = new Groups();
        var stub = stub(serve(groups));
        Status inUse = status(() -> stub.deleteVolumeGroup(DeleteVolumeGroupRequest.newBuilder()
                .setVolumeGroupId("in-use")
                .putSecrets("password", "hunter2")
                .build()));
        assertThat(inUse.getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(inUse.getDescription()).isEqualTo("volume group in-use is replicated");
        assertThat(status(() -> stub.controllerGetVolumeGroup(ControllerGetVolumeGroupRequest.newBuilder()
                                .setVolumeGroupId("nope")
                                .build()))
                        .getCode())
                .isEqualTo(Status.Code.NOT_FOUND);
        // Delete of a group that does not exist: 0 OK, as the spec says (the driver does nothing).
        assertThat(status(() -> stub.deleteVolumeGroup(DeleteVolumeGroupRequest.newBuilder()
                                .setVolumeGroupId("nope")
                                .build()))
                        .getCode())
                .isEqualTo(Status.Code.OK);
        groups.onCall = () -> {
            throw ReplicationException.of(
                    StatusCode.ALREADY_EXISTS, "name a is taken by an incompatible group", null, 0, null);
        };
        assertThat(status(() -> stub.createVolumeGroup(CreateVolumeGroupRequest.newBuilder()
                                .setName("a")
                                .build()))
                        .getCode())
                .isEqualTo(Status.Code.ALREADY_EXISTS);
        assertThat(seen)
                .filteredOn(r -> r instanceof DeleteGroupRequest)
                .first()
                .asString()
                .doesNotContain("hunter2")
                .contains("***");
    }

    @Test
    void oneCallPerGroupAtATimeTheSecondAnswersAborted() throws Exception {
        Groups groups = new Groups();
        var stub = stub(serve(groups));
        stub.createVolumeGroup(
                CreateVolumeGroupRequest.newBuilder().setName("a").build());
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        groups.onCall = () -> {
            entered.countDown();
            try {
                release.await(5, TimeUnit.MINUTES);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        CompletableFuture<Status> first = CompletableFuture.supplyAsync(() -> status(() -> stub.createVolumeGroup(
                CreateVolumeGroupRequest.newBuilder().setName("a").build())));
        assertThat(entered.await(5, TimeUnit.MINUTES)).isTrue();
        Status second = status(() -> stub.createVolumeGroup(
                CreateVolumeGroupRequest.newBuilder().setName("a").build()));
        // Another name, and a listing, are not held up.
        groups.onCall = () -> {};
        Status other = status(() -> stub.createVolumeGroup(
                CreateVolumeGroupRequest.newBuilder().setName("b").build()));
        Status listing = status(() -> stub.listVolumeGroups(ListVolumeGroupsRequest.getDefaultInstance()));
        release.countDown();
        assertThat(second.getCode()).isEqualTo(Status.Code.ABORTED);
        assertThat(second.getDescription()).isEqualTo("operation pending for volume group named a");
        assertThat(other.getCode()).isEqualTo(Status.Code.OK);
        assertThat(listing.getCode()).isEqualTo(Status.Code.OK);
        assertThat(first.get(5, TimeUnit.MINUTES).getCode()).isEqualTo(Status.Code.OK);
    }
}
