package io.volrep.spi.exec;

import static io.volrep.spi.exec.ExecHarness.group;
import static io.volrep.spi.exec.ExecHarness.script;
import static io.volrep.spi.exec.ExecHarness.volume;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.volrep.api.Rpc;
import io.volrep.proto.replication.GetReplicationDestinationInfoResponse;
import io.volrep.proto.replication.GetVolumeReplicationInfoResponse;
import io.volrep.testsupport.GrpcCleanup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The exec protocol's upstream 2026 parts, over gRPC through the real runtime: {@code replicationStatus} in
 * {@code info}, the {@code destination} operation, and Identity advertising it exactly when {@code init} opts in.
 */
class ExecDestinationTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    private static final String INIT_WITH_DESTINATION = "if [ \"$1\" = init ]; then echo '{\"status\":\"Success\","
            + "\"capabilities\":{\"destination\":true}}'; exit 0; fi\n";

    @TempDir
    Path dir;

    private ExecHarness serve(String init, String body) throws Exception {
        return ExecHarness.inProcess(ExecDriver.builder()
                .executable(script(dir, "driver", init + body))
                .build());
    }

    private static void assertStatus(Object answer, Status.Code code, String... messageParts) {
        assertThat(answer).isInstanceOfSatisfying(Status.class, status -> {
            assertThat(status.getCode()).as(status.toString()).isEqualTo(code);
            for (String part : messageParts) {
                assertThat(status.getDescription()).contains(part);
            }
        });
    }

    @Test
    void infoCarriesTheDriversHealthAndItsMessageMaskedAndEscaped() throws Exception {
        String secret = "Sup3r-S3cret-Passw0rd";
        ExecHarness h = grpc.register(serve(
                "",
                "echo '{\"status\":\"Success\",\"lastSyncTime\":\"2026-01-02T03:04:05Z\","
                        + "\"replicationStatus\":\"DEGRADED\",\"replicationStatusMessage\":\"peer down; login " + secret
                        + " refused\\u001b[2J\"}'"));
        var info = (GetVolumeReplicationInfoResponse) h.info(volume("vol-1"), Map.of("password", secret));
        assertThat(info.getStatus()).isEqualTo(GetVolumeReplicationInfoResponse.Status.DEGRADED);
        assertThat(info.getStatusMessage()).isEqualTo("peer down; login *** refused\\u001b[2J");
    }

    @Test
    void aDriverThatSaysNothingAboutHealthReportsUnknownNeverHealthy() throws Exception {
        ExecHarness h =
                grpc.register(serve("", "echo '{\"status\":\"Success\",\"lastSyncTime\":\"2026-01-02T03:04:05Z\"}'"));
        var info = (GetVolumeReplicationInfoResponse) h.info(volume("vol-1"), Map.of());
        assertThat(info.getStatus()).isEqualTo(GetVolumeReplicationInfoResponse.Status.UNKNOWN);
        assertThat(info.getStatusMessage()).isEmpty();
    }

    @Test
    void anUnknownHealthIsTheDriversBug() throws Exception {
        ExecHarness h = grpc.register(serve(
                "",
                "echo '{\"status\":\"Success\",\"lastSyncTime\":\"2026-01-02T03:04:05Z\","
                        + "\"replicationStatus\":\"MOSTLY_FINE\"}'"));
        assertStatus(
                h.info(volume("vol-1"), Map.of()),
                Status.Code.UNKNOWN,
                "(info)",
                "invalid answer",
                "\"replicationStatus\" is \"MOSTLY_FINE\"");
    }

    @Test
    void destinationAnswersTheIdsInTheSourcesKind() throws Exception {
        Path args = dir.resolve("args");
        ExecHarness h = grpc.register(serve(
                INIT_WITH_DESTINATION,
                "printf '%s\\n' \"$@\" >> " + args + "\n"
                        + "case \"$2\" in *volumegroup*) echo '{\"status\":\"Success\",\"destinationId\":\"grp-1-b\","
                        + "\"destinationVolumeIds\":{\"vol-1\":\"vol-1-b\",\"vol-2\":\"vol-2-b\"}}';; "
                        + "*) echo '{\"status\":\"Success\",\"destinationId\":\"vol-1-b\"}';; esac"));
        var v = (GetReplicationDestinationInfoResponse) h.destination(volume("vol-1"), Map.of());
        assertThat(v.getReplicationDestination().getVolume().getVolumeId()).isEqualTo("vol-1-b");
        var g = (GetReplicationDestinationInfoResponse) h.destination(group("grp-1"), Map.of());
        assertThat(g.getReplicationDestination().getVolumegroup().getVolumeGroupId())
                .isEqualTo("grp-1-b");
        assertThat(g.getReplicationDestination().getVolumegroup().getVolumeIdsMap())
                .containsExactlyInAnyOrderEntriesOf(Map.of("vol-1", "vol-1-b", "vol-2", "vol-2-b"));
        assertThat(h.driver.servedRpcs()).contains(Rpc.GET_REPLICATION_DESTINATION_INFO);
        assertThat(h.capabilities()).contains("GET_REPLICATION_DESTINATION_INFO");
        assertThat(Files.readAllLines(args))
                .containsExactly(
                        "destination", "{\"source\":{\"kind\":\"volume\",\"id\":\"vol-1\"}}",
                        "destination", "{\"source\":{\"kind\":\"volumegroup\",\"id\":\"grp-1\"}}");
    }

    @Test
    void destinationAnswersAreChecked() throws Exception {
        ExecHarness h = grpc.register(serve(INIT_WITH_DESTINATION, "echo '{\"status\":\"Success\"}'"));
        assertStatus(
                h.destination(volume("vol-1"), Map.of()),
                Status.Code.UNKNOWN,
                "(destination)",
                "invalid answer: \"destinationId\" (replication_destination.volume.volume_id: REQUIRED but empty)");
        ExecHarness h2 = grpc.register(serve(
                INIT_WITH_DESTINATION,
                "echo '{\"status\":\"Success\",\"destinationId\":\"v-b\","
                        + "\"destinationVolumeIds\":{\"a\":\"b\"}}'"));
        assertStatus(
                h2.destination(volume("vol-1"), Map.of()),
                Status.Code.UNKNOWN,
                "(destination)",
                "\"destinationVolumeIds\" belongs to a volume group's destination");
        ExecHarness h3 = grpc.register(serve(
                INIT_WITH_DESTINATION,
                "echo '{\"status\":\"Success\",\"destinationId\":\"g-b\","
                        + "\"destinationVolumeIds\":{\"vol-1\":\"\"}}'"));
        assertStatus(h3.destination(group("grp-1"), Map.of()), Status.Code.UNKNOWN, "invalid response");
        ExecHarness h4 = grpc.register(serve(
                INIT_WITH_DESTINATION,
                "echo '{\"status\":\"Failure\",\"code\":\"UNAVAILABLE\","
                        + "\"message\":\"the peer has not answered yet\"}'; exit 1"));
        assertStatus(
                h4.destination(volume("vol-1"), Map.of()), Status.Code.UNAVAILABLE, "the peer has not answered yet");
    }

    @Test
    void withoutInitsOptInDestinationIsUnimplementedWithoutRunningTheDriverAndNotAdvertised() throws Exception {
        Path calls = dir.resolve("calls");
        ExecHarness h = grpc.register(serve(
                "echo \"$1\" >> " + calls + "\n"
                        + "if [ \"$1\" = init ]; then echo '{\"status\":\"Success\"}'; exit 0; fi\n",
                "echo '{\"status\":\"Success\",\"destinationId\":\"x\"}'"));
        assertThat(h.driver.supportedOperations()).doesNotContain(ExecOperation.DESTINATION);
        assertThat(h.driver.servedRpcs()).doesNotContain(Rpc.GET_REPLICATION_DESTINATION_INFO);
        assertStatus(
                h.destination(volume("vol-1"), Map.of()), Status.Code.UNIMPLEMENTED, "GetReplicationDestinationInfo");
        assertThat(h.capabilities())
                .doesNotContain("GET_REPLICATION_DESTINATION_INFO")
                .contains("VOLUME_REPLICATION");
        assertThat(Files.readAllLines(calls)).containsExactly("init");
    }
}
