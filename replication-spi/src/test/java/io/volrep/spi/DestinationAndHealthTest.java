package io.volrep.spi;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.volrep.api.PreconditionFailedException;
import io.volrep.api.ReplicationDestination;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.SpecDialect;
import io.volrep.api.UnavailableException;
import io.volrep.proto.replication.ControllerGrpc;
import io.volrep.proto.replication.GetReplicationDestinationInfoRequest;
import io.volrep.proto.replication.GetReplicationDestinationInfoResponse;
import io.volrep.proto.replication.GetVolumeReplicationInfoRequest;
import io.volrep.proto.replication.GetVolumeReplicationInfoResponse;
import io.volrep.testsupport.GrpcCleanup;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Upstream 2026 on the SPI: GetReplicationDestinationInfo validated and checked, the health status served. */
class DestinationAndHealthTest {
    private final ScriptedDriver driver = new ScriptedDriver();

    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    private final InProcessHarness harness = grpc.register(new InProcessHarness(driver));

    private static GetReplicationDestinationInfoRequest request(WireCalls.Fields f) {
        var b = GetReplicationDestinationInfoRequest.newBuilder().putAllSecrets(Map.of("user", "admin"));
        if (f.source() != null) {
            b.setReplicationSource(f.source());
        }
        return b.build();
    }

    private GetReplicationDestinationInfoResponse destination(WireCalls.Fields f) {
        return harness.stub.getReplicationDestinationInfo(request(f));
    }

    private Status status(WireCalls.Fields f) {
        return InProcessHarness.statusOf(() -> destination(f));
    }

    @Test
    void answersTheDriversDestinationOfTheSourcesKind() {
        assertThat(destination(WireCalls.Fields.volume("vol-1"))
                        .getReplicationDestination()
                        .getVolume()
                        .getVolumeId())
                .isEqualTo("dst-vol-1");
        DestinationRequest seen = (DestinationRequest) driver.requests.get(0);
        assertThat(seen.source()).isEqualTo(ReplicationSource.volume("vol-1"));
        assertThat(seen.secrets().get("user")).contains("admin");
        assertThat(seen.toString()).doesNotContain("admin");

        driver.destination = r -> ReplicationDestination.volumeGroup("dst-grp", Map.of("a", "a2", "b", "b2"));
        var group = destination(WireCalls.Fields.group("grp-1"))
                .getReplicationDestination()
                .getVolumegroup();
        assertThat(group.getVolumeGroupId()).isEqualTo("dst-grp");
        assertThat(group.getVolumeIdsMap()).containsExactlyInAnyOrderEntriesOf(Map.of("a", "a2", "b", "b2"));
    }

    @Test
    void validatedLikeEveryRpcBeforeTheDriverSeesIt() {
        Status missing = status(new WireCalls.Fields(null, null, null, null, null));
        assertThat(missing.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(missing.getDescription()).startsWith("replication_source: required field is missing");
        Status tooLong = status(WireCalls.Fields.volume("v".repeat(129)));
        assertThat(tooLong.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(tooLong.getDescription()).contains("replication_source.volume.volume_id");
        Status emptyGroup = status(WireCalls.Fields.group(""));
        assertThat(emptyGroup.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        var oversizedSecrets = GetReplicationDestinationInfoRequest.newBuilder()
                .setReplicationSource(WireCalls.Fields.volume("v").source())
                .putSecrets("k", "x".repeat(5000))
                .build();
        Status secrets = InProcessHarness.statusOf(() -> harness.stub.getReplicationDestinationInfo(oversizedSecrets));
        assertThat(secrets.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(secrets.getDescription()).startsWith("secrets");
        assertThat(driver.requests).isEmpty();
    }

    @Test
    void aWrongAnswerIsTheDriversBug() {
        driver.destination = r -> ReplicationDestination.volumeGroup("g", Map.of());
        Status kind = status(WireCalls.Fields.volume("vol-1"));
        assertThat(kind.getCode()).isEqualTo(Status.Code.UNKNOWN);
        assertThat(kind.getDescription())
                .isEqualTo(
                        "driver returned an invalid response: replication_destination: a"
                                + " volumegroup destination answered for a volume source: the destination's kind must be the source's");

        driver.destination = r -> ReplicationDestination.volume("");
        assertThat(status(WireCalls.Fields.volume("vol-1")).getDescription())
                .endsWith("replication_destination.volume.volume_id: REQUIRED but empty");
        driver.destination = r -> ReplicationDestination.volumeGroup("g", Map.of("a", ""));
        assertThat(status(WireCalls.Fields.group("grp-1")).getDescription())
                .contains("volume_ids: has an empty destination volume id for \"a\"");
        driver.destination = r -> null;
        assertThat(status(WireCalls.Fields.volume("vol-1")).getDescription())
                .endsWith("replication_destination: REQUIRED but not set");
        // CSI's limits bound what a driver answers as they bound what it is asked (128 bytes per id).
        driver.destination = r -> ReplicationDestination.volume("d".repeat(129));
        assertThat(status(WireCalls.Fields.volume("vol-1")).getDescription())
                .isEqualTo(
                        "driver returned an invalid"
                                + " response: replication_destination.volume.volume_id: 129 bytes exceeds the CSI limit of 128 bytes");
    }

    @Test
    void driverCodesPassThroughAndTheDefaultIsUnimplemented() {
        driver.destination = r -> {
            throw new UnavailableException("destination not known yet");
        };
        Status unavailable = status(WireCalls.Fields.volume("vol-1"));
        assertThat(unavailable.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(unavailable.getDescription()).isEqualTo("destination not known yet");
        driver.destination = r -> {
            throw new PreconditionFailedException("replication is not enabled");
        };
        assertThat(status(WireCalls.Fields.volume("vol-1")).getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);

        InProcessHarness plain = grpc.register(new InProcessHarness(new ReplicationDriver() {
            @Override
            public void enable(EnableRequest request) {}

            @Override
            public void disable(DisableRequest request) {}
        }));
        Status status = InProcessHarness.statusOf(
                () -> plain.stub.getReplicationDestinationInfo(request(WireCalls.Fields.volume("vol-1"))));
        assertThat(status.getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
        assertThat(status.getDescription())
                .isEqualTo("GetReplicationDestinationInfo is not implemented by this plugin");
    }

    @Test
    void legacyRevisionsDoNotServeIt() {
        String name = InProcessServerBuilder.generateName();
        grpc.register(ReplicationServer.builder()
                .driver(driver)
                .dialect(SpecDialect.V0_1_3)
                .listen("inprocess:" + name)
                .build()
                .start());
        var channel = grpc.register(InProcessChannelBuilder.forName(name).build());
        Status status = InProcessHarness.statusOf(() -> ControllerGrpc.newBlockingStub(channel)
                .getReplicationDestinationInfo(request(WireCalls.Fields.volume("v"))));
        assertThat(status.getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
        assertThat(driver.requests).isEmpty();
    }

    @Test
    void infoServesTheDriversHealthAndUnknownWhenItSaysNothing() {
        Instant t = Instant.parse("2026-07-14T10:00:00Z");
        var request = GetVolumeReplicationInfoRequest.newBuilder()
                .setReplicationSource(WireCalls.Fields.volume("vol-1").source())
                .build();
        GetVolumeReplicationInfoResponse silent = harness.stub.getVolumeReplicationInfo(request);
        assertThat(silent.getStatus()).isEqualTo(GetVolumeReplicationInfoResponse.Status.UNKNOWN);
        assertThat(silent.getStatusMessage()).isEmpty();

        driver.info = r -> ReplicationInfo.of(t).withStatus(ReplicationInfo.Status.DEGRADED, "peer lagging 5m");
        GetVolumeReplicationInfoResponse degraded = harness.stub.getVolumeReplicationInfo(request);
        assertThat(degraded.getStatus()).isEqualTo(GetVolumeReplicationInfoResponse.Status.DEGRADED);
        assertThat(degraded.getStatusMessage()).isEqualTo("peer lagging 5m");
    }
}
