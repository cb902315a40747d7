package io.volrep.spi.exec;

import static io.volrep.spi.exec.ExecHarness.script;
import static io.volrep.spi.exec.ExecHarness.statusOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.volrep.api.VolumeGroupCapability;
import io.volrep.proto.volumegroup.ControllerGetVolumeGroupRequest;
import io.volrep.proto.volumegroup.CreateVolumeGroupRequest;
import io.volrep.proto.volumegroup.DeleteVolumeGroupRequest;
import io.volrep.proto.volumegroup.ListVolumeGroupsRequest;
import io.volrep.proto.volumegroup.ListVolumeGroupsResponse;
import io.volrep.proto.volumegroup.ModifyVolumeGroupMembershipRequest;
import io.volrep.testsupport.GrpcCleanup;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The exec protocol's five volume group operations over gRPC through the real runtime: what they send, how answers
 * become groups (and are judged), that {@code init} turns each on and Identity advertises exactly those, and that the
 * bridge pages {@code list-groups} itself.
 */
class ExecGroupsTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    private static final String ALL = "if [ \"$1\" = init ]; then echo '{\"status\":\"Success\",\"capabilities\":"
            + "{\"create-group\":true,\"delete-group\":true,\"modify-group\":true,\"get-group\":true,"
            + "\"list-groups\":true},\"volumeGroupCapabilities\":[\"DO_NOT_ALLOW_VG_TO_DELETE_VOLUMES\"]}'; exit 0; fi\n";

    @TempDir
    Path dir;

    private ExecHarness serve(String init, String body) throws Exception {
        return ExecHarness.inProcess(ExecDriver.builder()
                .executable(script(dir, "driver", init + body))
                .build());
    }

    @Test
    void eachOperationSendsItsFieldsAndTheAnswerBecomesTheGroup() throws Exception {
        Path args = dir.resolve("args");
        Path stdin = dir.resolve("stdin");
        String body = "printf '%s\\n' \"$@\" >> " + args + "; cat >> " + stdin + "; echo >> " + stdin + "\n"
                + "case \"$1\" in list-groups) echo '{\"status\":\"Success\",\"volumeGroups\":["
                + "{\"volumeGroupId\":\"vg-b\"},{\"volumeGroupId\":\"vg-a\",\"volumes\":[{\"volumeId\":\"vol-0\"}]}]}';;"
                + " delete-group) echo '{\"status\":\"Success\"}';;"
                + " *) echo '{\"status\":\"Success\",\"volumeGroup\":{\"volumeGroupId\":\"vg-a\",\"volumeGroupContext\":"
                + "{\"pool\":\"rbd\"},\"volumes\":[{\"volumeId\":\"vol-0\",\"capacityBytes\":\"1024\"}]}}';; esac";
        ExecHarness h = grpc.register(serve(ALL, body));
        var created = h.groups()
                .createVolumeGroup(CreateVolumeGroupRequest.newBuilder()
                        .setName("a")
                        .addVolumeIds("vol-0")
                        .putParameters("pool", "rbd")
                        .putSecrets("user", "admin")
                        .build())
                .getVolumeGroup();
        assertThat(created.getVolumeGroupId()).isEqualTo("vg-a");
        assertThat(created.getVolumeGroupContextMap()).containsEntry("pool", "rbd");
        assertThat(created.getVolumes(0).getCapacityBytes()).isEqualTo(1024);
        h.groups()
                .modifyVolumeGroupMembership(ModifyVolumeGroupMembershipRequest.newBuilder()
                        .setVolumeGroupId("vg-a")
                        .addVolumeIds("vol-0")
                        .build());
        h.groups()
                .controllerGetVolumeGroup(ControllerGetVolumeGroupRequest.newBuilder()
                        .setVolumeGroupId("vg-a")
                        .build());
        ListVolumeGroupsResponse first = h.groups()
                .listVolumeGroups(
                        ListVolumeGroupsRequest.newBuilder().setMaxEntries(1).build());
        // The bridge sorts and pages what the driver printed.
        assertThat(first.getEntries(0).getVolumeGroup().getVolumeGroupId()).isEqualTo("vg-a");
        assertThat(h.groups()
                        .listVolumeGroups(ListVolumeGroupsRequest.newBuilder()
                                .setStartingToken(first.getNextToken())
                                .build())
                        .getEntriesList())
                .extracting(e -> e.getVolumeGroup().getVolumeGroupId())
                .containsExactly("vg-b");
        h.groups()
                .deleteVolumeGroup(DeleteVolumeGroupRequest.newBuilder()
                        .setVolumeGroupId("vg-a")
                        .build());
        assertThat(h.capabilities())
                .contains(
                        "VOLUME_GROUP",
                        "MODIFY_VOLUME_GROUP",
                        "GET_VOLUME_GROUP",
                        "LIST_VOLUME_GROUPS",
                        "DO_NOT_ALLOW_VG_TO_DELETE_VOLUMES")
                .doesNotContain("LIMIT_VOLUME_TO_ONE_VOLUME_GROUP");
        assertThat(Files.readAllLines(args))
                .containsExactly(
                        "create-group", "{\"name\":\"a\",\"volumeIds\":[\"vol-0\"],\"parameters\":{\"pool\":\"rbd\"}}",
                        "modify-group", "{\"volumeGroupId\":\"vg-a\",\"volumeIds\":[\"vol-0\"],\"parameters\":{}}",
                        "get-group", "{\"volumeGroupId\":\"vg-a\"}",
                        "list-groups", "{}",
                        "list-groups", "{}",
                        "delete-group", "{\"volumeGroupId\":\"vg-a\"}");
        // The secrets on stdin, never in the arguments.
        assertThat(Files.readAllLines(stdin).get(0)).isEqualTo("{\"user\":\"admin\"}");
        assertThat(Files.readString(args)).doesNotContain("admin");
    }

    @Test
    void answersAreJudgedAndFailuresKeepTheirCode() throws Exception {
        ExecHarness h = grpc.register(serve(
                ALL,
                "case \"$1\" in create-group) echo '{\"status\":\"Success\"}';;"
                        + " get-group) echo '{\"status\":\"Success\",\"volumeGroup\":{\"volumeGroupId\":\"g\",\"volumes\":"
                        + "[{\"volumeId\":\"\"}]}}';;"
                        + " delete-group) echo '{\"status\":\"Failure\",\"code\":\"FAILED_PRECONDITION\",\"message\":\"g is"
                        + " replicated\"}'; exit 1;;"
                        + " list-groups) echo '{\"status\":\"Success\",\"volumeGroups\":[{\"volumeGroupId\":\"g\"},"
                        + "{\"volumeGroupId\":\"g\"}]}';; esac"));
        Status create = statusOf(() -> h.groups()
                .createVolumeGroup(
                        CreateVolumeGroupRequest.newBuilder().setName("a").build()));
        assertThat(create.getCode()).isEqualTo(Status.Code.UNKNOWN);
        assertThat(create.getDescription())
                .contains("(create-group): invalid answer: Success without" + " \"volumeGroup\"");
        Status get = statusOf(() -> h.groups()
                .controllerGetVolumeGroup(ControllerGetVolumeGroupRequest.newBuilder()
                        .setVolumeGroupId("g")
                        .build()));
        assertThat(get.getDescription())
                .contains("\"volumeGroup\" (volume_group.volumes[0].volume_id: REQUIRED but" + " empty)");
        Status delete = statusOf(() -> h.groups()
                .deleteVolumeGroup(DeleteVolumeGroupRequest.newBuilder()
                        .setVolumeGroupId("g")
                        .build()));
        assertThat(delete.getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(delete.getDescription()).isEqualTo("g is replicated");
        Status list = statusOf(() -> h.groups().listVolumeGroups(ListVolumeGroupsRequest.getDefaultInstance()));
        assertThat(list.getDescription())
                .contains("\"volumeGroups\" (entries[1].volume_group.volume_group_id:"
                        + " \"g\" is listed twice in one page)");
    }

    @Test
    void withoutInitsOptInNoGroupIsServedAndEachOptionalOperationIsItsOwn() throws Exception {
        ExecHarness h = grpc.register(serve(
                "if [ \"$1\" = init ]; then echo '{\"status\":\"Success\"}'; exit 0; fi\n",
                "echo '{\"status\":\"Success\"}'"));
        assertThat(h.driver.servesVolumeGroups()).isFalse();
        assertThat(statusOf(() -> h.groups()
                                .createVolumeGroup(CreateVolumeGroupRequest.newBuilder()
                                        .setName("a")
                                        .build()))
                        .getCode())
                .isEqualTo(Status.Code.UNIMPLEMENTED);
        assertThat(h.capabilities()).doesNotContain("VOLUME_GROUP");
        Path calls = dir.resolve("calls");
        ExecHarness h2 = grpc.register(serve(
                "echo \"$1\" >> " + calls + "\nif [ \"$1\" = init ]; then echo '{\"status\":"
                        + "\"Success\",\"capabilities\":{\"create-group\":true,\"delete-group\":true,\"get-group\":true}}';"
                        + " exit 0; fi\n",
                "echo '{\"status\":\"Success\",\"volumeGroup\":{\"volumeGroupId\":\"g\"}}'"));
        assertThat(h2.driver.served())
                .containsExactlyInAnyOrder(VolumeGroupCapability.VOLUME_GROUP, VolumeGroupCapability.GET_VOLUME_GROUP);
        assertThat(statusOf(() -> h2.groups()
                                .modifyVolumeGroupMembership(ModifyVolumeGroupMembershipRequest.newBuilder()
                                        .setVolumeGroupId("g")
                                        .build()))
                        .getCode())
                .isEqualTo(Status.Code.UNIMPLEMENTED);
        assertThat(statusOf(() -> h2.groups().listVolumeGroups(ListVolumeGroupsRequest.getDefaultInstance()))
                        .getCode())
                .isEqualTo(Status.Code.UNIMPLEMENTED);
        assertThat(h2.capabilities())
                .contains("GET_VOLUME_GROUP")
                .doesNotContain("MODIFY_VOLUME_GROUP")
                .doesNotContain("LIST_VOLUME_GROUPS");
        assertThat(Files.readAllLines(calls)).containsExactly("init");
    }

    @Test
    void anUnknownBehaviourFailsInit() throws Exception {
        Path driver = script(
                dir,
                "driver",
                "echo '{\"status\":\"Success\",\"volumeGroupCapabilities\":" + "[\"LIST_VOLUME_GROUPS\"]}'");
        assertThatThrownBy(() -> ExecDriver.builder().executable(driver).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(
                        "\"LIST_VOLUME_GROUPS\" in volumeGroupCapabilities is not a volume group behaviour");
    }
}
