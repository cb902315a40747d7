package io.volrep.spi;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.ClientCalls;
import io.volrep.api.PreconditionFailedException;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.SpecDialect;
import io.volrep.proto.replication.v0_1_3.ControllerGrpc.ControllerBlockingStub;
import io.volrep.proto.replication.v0_1_3.DemoteVolumeRequest;
import io.volrep.proto.replication.v0_1_3.DisableVolumeReplicationRequest;
import io.volrep.proto.replication.v0_1_3.GetVolumeReplicationInfoResponse;
import io.volrep.proto.replication.v0_1_3.ReplicationSource.VolumeGroupSource;
import io.volrep.proto.replication.v0_1_3.ReplicationSource.VolumeSource;
import io.volrep.testsupport.GrpcCleanup;
import io.volrep.testsupport.RawBytes;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Legacy revisions served on their own generated stubs; the driver sees the same typed requests. */
@SuppressWarnings("deprecation") // sends or reads the deprecated volume_id (field 1) on purpose
class DialectServingTest {
    private final ScriptedDriver driver = new ScriptedDriver();

    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    private ManagedChannel channel;

    private ManagedChannel serve(SpecDialect dialect) {
        String name = InProcessServerBuilder.generateName();
        grpc.register(ReplicationServer.builder()
                .driver(driver)
                .dialect(dialect)
                .listen("inprocess:" + name)
                .build()
                .start());
        channel = grpc.register(InProcessChannelBuilder.forName(name).build());
        return channel;
    }

    private ControllerBlockingStub v013() {
        return io.volrep.proto.replication.v0_1_3.ControllerGrpc.newBlockingStub(serve(SpecDialect.V0_1_3))
                .withDeadlineAfter(10, TimeUnit.SECONDS);
    }

    private static io.volrep.proto.replication.v0_1_3.ReplicationSource group013(String id) {
        return io.volrep.proto.replication.v0_1_3.ReplicationSource.newBuilder()
                .setVolumegroup(VolumeGroupSource.newBuilder().setVolumeGroupId(id))
                .build();
    }

    private static io.volrep.proto.replication.v0_1_3.ReplicationSource volume013(String id) {
        return io.volrep.proto.replication.v0_1_3.ReplicationSource.newBuilder()
                .setVolume(VolumeSource.newBuilder().setVolumeId(id))
                .build();
    }

    @Test
    void v013GroupSourceInItsOwnNumberingReachesTheDriverAsAGroup() {
        var stub = v013();
        stub.enableVolumeReplication(io.volrep.proto.replication.v0_1_3.EnableVolumeReplicationRequest.newBuilder()
                .setVolumeId("vg-7")
                .setReplicationSource(group013("vg-7"))
                .putParameters("mode", "snapshot")
                .putSecrets("user", "admin")
                .setReplicationId("rep-1")
                .build());

        EnableRequest r = (EnableRequest) driver.requests.get(0);
        assertThat(r.source()).isEqualTo(ReplicationSource.volumeGroup("vg-7"));
        assertThat(r.parameters()).containsEntry("mode", "snapshot");
        assertThat(r.secrets().get("user")).contains("admin");
        assertThat(r.replicationId()).contains("rep-1");
    }

    @Test
    void v013GroupSourceOnTheWireIsFieldOneVolumeIsFieldTwo() throws Exception {
        // The bytes a v0.1.3 plugin receives: volumegroup = 1 (tag 0x0a), volume = 2 (tag 0x12).
        assertThat(group013("g").toByteArray()[0]).isEqualTo((byte) 0x0a);
        assertThat(volume013("v").toByteArray()[0]).isEqualTo((byte) 0x12);
        var stub = v013();
        stub.promoteVolume(io.volrep.proto.replication.v0_1_3.PromoteVolumeRequest.newBuilder()
                .setVolumeId("v")
                .setReplicationSource(volume013("v"))
                .setForce(true)
                .build());
        PromoteRequest r = (PromoteRequest) driver.requests.get(0);
        assertThat(r.source()).isEqualTo(ReplicationSource.volume("v"));
        assertThat(r.force()).isTrue();
    }

    @Test
    void v013VolumeIdIsRequiredEvenWithAReplicationSource() {
        var stub = v013();
        Status status = InProcessHarness.statusOf(() -> stub.demoteVolume(DemoteVolumeRequest.newBuilder()
                .setReplicationSource(volume013("v"))
                .build()));
        assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(status.getDescription()).startsWith("volume_id: required field is missing");
        assertThat(driver.requests).isEmpty();
    }

    @Test
    void v013VolumeIdAloneIsAVolumeSourceAndAVolumeSourceMustAgreeWithIt() {
        var stub = v013();
        stub.resyncVolume(io.volrep.proto.replication.v0_1_3.ResyncVolumeRequest.newBuilder()
                .setVolumeId("pvc-1")
                .build());
        assertThat(((ResyncRequest) driver.requests.get(0)).source()).isEqualTo(ReplicationSource.volume("pvc-1"));

        Status disagree = InProcessHarness.statusOf(
                () -> stub.disableVolumeReplication(DisableVolumeReplicationRequest.newBuilder()
                        .setVolumeId("a")
                        .setReplicationSource(volume013("b"))
                        .build()));
        assertThat(disagree.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(disagree.getDescription()).startsWith("volume_id");
        assertThat(driver.requests).hasSize(1);
    }

    @Test
    void v013InfoAnswersOnlyLastSyncTime() {
        Instant time = Instant.parse("2026-03-01T10:00:00Z");
        driver.info = r -> ReplicationInfo.of(time)
                .withLastSyncDuration(Duration.ofSeconds(3))
                .withLastSyncBytes(99);
        GetVolumeReplicationInfoResponse info = v013().getVolumeReplicationInfo(
                        io.volrep.proto.replication.v0_1_3.GetVolumeReplicationInfoRequest.newBuilder()
                                .setVolumeId("v")
                                .build());
        assertThat(info.getLastSyncTime().getSeconds()).isEqualTo(time.getEpochSecond());
        assertThat(info.getUnknownFields().asMap()).isEmpty();
        assertThat(((InfoRequest) driver.requests.get(0)).source()).isEqualTo(ReplicationSource.volume("v"));
    }

    @Test
    void v013DriverExceptionsKeepTheirCodes() {
        driver.onCall = () -> {
            throw new PreconditionFailedException("replication is not enabled");
        };
        var stub = v013();
        Status status = InProcessHarness.statusOf(
                () -> stub.promoteVolume(io.volrep.proto.replication.v0_1_3.PromoteVolumeRequest.newBuilder()
                        .setVolumeId("v")
                        .build()));
        assertThat(status.getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(status.getDescription()).isEqualTo("replication is not enabled");
    }

    @Test
    void v010ServesFiveRpcsByVolumeIdAndInfoIsUnimplemented() {
        var stub = io.volrep.proto.replication.v0_1_0.ControllerGrpc.newBlockingStub(serve(SpecDialect.V0_1_0))
                .withDeadlineAfter(10, TimeUnit.SECONDS);
        stub.enableVolumeReplication(io.volrep.proto.replication.v0_1_0.EnableVolumeReplicationRequest.newBuilder()
                .setVolumeId("pvc-9")
                .putParameters("k", "v")
                .build());
        var ready = stub.resyncVolume(io.volrep.proto.replication.v0_1_0.ResyncVolumeRequest.newBuilder()
                .setVolumeId("pvc-9")
                .build());
        assertThat(ready.getReady()).isTrue();
        assertThat(((EnableRequest) driver.requests.get(0)).source()).isEqualTo(ReplicationSource.volume("pvc-9"));

        Status missing = InProcessHarness.statusOf(
                () -> stub.promoteVolume(io.volrep.proto.replication.v0_1_0.PromoteVolumeRequest.getDefaultInstance()));
        assertThat(missing.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(missing.getDescription()).startsWith("volume_id");

        // The current revision's info method on the same service name: v0.1.0 has no such method.
        var current = io.volrep.proto.replication.ControllerGrpc.newBlockingStub(channel);
        Status info = InProcessHarness.statusOf(() -> current.getVolumeReplicationInfo(
                io.volrep.proto.replication.GetVolumeReplicationInfoRequest.newBuilder()
                        .setVolumeId("pvc-9")
                        .build()));
        assertThat(info.getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
        assertThat(driver.requests).hasSize(2);
    }

    @Test
    void malformedLegacyBytesAnswerInvalidArgument() {
        var v013Channel = serve(SpecDialect.V0_1_3);
        // volume_id announces 5 bytes, 1 follows: not a message in any revision.
        MethodDescriptor<byte[], byte[]> raw = RawBytes.unary("replication.Controller/EnableVolumeReplication");
        Status status = InProcessHarness.statusOf(() ->
                ClientCalls.blockingUnaryCall(v013Channel, raw, CallOptions.DEFAULT, new byte[] {0x0a, 0x05, 'a'}));
        assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(status.getDescription()).startsWith("malformed request");
    }
}
