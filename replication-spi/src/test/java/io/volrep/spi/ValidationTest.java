package io.volrep.spi;

import static io.volrep.spi.InProcessHarness.statusOf;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.volrep.api.ReplicationSource.Kind;
import io.volrep.api.Rpc;
import io.volrep.proto.replication.ReplicationSource;
import io.volrep.testsupport.GrpcCleanup;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every request check the runtime makes before the driver, for every replication RPC. */
class ValidationTest {
    private ScriptedDriver driver;
    private InProcessHarness harness;

    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    @BeforeEach
    void start() {
        driver = new ScriptedDriver();
        harness = grpc.register(new InProcessHarness(driver));
    }

    /** The replication.Controller RPCs: the runtime's request checks are theirs (not NodeHealer's, not Identity's). */
    static Stream<Rpc> replicationRpcs() {
        return Arrays.stream(Rpc.values()).filter(Rpc::isReplication);
    }

    /** Those whose request has {@code volume_id} and {@code replication_id} (not upstream's destination request). */
    static Stream<Rpc> rpcsWithVolumeId() {
        return replicationRpcs().filter(rpc -> rpc != Rpc.GET_REPLICATION_DESTINATION_INFO);
    }

    /** Those whose request has {@code parameters}. */
    static Stream<Rpc> rpcsWithParameters() {
        return rpcsWithVolumeId().filter(rpc -> rpc != Rpc.GET_VOLUME_REPLICATION_INFO);
    }

    private Status send(Rpc rpc, WireCalls.Fields fields) {
        return statusOf(() -> WireCalls.call(harness.stub, rpc, fields));
    }

    private void assertRejected(Rpc rpc, WireCalls.Fields fields, String... messageParts) {
        Status status = send(rpc, fields);
        assertThat(status.getCode()).as(rpc + " " + status).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(status.getDescription()).contains(messageParts);
        assertThat(driver.requests)
                .as("the driver must not see an invalid request")
                .isEmpty();
    }

    @ParameterizedTest
    @MethodSource("replicationRpcs")
    void noSourceAtAll(Rpc rpc) {
        assertRejected(rpc, new WireCalls.Fields(null, null, null, null, null), "replication_source", "volume_id");
    }

    @ParameterizedTest
    @MethodSource("replicationRpcs")
    void sourceWithoutKind(Rpc rpc) {
        assertRejected(
                rpc,
                WireCalls.Fields.volume("x").withSource(ReplicationSource.getDefaultInstance()),
                "replication_source");
    }

    @ParameterizedTest
    @MethodSource("replicationRpcs")
    void emptyIds(Rpc rpc) {
        assertRejected(rpc, WireCalls.Fields.volume(""), "replication_source.volume.volume_id");
        assertRejected(rpc, WireCalls.Fields.group(""), "replication_source.volumegroup.volume_group_id");
    }

    @ParameterizedTest
    @MethodSource("replicationRpcs")
    void idsOver128Bytes(Rpc rpc) {
        String tooLong = "v".repeat(129);
        assertRejected(rpc, WireCalls.Fields.volume(tooLong), "replication_source.volume.volume_id", "129 bytes");
        assertRejected(rpc, WireCalls.Fields.group(tooLong), "volume_group_id", "128");
        if (rpc != Rpc.GET_REPLICATION_DESTINATION_INFO) { // upstream's destination request has no volume_id
            assertRejected(rpc, new WireCalls.Fields(tooLong, null, null, null, null), "volume_id", "129 bytes");
        }
        // 64 two-byte characters are 128 bytes: fine; 65 are not.
        assertThat(send(rpc, WireCalls.Fields.volume("é".repeat(64))).getCode()).isEqualTo(Status.Code.OK);
        driver.requests.clear();
        assertRejected(rpc, WireCalls.Fields.volume("é".repeat(65)), "130 bytes");
    }

    @ParameterizedTest
    @MethodSource("replicationRpcs")
    void secretsOver4KiB(Rpc rpc) {
        assertRejected(
                rpc,
                WireCalls.Fields.volume("vol-1").withSecrets(Map.of("password", "p".repeat(4089))),
                "secrets",
                "4097 bytes");
    }

    @ParameterizedTest
    @MethodSource("rpcsWithParameters")
    void parametersOver4KiB(Rpc rpc) {
        assertRejected(
                rpc,
                WireCalls.Fields.volume("vol-1").withParameters(Map.of("k", "v".repeat(4096))),
                "parameters",
                "4097 bytes");
        assertThat(send(rpc, WireCalls.Fields.volume("vol-1").withParameters(Map.of("k", "v".repeat(4095))))
                        .getCode())
                .isEqualTo(Status.Code.OK);
    }

    @ParameterizedTest
    @MethodSource("rpcsWithVolumeId")
    void replicationIdOver128Bytes(Rpc rpc) {
        assertRejected(rpc, WireCalls.Fields.volume("vol-1").withReplicationId("r".repeat(129)), "replication_id");
    }

    @ParameterizedTest
    @MethodSource("rpcsWithVolumeId")
    void volumeIdDisagreeingWithReplicationSource(Rpc rpc) {
        assertRejected(rpc, WireCalls.Fields.volume("vol-1").withVolumeId("vol-2"), "volume_id", "replication_source");
        assertRejected(rpc, WireCalls.Fields.group("vol-1").withVolumeId("vol-1"), "volume_id", "replication_source");
    }

    @ParameterizedTest
    @MethodSource("replicationRpcs")
    void unsupportedSourceKind(Rpc rpc) {
        var snapshot = ReplicationSource.newBuilder()
                .setVolumesnapshot(
                        ReplicationSource.VolumeSnapshotSource.newBuilder().setVolumeSnapshotId("snap-1"))
                .build();
        assertRejected(
                rpc,
                WireCalls.Fields.volume("x").withSource(snapshot),
                "replication_source",
                "volumesnapshot",
                "not supported");
    }

    @ParameterizedTest
    @MethodSource("rpcsWithVolumeId")
    void onlyTheDeprecatedVolumeIdIsNormalizedIntoAVolumeSource(Rpc rpc) {
        assertThat(send(rpc, new WireCalls.Fields("legacy-vol", null, null, null, null))
                        .getCode())
                .isEqualTo(Status.Code.OK);
        assertThat(driver.requests).hasSize(1);
        assertThat(sourceOf(driver.requests.get(0))).isEqualTo(io.volrep.api.ReplicationSource.volume("legacy-vol"));
    }

    @ParameterizedTest
    @MethodSource("rpcsWithVolumeId")
    void bothEqualIsFine(Rpc rpc) {
        assertThat(send(rpc, WireCalls.Fields.volume("vol-1").withVolumeId("vol-1"))
                        .getCode())
                .isEqualTo(Status.Code.OK);
        assertThat(sourceOf(driver.requests.get(0))).isEqualTo(io.volrep.api.ReplicationSource.volume("vol-1"));
    }

    @Test
    void snapshotsReachADriverThatDeclaresThem() {
        ScriptedDriver snapshots = new ScriptedDriver();
        snapshots.kinds = EnumSet.allOf(Kind.class); // read once, when the server is built
        var snapshot = ReplicationSource.newBuilder()
                .setVolumesnapshot(
                        ReplicationSource.VolumeSnapshotSource.newBuilder().setVolumeSnapshotId("snap-1"))
                .build();
        InProcessHarness h = grpc.register(new InProcessHarness(snapshots));
        assertThat(statusOf(() -> WireCalls.call(
                                h.stub,
                                Rpc.ENABLE_VOLUME_REPLICATION,
                                WireCalls.Fields.volume("x").withSource(snapshot)))
                        .getCode())
                .isEqualTo(Status.Code.OK);
        assertThat(ValidationTest.sourceOf(snapshots.requests.get(0)))
                .isEqualTo(io.volrep.api.ReplicationSource.volumeSnapshot("snap-1"));
    }

    @Test
    void theDriverGetsTypedRequestsWithEveryField() {
        WireCalls.call(
                harness.stub,
                Rpc.ENABLE_VOLUME_REPLICATION,
                WireCalls.Fields.group("grp-1")
                        .withParameters(Map.of("mode", "snapshot"))
                        .withSecrets(Map.of("user", "admin"))
                        .withReplicationId("rep-1"));
        WireCalls.call(harness.stub, Rpc.PROMOTE_VOLUME, WireCalls.Fields.volume("vol-1"));
        EnableRequest enable = (EnableRequest) driver.requests.get(0);
        assertThat(enable.source()).isEqualTo(io.volrep.api.ReplicationSource.volumeGroup("grp-1"));
        assertThat(enable.parameters()).containsExactly(Map.entry("mode", "snapshot"));
        assertThat(enable.secrets().get("user")).contains("admin");
        assertThat(enable.replicationId()).contains("rep-1");
        assertThat(enable.toString()).doesNotContain("admin");
        PromoteRequest promote = (PromoteRequest) driver.requests.get(1);
        assertThat(promote.force()).isTrue();
        assertThat(promote.replicationId()).isEqualTo(Optional.empty());
    }

    static io.volrep.api.ReplicationSource sourceOf(Object request) {
        if (request instanceof EnableRequest r) {
            return r.source();
        } else if (request instanceof DisableRequest r) {
            return r.source();
        } else if (request instanceof PromoteRequest r) {
            return r.source();
        } else if (request instanceof DemoteRequest r) {
            return r.source();
        } else if (request instanceof ResyncRequest r) {
            return r.source();
        } else if (request instanceof DestinationRequest r) {
            return r.source();
        }
        return ((InfoRequest) request).source();
    }
}
