package io.volrep.spi.exec;

import static io.volrep.spi.exec.ExecHarness.group;
import static io.volrep.spi.exec.ExecHarness.statusOf;
import static io.volrep.spi.exec.ExecHarness.volume;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.volrep.proto.replication.EnableVolumeReplicationRequest;
import io.volrep.proto.replication.GetReplicationDestinationInfoResponse;
import io.volrep.proto.replication.GetVolumeReplicationInfoResponse;
import io.volrep.proto.replication.ReplicationSource;
import io.volrep.proto.volumegroup.ControllerGetVolumeGroupRequest;
import io.volrep.proto.volumegroup.ControllerGrpc;
import io.volrep.proto.volumegroup.CreateVolumeGroupRequest;
import io.volrep.proto.volumegroup.DeleteVolumeGroupRequest;
import io.volrep.proto.volumegroup.ListVolumeGroupsRequest;
import io.volrep.proto.volumegroup.ModifyVolumeGroupMembershipRequest;
import io.volrep.testsupport.GrpcCleanup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example driver of examples/exec-driver, served through {@link ExecDriver} on a unix socket: the spec's
 * lifecycle and error rows, on the generated stubs.
 */
@SuppressWarnings("deprecation") // sends or reads the deprecated volume_id (field 1) on purpose
class ExampleDriverTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    static final Path EXAMPLE = Path.of("..", "examples", "exec-driver", "volrep-exec-example");
    private static final Map<String, String> NONE = Map.of();

    @TempDir
    Path dir;

    private ExecHarness serve(Map<String, String> environment) {
        return serve(environment, Duration.ofSeconds(20));
    }

    private ExecHarness serve(Map<String, String> environment, Duration timeout) {
        ExecDriver.Builder b = ExecDriver.builder()
                .executable(EXAMPLE)
                .timeout(timeout)
                .environment("VOLREP_EXEC_STATE_DIR", dir.resolve("state").toString())
                .environment("VOLREP_EXEC_VOLUMES", "4");
        environment.forEach(b::environment);
        return ExecHarness.unix(b.build(), dir.resolve("s.sock"));
    }

    @Test
    void lifecycleAndErrorRows() throws Exception {
        ExecHarness h = grpc.register(serve(NONE));
        assertThat(Files.exists(dir.resolve("state/volume/vol-3.json")))
                .as("init created the fixtures")
                .isTrue();
        ReplicationSource vol = volume("vol-1");

        // Unknown sources: NOT_FOUND on every RPC.
        ReplicationSource missing = volume("no-such-volume");
        assertThat(h.enable(missing, NONE).getCode()).isEqualTo(Status.Code.NOT_FOUND);
        assertThat(h.disable(missing, NONE).getCode()).isEqualTo(Status.Code.NOT_FOUND);
        assertThat(h.promote(missing, NONE).getCode()).isEqualTo(Status.Code.NOT_FOUND);
        assertThat(h.demote(missing, NONE).getCode()).isEqualTo(Status.Code.NOT_FOUND);
        assertThat(h.resync(missing, NONE))
                .extracting(s -> ((Status) s).getCode())
                .isEqualTo(Status.Code.NOT_FOUND);
        assertThat(h.info(missing, NONE))
                .extracting(s -> ((Status) s).getCode())
                .isEqualTo(Status.Code.NOT_FOUND);

        // Not enabled: FAILED_PRECONDITION for promote, demote, resync, info.
        assertThat(h.promote(vol, NONE).getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(h.demote(vol, NONE).getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(code(h.resync(vol, NONE))).isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(code(h.info(vol, NONE))).isEqualTo(Status.Code.FAILED_PRECONDITION);

        // Enable twice (idempotent), info on the primary.
        assertThat(h.enable(vol, NONE).getCode()).isEqualTo(Status.Code.OK);
        assertThat(h.enable(vol, NONE).getCode()).isEqualTo(Status.Code.OK);
        GetVolumeReplicationInfoResponse info = (GetVolumeReplicationInfoResponse) h.info(vol, NONE);
        assertThat(Instant.ofEpochSecond(info.getLastSyncTime().getSeconds()))
                .isBetween(Instant.now().minusSeconds(60), Instant.now().plusSeconds(1));
        assertThat(info.getLastSyncBytes()).isEqualTo(1024);
        var took = info.getLastSyncDuration();
        assertThat(Duration.ofSeconds(took.getSeconds(), took.getNanos())).isEqualTo(Duration.ofMillis(250));

        // Resync needs a secondary; after demote it is ready on the second call, and stays ready.
        assertThat(code(h.resync(vol, NONE))).isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(h.demote(vol, NONE).getCode()).isEqualTo(Status.Code.OK);
        assertThat(h.demote(vol, NONE).getCode()).isEqualTo(Status.Code.OK);
        assertThat(code(h.info(vol, NONE))).isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(h.resync(vol, NONE)).isEqualTo(false);
        assertThat(h.resync(vol, NONE)).isEqualTo(true);
        assertThat(h.resync(vol, NONE)).isEqualTo(true);

        // Promote (idempotent), info again, disable (idempotent) back to the start.
        assertThat(h.promote(vol, NONE).getCode()).isEqualTo(Status.Code.OK);
        assertThat(h.promote(vol, NONE).getCode()).isEqualTo(Status.Code.OK);
        assertThat(h.info(vol, NONE)).isInstanceOf(GetVolumeReplicationInfoResponse.class);
        assertThat(h.disable(vol, NONE).getCode()).isEqualTo(Status.Code.OK);
        assertThat(h.disable(vol, NONE).getCode()).isEqualTo(Status.Code.OK);
        assertThat(h.promote(vol, NONE).getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);

        // Groups are served; snapshots are not (init's sourceKinds), answered by the runtime.
        assertThat(h.enable(group("grp-0"), NONE).getCode()).isEqualTo(Status.Code.OK);
        assertThat(h.disable(group("grp-0"), NONE).getCode()).isEqualTo(Status.Code.OK);
        ReplicationSource snapshot = ReplicationSource.newBuilder()
                .setVolumesnapshot(
                        ReplicationSource.VolumeSnapshotSource.newBuilder().setVolumeSnapshotId("snap-1"))
                .build();
        assertThat(h.enable(snapshot, NONE).getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);

        // The runtime's validation and normalization apply: no source, and the deprecated volume_id.
        assertThat(statusOf(() -> h.stub().enableVolumeReplication(EnableVolumeReplicationRequest.getDefaultInstance()))
                        .getCode())
                .isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(statusOf(() -> h.stub()
                                .enableVolumeReplication(EnableVolumeReplicationRequest.newBuilder()
                                        .setVolumeId("vol-2")
                                        .build()))
                        .getCode())
                .isEqualTo(Status.Code.OK);
        assertThat(h.disable(volume("vol-2"), NONE).getCode()).isEqualTo(Status.Code.OK);
    }

    @Test
    void healthAndDestinations() throws Exception {
        ExecHarness h = grpc.register(serve(Map.of("VOLREP_EXEC_DEGRADED", "vol-2")));
        assertThat(h.capabilities()).contains("GET_REPLICATION_DESTINATION_INFO");
        assertThat(code(h.destination(volume("vol-1"), NONE))).isEqualTo(Status.Code.FAILED_PRECONDITION);
        for (String id : new String[] {"vol-1", "vol-2"}) {
            assertThat(h.enable(volume(id), NONE).getCode()).isEqualTo(Status.Code.OK);
        }
        var healthy = (GetVolumeReplicationInfoResponse) h.info(volume("vol-1"), NONE);
        assertThat(healthy.getStatus().name()).isEqualTo("HEALTHY");
        var degraded = (GetVolumeReplicationInfoResponse) h.info(volume("vol-2"), NONE);
        assertThat(degraded.getStatus().name()).isEqualTo("DEGRADED");
        assertThat(degraded.getStatusMessage()).isEqualTo("volume vol-2: the peer site is not reachable");

        assertThat(h.demote(volume("vol-1"), NONE).getCode()).isEqualTo(Status.Code.OK); // either role
        var v = (GetReplicationDestinationInfoResponse) h.destination(volume("vol-1"), NONE);
        assertThat(v.getReplicationDestination().getVolume().getVolumeId()).isEqualTo("vol-1");
        assertThat(h.enable(ExecHarness.group("grp-0"), NONE).getCode()).isEqualTo(Status.Code.OK);
        var g = (GetReplicationDestinationInfoResponse) h.destination(ExecHarness.group("grp-0"), NONE);
        assertThat(g.getReplicationDestination().getVolumegroup().getVolumeGroupId())
                .isEqualTo("grp-0");
        assertThat(g.getReplicationDestination().getVolumegroup().getVolumeIdsMap())
                .isEmpty();
    }

    @Test
    void requiredSecretsComeFromAFileAndTravelOnStdin() throws Exception {
        Path secretsFile = Files.writeString(dir.resolve("required.json"), "{\"user\":\"admin\",\"key\":\"k-123\"}");
        ExecHarness h = grpc.register(serve(Map.of("VOLREP_EXEC_SECRETS_FILE", secretsFile.toString())));
        Map<String, String> good = Map.of("user", "admin", "key", "k-123");
        Function<Map<String, String>, Status.Code> enable =
                s -> h.enable(volume("vol-0"), s).getCode();
        assertThat(enable.apply(NONE)).isEqualTo(Status.Code.UNAUTHENTICATED);
        assertThat(enable.apply(Map.of("user", "admin", "key", "wrong"))).isEqualTo(Status.Code.UNAUTHENTICATED);
        // Checked before existence: an unauthenticated caller learns nothing about sources.
        assertThat(h.enable(volume("no-such-volume"), NONE).getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
        assertThat(enable.apply(good)).isEqualTo(Status.Code.OK);
        assertThat(h.disable(volume("vol-0"), good).getCode()).isEqualTo(Status.Code.OK);
    }

    @Test
    void stateSurvivesARestartOfTheServer() throws Exception {
        ExecHarness first = grpc.register(serve(NONE));
        assertThat(first.enable("vol-3").getCode()).isEqualTo(Status.Code.OK);
        first.close(); // the restart under test: the next server listens on the same socket
        ExecHarness restarted = grpc.register(serve(NONE));
        assertThat(restarted.demote(volume("vol-3"), NONE).getCode())
                .as("still enabled")
                .isEqualTo(Status.Code.OK);
        assertThat(restarted.disable(volume("vol-3"), NONE).getCode()).isEqualTo(Status.Code.OK);
    }

    private static Status.Code code(Object result) {
        assertThat(result).isInstanceOf(Status.class);
        return ((Status) result).getCode();
    }

    @Test
    void volumeGroupsAreCreatedReplicatedChangedAndDeletedThroughTheBridge() throws Exception {
        ExecHarness h = grpc.register(serve(NONE));
        assertThat(h.driver.servesVolumeGroups()).isTrue();
        assertThat(h.capabilities()).contains("MODIFY_VOLUME_GROUP").contains("LIMIT_VOLUME_TO_ONE_VOLUME_GROUP");
        var created = h.groups()
                .createVolumeGroup(CreateVolumeGroupRequest.newBuilder()
                        .setName("db")
                        .addVolumeIds("vol-0")
                        .addVolumeIds("vol-1")
                        .build())
                .getVolumeGroup();
        String id = created.getVolumeGroupId();
        assertThat(created.getVolumesList()).extracting(v -> v.getVolumeId()).containsExactly("vol-0", "vol-1");
        // Idempotent by name; a volume of another group cannot be grouped (LIMIT_VOLUME_TO_ONE_VOLUME_GROUP).
        assertThat(h.groups()
                        .createVolumeGroup(CreateVolumeGroupRequest.newBuilder()
                                .setName("db")
                                .addVolumeIds("vol-1")
                                .addVolumeIds("vol-0")
                                .build())
                        .getVolumeGroup()
                        .getVolumeGroupId())
                .isEqualTo(id);
        assertThat(statusOf(() -> h.groups()
                                .createVolumeGroup(CreateVolumeGroupRequest.newBuilder()
                                        .setName("other")
                                        .addVolumeIds("vol-0")
                                        .build()))
                        .getCode())
                .isEqualTo(Status.Code.FAILED_PRECONDITION);

        // The group is a replication source; its destination maps every member, also after a change.
        assertThat(h.enable(group(id), NONE).getCode()).isEqualTo(Status.Code.OK);
        h.groups()
                .modifyVolumeGroupMembership(ModifyVolumeGroupMembershipRequest.newBuilder()
                        .setVolumeGroupId(id)
                        .addVolumeIds("vol-1")
                        .addVolumeIds("vol-2")
                        .build());
        var destination = (GetReplicationDestinationInfoResponse) h.destination(group(id), NONE);
        assertThat(destination.getReplicationDestination().getVolumegroup().getVolumeIdsMap())
                .containsOnlyKeys("vol-1", "vol-2");
        assertThat(statusOf(() -> h.groups()
                                .deleteVolumeGroup(DeleteVolumeGroupRequest.newBuilder()
                                        .setVolumeGroupId(id)
                                        .build()))
                        .getCode())
                .isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(h.disable(group(id), NONE).getCode()).isEqualTo(Status.Code.OK);
        h.groups()
                .deleteVolumeGroup(DeleteVolumeGroupRequest.newBuilder()
                        .setVolumeGroupId(id)
                        .build());
        assertThat(statusOf(() -> h.groups()
                                .controllerGetVolumeGroup(ControllerGetVolumeGroupRequest.newBuilder()
                                        .setVolumeGroupId(id)
                                        .build()))
                        .getCode())
                .isEqualTo(Status.Code.NOT_FOUND);
        assertThat(h.groups()
                        .listVolumeGroups(ListVolumeGroupsRequest.getDefaultInstance())
                        .getEntriesCount())
                .isZero();
        // Its volumes are kept: still sources of their own.
        assertThat(h.enable(volume("vol-0"), NONE).getCode()).isEqualTo(Status.Code.OK);
    }

    /** A group too large for an argument (14,000 members, about 170 KiB of JSON) reaches the example through its file. */
    @Test
    void aGroupTooLargeForAnArgumentReachesTheExampleDriver() throws Exception {
        int members = 14_000;
        // init writes 14,000 state files and create reads them: about 13 s on a loaded 2-core machine.
        ExecHarness h =
                grpc.register(serve(Map.of("VOLREP_EXEC_VOLUMES", Integer.toString(members)), Duration.ofMinutes(5)));
        var request = CreateVolumeGroupRequest.newBuilder().setName("large");
        for (int i = 0; i < members; i++) {
            request.addVolumeIds("vol-" + i);
        }
        assertThat(request.build().getSerializedSize()).isGreaterThan(ExecDriver.MAX_ARGUMENT_BYTES);
        var created = ControllerGrpc.newBlockingStub(h.channel)
                .withDeadlineAfter(5, TimeUnit.MINUTES)
                .createVolumeGroup(request.build())
                .getVolumeGroup();
        assertThat(created.getVolumesCount()).isEqualTo(members);
    }
}
