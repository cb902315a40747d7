package io.volrep.testkit.fake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.proto.replication.ControllerGrpc;
import io.volrep.proto.replication.EnableVolumeReplicationRequest;
import io.volrep.proto.replication.GetVolumeReplicationInfoRequest;
import io.volrep.proto.replication.PromoteVolumeRequest;
import io.volrep.proto.replication.ReplicationSource;
import io.volrep.testkit.Endpoints;
import io.volrep.testsupport.GrpcCleanup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

class FakePluginTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    @RegisterExtension
    static final FakePluginExtension FAKE =
            new FakePluginExtension(() -> FakePlugin.builder().volumes(2).requiredSecret("user", "admin"));

    private static final Map<String, String> SECRETS = Map.of("user", "admin");

    private static ReplicationSource vol(String id) {
        return ReplicationSource.newBuilder()
                .setVolume(ReplicationSource.VolumeSource.newBuilder().setVolumeId(id))
                .build();
    }

    private static EnableVolumeReplicationRequest enable(String id) {
        return EnableVolumeReplicationRequest.newBuilder()
                .setReplicationSource(vol(id))
                .putAllSecrets(SECRETS)
                .build();
    }

    private static PromoteVolumeRequest promote(String id) {
        return PromoteVolumeRequest.newBuilder()
                .setReplicationSource(vol(id))
                .putAllSecrets(SECRETS)
                .build();
    }

    @Test
    void failNextFailsExactlyNCallsThenTheDriverAnswers(FakePlugin fake) {
        fake.failNext(Rpc.PROMOTE_VOLUME, 2, StatusCode.ABORTED);
        var stub = ControllerGrpc.newBlockingStub(
                grpc.register(Endpoints.open(fake.address())).channel());
        for (int i = 0; i < 2; i++) {
            assertThatThrownBy(() -> stub.promoteVolume(promote("vol-0")))
                    .isInstanceOfSatisfying(
                            StatusRuntimeException.class,
                            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.ABORTED));
        }
        // Third call reaches the reference driver: replication is not enabled.
        assertThatThrownBy(() -> stub.promoteVolume(promote("vol-0")))
                .isInstanceOfSatisfying(
                        StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION));
        assertThat(fake.calls(Rpc.PROMOTE_VOLUME))
                .extracting(RecordedCall::code)
                .containsExactly(StatusCode.ABORTED, StatusCode.ABORTED, StatusCode.FAILED_PRECONDITION);
        assertThat(fake.calls(Rpc.PROMOTE_VOLUME))
                .extracting(RecordedCall::injected)
                .containsExactly(true, true, false);
        assertThat(fake.faults().pendingFailures(Rpc.PROMOTE_VOLUME)).isZero();
    }

    @Test
    void recordsRequestsWithSecretsMasked(FakePlugin fake) {
        ControllerGrpc.newBlockingStub(
                        grpc.register(Endpoints.open(fake.address())).channel())
                .enableVolumeReplication(enable("vol-1"));
        RecordedCall call = fake.calls().get(0);
        assertThat(call.rpc()).isEqualTo(Rpc.ENABLE_VOLUME_REPLICATION);
        assertThat(call.code()).isEqualTo(StatusCode.OK);
        assertThat(call.request()).contains("vol-1").contains("***").doesNotContain("admin");
        assertThat(call.finished()).isAfterOrEqualTo(call.started());
    }

    @Test
    void pushbackTrailerAndLatency(FakePlugin fake) {
        fake.failNext(Rpc.ENABLE_VOLUME_REPLICATION, 1, StatusCode.UNAVAILABLE, Duration.ofMillis(250));
        fake.latency(Rpc.ENABLE_VOLUME_REPLICATION, Duration.ofMillis(80));
        var stub = ControllerGrpc.newBlockingStub(
                grpc.register(Endpoints.open(fake.address())).channel());
        StatusRuntimeException e =
                (StatusRuntimeException) Assertions.catchThrowable(() -> stub.enableVolumeReplication(enable("vol-0")));
        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(e.getTrailers().get(Metadata.Key.of("grpc-retry-pushback-ms", Metadata.ASCII_STRING_MARSHALLER)))
                .isEqualTo("250");
        stub.enableVolumeReplication(enable("vol-0"));
        assertThat(fake.calls())
                .hasSize(2)
                .allSatisfy(c -> assertThat(c.duration()).isGreaterThanOrEqualTo(Duration.ofMillis(75)));
        assertThat(fake.driver()
                        .state(io.volrep.api.ReplicationSource.volume("vol-0"))
                        .enabled())
                .isTrue();
    }

    @Test
    void infoViolationsReachTheWire(FakePlugin fake) {
        var stub = ControllerGrpc.newBlockingStub(
                grpc.register(Endpoints.open(fake.address())).channel());
        stub.enableVolumeReplication(enable("vol-0"));
        stub.promoteVolume(promote("vol-0"));
        var info = GetVolumeReplicationInfoRequest.newBuilder()
                .setReplicationSource(vol("vol-0"))
                .putAllSecrets(SECRETS)
                .build();
        assertThat(stub.getVolumeReplicationInfo(info).hasLastSyncTime()).isTrue();
        fake.violateInfo(InfoViolation.MISSING_LAST_SYNC_TIME);
        assertThat(stub.getVolumeReplicationInfo(info).hasLastSyncTime()).isFalse();
        fake.violateInfo(InfoViolation.NEGATIVE_LAST_SYNC_BYTES);
        assertThat(stub.getVolumeReplicationInfo(info).getLastSyncBytes()).isEqualTo(-1);
    }

    @Test
    void servesOnAUnixSocket(@TempDir Path dir) {
        String address = "unix://" + dir.resolve("fake.sock");
        FakePlugin fake = grpc.register(
                FakePlugin.builder().volume("pvc-1").listen(address).start());
        ControllerGrpc.newBlockingStub(
                        grpc.register(Endpoints.open(fake.address())).channel())
                .enableVolumeReplication(EnableVolumeReplicationRequest.newBuilder()
                        .setReplicationSource(vol("pvc-1"))
                        .build());
        assertThat(fake.calls()).singleElement().extracting(RecordedCall::code).isEqualTo(StatusCode.OK);
    }
}
