package io.volrep.testkit.fake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.proto.replication.ControllerGrpc;
import io.volrep.proto.replication.DemoteVolumeRequest;
import io.volrep.proto.replication.EnableVolumeReplicationRequest;
import io.volrep.proto.replication.GetVolumeReplicationInfoRequest;
import io.volrep.proto.replication.PromoteVolumeRequest;
import io.volrep.proto.replication.ReplicationSource;
import io.volrep.testkit.Endpoints;
import io.volrep.testkit.reference.ReferenceDriver.Role;
import io.volrep.testsupport.GrpcCleanup;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The fake's refusal windows: a plugin that refuses unforced calls of one source for a while after a state change,
 * as real storage does (a promote right after the peer's demote, an info right after a promote), over real gRPC.
 */
class RefusalWindowTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    @RegisterExtension
    static final FakePluginExtension FAKE =
            new FakePluginExtension(() -> FakePlugin.builder().volumes(2).requiredSecret("user", "admin"));

    private static final Map<String, String> SECRETS = Map.of("user", "admin");
    private static final io.volrep.api.ReplicationSource VOL0 = io.volrep.api.ReplicationSource.volume("vol-0");

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

    private static DemoteVolumeRequest demote(String id) {
        return DemoteVolumeRequest.newBuilder()
                .setReplicationSource(vol(id))
                .putAllSecrets(SECRETS)
                .build();
    }

    private static PromoteVolumeRequest promote(String id, boolean force) {
        return PromoteVolumeRequest.newBuilder()
                .setReplicationSource(vol(id))
                .putAllSecrets(SECRETS)
                .setForce(force)
                .build();
    }

    private static GetVolumeReplicationInfoRequest info(String id) {
        return GetVolumeReplicationInfoRequest.newBuilder()
                .setReplicationSource(vol(id))
                .putAllSecrets(SECRETS)
                .build();
    }

    private static Status.Code codeOf(Runnable call) {
        StatusRuntimeException e = catchThrowableOfType(StatusRuntimeException.class, call::run);
        return e == null ? Status.Code.OK : e.getStatus().getCode();
    }

    @Test
    void theFirstNUnforcedPromotesOfTheDemotedSourceAreRefusedAfterEachDemote(FakePlugin fake) {
        fake.refuseAfter(
                Rpc.DEMOTE_VOLUME, Rpc.PROMOTE_VOLUME, StatusCode.FAILED_PRECONDITION, FaultInjector.Window.calls(2));
        Endpoints.OpenChannel open = grpc.register(Endpoints.open(fake.address()));
        var stub = ControllerGrpc.newBlockingStub(open.channel());
        stub.enableVolumeReplication(enable("vol-0"));
        stub.enableVolumeReplication(enable("vol-1"));
        stub.demoteVolume(demote("vol-0"));
        // Another source is not in the window.
        assertThat(codeOf(() -> stub.promoteVolume(promote("vol-1", false)))).isEqualTo(Status.Code.OK);
        assertThat(List.of(
                        codeOf(() -> stub.promoteVolume(promote("vol-0", false))),
                        codeOf(() -> stub.promoteVolume(promote("vol-0", false))),
                        codeOf(() -> stub.promoteVolume(promote("vol-0", false)))))
                .containsExactly(Status.Code.FAILED_PRECONDITION, Status.Code.FAILED_PRECONDITION, Status.Code.OK);

        // The next demote opens the window again; force passes it (the storage's guard is what force overrides).
        stub.demoteVolume(demote("vol-0"));
        assertThat(codeOf(() -> stub.promoteVolume(promote("vol-0", true)))).isEqualTo(Status.Code.OK);
        List<RecordedCall> promotes = fake.calls(Rpc.PROMOTE_VOLUME);
        assertThat(promotes).extracting(RecordedCall::injected).containsExactly(false, true, true, false, false);
        assertThat(promotes.get(1).message())
                .contains("refused by FakePlugin")
                .contains("volume vol-0")
                .contains("9 FAILED_PRECONDITION");
        assertThat(fake.driver().state(VOL0).role()).isEqualTo(Role.PRIMARY);
    }

    @Test
    void aWindowLastingADurationRefusesUntilItEnds(FakePlugin fake) throws InterruptedException {
        Endpoints.OpenChannel open = grpc.register(Endpoints.open(fake.address()));
        var stub = ControllerGrpc.newBlockingStub(open.channel());
        stub.enableVolumeReplication(enable("vol-0"));
        fake.refuse(
                Rpc.GET_VOLUME_REPLICATION_INFO,
                VOL0,
                StatusCode.NOT_FOUND,
                FaultInjector.Window.lasting(Duration.ofMillis(400)));
        long opened = System.nanoTime();
        assertThat(codeOf(() -> stub.getVolumeReplicationInfo(info("vol-0")))).isEqualTo(Status.Code.NOT_FOUND);
        assertThat(codeOf(() -> stub.getVolumeReplicationInfo(info("vol-0")))).isEqualTo(Status.Code.NOT_FOUND);
        assertThat(codeOf(() -> stub.getVolumeReplicationInfo(info("vol-1"))))
                .as("vol-1 is not in the window: the driver answers (not enabled)")
                .isEqualTo(Status.Code.FAILED_PRECONDITION);
        Thread.sleep(Math.max(0, 450 - (System.nanoTime() - opened) / 1_000_000));
        assertThat(codeOf(() -> stub.getVolumeReplicationInfo(info("vol-0")))).isEqualTo(Status.Code.OK);
        assertThat(fake.calls(Rpc.GET_VOLUME_REPLICATION_INFO))
                .extracting(RecordedCall::injected)
                .containsExactly(true, true, false, false);
    }

    @Test
    void aPeerSitesDemoteOpensTheWindowHereAndResetClosesIt(FakePlugin fake) {
        FakePlugin siteB = grpc.register(
                FakePlugin.builder().volumes(1).requiredSecret("user", "admin").start());
        Endpoints.OpenChannel a = grpc.register(Endpoints.open(fake.address()));
        Endpoints.OpenChannel b = grpc.register(Endpoints.open(siteB.address()));
        var stubA = ControllerGrpc.newBlockingStub(a.channel());
        var stubB = ControllerGrpc.newBlockingStub(b.channel());
        stubA.enableVolumeReplication(enable("vol-0"));
        stubB.enableVolumeReplication(enable("vol-0"));
        stubB.demoteVolume(demote("vol-0"));
        fake.faults()
                .onAnswered(
                        Rpc.DEMOTE_VOLUME,
                        source -> siteB.refuse(
                                Rpc.PROMOTE_VOLUME, source, StatusCode.ABORTED, FaultInjector.Window.calls(1)));

        assertThat(codeOf(() -> stubB.promoteVolume(promote("vol-0", false))))
                .as("before A's demote")
                .isEqualTo(Status.Code.OK);
        stubB.demoteVolume(demote("vol-0"));
        stubA.demoteVolume(demote("vol-0")); // the window opens on B before A's answer is sent
        assertThat(codeOf(() -> stubB.promoteVolume(promote("vol-0", false)))).isEqualTo(Status.Code.ABORTED);
        assertThat(codeOf(() -> stubB.promoteVolume(promote("vol-0", false)))).isEqualTo(Status.Code.OK);

        fake.reset(); // forgets the hook with the other faults
        stubA.enableVolumeReplication(enable("vol-0"));
        stubA.demoteVolume(demote("vol-0"));
        stubB.demoteVolume(demote("vol-0"));
        assertThat(codeOf(() -> stubB.promoteVolume(promote("vol-0", false)))).isEqualTo(Status.Code.OK);
        assertThat(siteB.faults().pendingRefusals(Rpc.PROMOTE_VOLUME)).isZero();
    }
}
