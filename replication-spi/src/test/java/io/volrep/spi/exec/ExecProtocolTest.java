package io.volrep.spi.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.volrep.api.HealReport;
import io.volrep.api.PreconditionFailedException;
import io.volrep.api.ReplicationException;
import io.volrep.api.ReplicationInfo.Status;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Secrets;
import io.volrep.api.StatusCode;
import io.volrep.api.UnimplementedException;
import io.volrep.api.UnknownErrorException;
import io.volrep.proto.csi.VolumeCapability;
import io.volrep.proto.exec.Response;
import io.volrep.spi.internal.runtime.InvalidDriverResponseException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The protocol's JSON, both ways, without processes. */
class ExecProtocolTest {

    private static Response parse(String json) {
        return ExecProtocol.parse(json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void requestJsonPerOperation() {
        ReplicationSource vol = ReplicationSource.volume("vol-1");
        assertThat(ExecRequests.initRequest()).isEqualTo("{}");
        assertThat(ExecRequests.sourceRequest(vol, Map.of(), Optional.empty(), Optional.empty()))
                .isEqualTo("{\"source\":{\"kind\":\"volume\",\"id\":\"vol-1\"},\"parameters\":{}}");
        assertThat(ExecRequests.sourceRequest(
                        ReplicationSource.volumeGroup("g\"1"),
                        Map.of("a", "b"),
                        Optional.of(true),
                        Optional.of("rep-7")))
                .isEqualTo("{\"source\":{\"kind\":\"volumegroup\",\"id\":\"g\\\"1\"},"
                        + "\"parameters\":{\"a\":\"b\"},\"force\":true,\"replicationId\":\"rep-7\"}");
        assertThat(ExecRequests.sourceRequest(vol, Map.of(), Optional.of(false), Optional.empty()))
                .contains("\"force\":false");
        assertThat(ExecRequests.sourceRequest(vol, null, Optional.empty(), Optional.empty()))
                .isEqualTo("{\"source\":{\"kind\":\"volume\",\"id\":\"vol-1\"}}");
    }

    @Test
    void secretsAreOneFlatObject() {
        assertThat(ExecRequests.secrets(Secrets.empty())).isEqualTo("{}");
        assertThat(ExecRequests.secrets(Secrets.of(Map.of("pass", "a\"b\n")))).isEqualTo("{\"pass\":\"a\\\"b\\n\"}");
    }

    @Test
    void healMappingIsReady() {
        VolumeCapability cap = VolumeCapability.newBuilder()
                .setMount(VolumeCapability.MountVolume.newBuilder().setFsType("ext4"))
                .setAccessMode(VolumeCapability.AccessMode.newBuilder()
                        .setMode(VolumeCapability.AccessMode.Mode.SINGLE_NODE_WRITER))
                .build();
        assertThat(ExecRequests.healRequest(
                        "vol-1", "/var/lib/kubelet/x", Optional.of("/staging"), cap, Map.of("k", "v")))
                .isEqualTo("{\"volumeId\":\"vol-1\",\"volumePath\":\"/var/lib/kubelet/x\","
                        + "\"stagingTargetPath\":\"/staging\",\"volumeCapability\":{\"mount\":{\"fsType\":\"ext4\"},"
                        + "\"accessMode\":{\"mode\":\"SINGLE_NODE_WRITER\"}},\"volumeContext\":{\"k\":\"v\"}}");
        assertThat(ExecRequests.healRequest("vol-1", "/p", Optional.empty(), null, Map.of()))
                .isEqualTo("{\"volumeId\":\"vol-1\",\"volumePath\":\"/p\",\"volumeContext\":{}}");
        Response ok = ExecProtocol.judge(
                "d (heal)",
                parse("{\"status\":\"Success\",\"abnormal\":true," + "\"message\":\"read-only remount\"}"),
                0,
                Secrets.empty());
        assertThat(ExecProtocol.heal("d (heal)", ok, Secrets.empty()))
                .isEqualTo(new HealReport(true, "read-only remount"));
        assertThatThrownBy(() -> ExecProtocol.heal("d (heal)", parse("{\"status\":\"Success\"}"), Secrets.empty()))
                .isInstanceOf(InvalidDriverResponseException.class)
                .hasMessageContaining("without \"abnormal\"");
    }

    @Test
    void parsingIsStrictJsonButToleratesUnknownFieldsAndSnakeCase() {
        assertThat(parse(" {\"status\":\"Success\",\"extra\":1}\n").getStatus()).isEqualTo("Success");
        assertThat(parse("{\"status\":\"Success\",\"last_sync_bytes\":5}").getLastSyncBytes())
                .isEqualTo(5);
        assertThat(parse("{\"capabilities\":{\"promote\":false}}").getCapabilitiesMap())
                .containsEntry("promote", false);
        for (String bad : new String[] {
            "",
            "  ",
            "null",
            "[]",
            "\"Success\"",
            "{status:\"Success\"}",
            "{\"status\":\"Success\"} x",
            "{\"status\":\"Success\",}",
            "{\"ready\":\"yes\"}",
            "{\"lastSyncBytes\":1.5}",
            "{\"capabilities\":{\"x\":\"yes\"}}"
        }) {
            assertThatThrownBy(() -> parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void outputThatIsNotJsonIsOneClearLineWithoutTheParsersAdvice() {
        // issue 34 item 5: a driver printing "hello" got Gson's "Use JsonReader.setStrictness ..." and its
        // Troubleshooting link, with a literal \n, instead of what is wrong
        assertThatThrownBy(() -> parse("hello from the driver"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("stdout is not JSON (at line 1, column 1): the exec protocol expects one JSON object,"
                        + " e.g. {\"status\":\"Success\"}");
        for (String bad : new String[] {
            "{\"status\":\"Success\"",
            "{status:\"Success\"}",
            "{\"status\":\"Success\",}",
            "Success\n{\"status\":\"Success\"}"
        }) {
            assertThatThrownBy(() -> parse(bad))
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("stdout is not JSON (at line ")
                    .hasMessageContaining("column ")
                    .hasMessageNotContaining("JsonReader")
                    .hasMessageNotContaining("Strictness")
                    .hasMessageNotContaining("Troubleshooting")
                    .hasMessageNotContaining("\\n")
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
        }
    }

    @Test
    void judging() {
        assertThat(ExecProtocol.judge(
                        "d (enable)", parse("{\"status\":\"Success\",\"code\":\"OK\"}"), 0, Secrets.empty()))
                .isNotNull();
        assertThatThrownBy(() -> ExecProtocol.judge(
                        "d (enable)",
                        parse("{\"status\":\"Success\",\"code\":" + "\"NOT_FOUND\"}"),
                        0,
                        Secrets.empty()))
                .isInstanceOf(UnknownErrorException.class)
                .hasMessageContaining("inconsistent");
        assertThatThrownBy(() -> ExecProtocol.judge(
                        "d (promote)",
                        parse("{\"status\":\"Failure\",\"code\":"
                                + "\"FAILED_PRECONDITION\",\"message\":\"not enabled\"}"),
                        1,
                        Secrets.empty()))
                .isInstanceOf(PreconditionFailedException.class)
                .hasMessage("not enabled");
        assertThatThrownBy(() -> ExecProtocol.judge(
                        "d (promote)",
                        parse("{\"status\":\"Failure\",\"code\":" + "\"UNAVAILABLE\"}"),
                        0,
                        Secrets.empty()))
                .satisfies(e -> assertThat(((ReplicationException) e).code()).isEqualTo(StatusCode.UNAVAILABLE))
                .hasMessage("d (promote): failed with UNAVAILABLE");
        assertThatThrownBy(() ->
                        ExecProtocol.judge("d (info)", parse("{\"status\":\"Not supported\"}"), 1, Secrets.empty()))
                .isInstanceOf(UnimplementedException.class)
                .hasMessage("d (info): not supported by the driver");
        assertThatThrownBy(() -> ExecProtocol.judge(
                        "d (info)", parse("{\"status\":\"Failure\",\"code\":\"not_found\"}"), 1, Secrets.empty()))
                .isInstanceOf(UnknownErrorException.class)
                .hasMessageContaining("unknown code");
        assertThatThrownBy(() -> ExecProtocol.judge("d (info)", parse("{}"), 0, Secrets.empty()))
                .isInstanceOf(UnknownErrorException.class)
                .hasMessageContaining("unknown status \"\"");
        String longMessage = "m".repeat(10_000);
        assertThatThrownBy(() -> ExecProtocol.judge(
                        "d", parse("{\"status\":\"Failure\",\"message\":\"" + longMessage + "\"}"), 1, Secrets.empty()))
                .satisfies(e -> assertThat(e.getMessage()).hasSize(ExecProtocol.MAX_MESSAGE_CHARS + 3));
    }

    @Test
    void infoValues() {
        var info =
                ExecProtocol.info("d", parse("{\"lastSyncTime\":\"2026-03-04T05:06:07.123456789Z\"}"), Secrets.empty());
        assertThat(info.status()).isEqualTo(Status.UNKNOWN);
        assertThat(info.lastSyncTime()).isEqualTo(Instant.parse("2026-03-04T05:06:07.123456789Z"));
        assertThat(info.lastSyncDuration()).isEmpty();
        assertThat(info.lastSyncBytes()).isEmpty();
        assertThatThrownBy(() -> ExecProtocol.info(
                        "d",
                        parse("{\"lastSyncTime\":\"2026-03-04T05:06:07Z\"," + "\"lastSyncDurationSeconds\":-1}"),
                        Secrets.empty()))
                .hasMessageContaining("lastSyncDurationSeconds");
        assertThatThrownBy(() -> ExecProtocol.info(
                        "d",
                        parse("{\"lastSyncTime\":\"2026-03-04T05:06:07Z\"," + "\"lastSyncDurationSeconds\":\"NaN\"}"),
                        Secrets.empty()))
                .hasMessageContaining("lastSyncDurationSeconds");
        // Seconds past what a long holds in nanoseconds (292 years) are kept, not saturated; the rules judge them.
        var long_ = ExecProtocol.info(
                "d",
                parse("{\"lastSyncTime\":\"2026-03-04T05:06:07Z\"," + "\"lastSyncDurationSeconds\":31557600000.5}"),
                Secrets.empty());
        assertThat(long_.lastSyncDuration()).contains(Duration.ofSeconds(31_557_600_000L, 500_000_000));
        assertThatThrownBy(() -> ExecProtocol.info(
                        "d",
                        parse("{\"lastSyncTime\":\"2026-03-04T05:06:07Z\","
                                + "\"lastSyncDurationSeconds\":315576000001}"),
                        Secrets.empty()))
                .isInstanceOf(InvalidDriverResponseException.class)
                .hasMessageContaining(
                        "\"lastSyncDurationSeconds\" (last_sync_duration.seconds: 315576000001 is out of" + " range");
    }

    @Test
    void impossibleTimesAreProtocolViolationsNotRolledOver() {
        // Issue 13.8: protobuf's own RFC 3339 parser is lenient and turned this into 2027-02-15T02:02:01Z.
        for (String time : new String[] {
            "2026-13-45T25:61:61Z", "2026-02-30T00:00:00Z", "2026-01-02T24:00:00Z", "2026-01-02T03:04:60Z"
        }) {
            for (String field : new String[] {"lastSyncTime", "last_sync_time"}) {
                assertThatThrownBy(() -> parse("{\"status\":\"Success\",\"" + field + "\":\"" + time + "\"}"))
                        .as(field + " " + time)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("\"" + field + "\" is not a valid RFC 3339 time: \"" + time + "\"");
            }
        }
        assertThat(parse("{\"lastSyncTime\":\"2026-12-31T23:59:59.999999999-01:30\"}")
                        .getLastSyncTime()
                        .getSeconds())
                .isEqualTo(Instant.parse("2027-01-01T01:29:59Z").getEpochSecond());
    }
}
