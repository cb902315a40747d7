package io.volrep.spi.exec;

import static io.volrep.spi.exec.ExecHarness.driverScript;
import static io.volrep.spi.exec.ExecHarness.group;
import static io.volrep.spi.exec.ExecHarness.script;
import static io.volrep.spi.exec.ExecHarness.volume;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.volrep.api.ReplicationSource.Kind;
import io.volrep.proto.replication.GetVolumeReplicationInfoResponse;
import io.volrep.testsupport.GrpcCleanup;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Each failure mode of the exec protocol, over gRPC through the real runtime, with small /bin/sh drivers. */
class ExecDriverTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    @TempDir
    Path dir;

    private ExecHarness serve(String body) throws Exception {
        return ExecHarness.inProcess(
                ExecDriver.builder().executable(driverScript(dir, body)).build());
    }

    private static void assertStatus(Status status, Status.Code code, String... messageParts) {
        assertThat(status.getCode()).as(status.toString()).isEqualTo(code);
        for (String part : messageParts) {
            assertThat(status.getDescription()).contains(part);
        }
    }

    @Test
    void successAndTheRequestJsonOnTheCommandLine() throws Exception {
        Path args = dir.resolve("args");
        ExecHarness h = grpc.register(serve("printf '%s\\n' \"$@\" >> " + args + "; echo '{\"status\":\"Success\"}'"));
        assertThat(h.enable("vol-1").getCode()).isEqualTo(Status.Code.OK);
        assertThat(h.promote(group("grp-1"), Map.of()).getCode()).isEqualTo(Status.Code.OK);
        assertThat(Files.readAllLines(args))
                .containsExactly(
                        "enable",
                                "{\"source\":{\"kind\":\"volume\",\"id\":\"vol-1\"},\"parameters\":{\"mode\":\"snapshot\"}}",
                        "promote",
                                "{\"source\":{\"kind\":\"volumegroup\",\"id\":\"grp-1\"},\"parameters\":{},\"force\":false}");
    }

    @Test
    void notSupportedIsUnimplemented() throws Exception {
        ExecHarness h =
                grpc.register(serve("echo '{\"status\":\"Not supported\",\"message\":\"no promote here\"}'; exit 1"));
        assertStatus(h.promote(volume("vol-1"), Map.of()), Status.Code.UNIMPLEMENTED, "no promote here");
    }

    @Test
    void failureWithACodeKeepsCodeAndMessage() throws Exception {
        ExecHarness h = grpc.register(
                serve("echo '{\"status\":\"Failure\",\"code\":\"NOT_FOUND\",\"message\":\"no vol-9\"}'; " + "exit 1"));
        assertStatus(h.enable("vol-9"), Status.Code.NOT_FOUND, "no vol-9");
        assertStatus(h.promote(volume("vol-9"), Map.of()), Status.Code.NOT_FOUND);
    }

    @Test
    void failureWithoutACodeIsUnknown() throws Exception {
        ExecHarness h =
                grpc.register(serve("echo '{\"status\":\"Failure\",\"message\":\"backend exploded\"}'; exit 3"));
        assertStatus(h.enable("vol-1"), Status.Code.UNKNOWN, "backend exploded");
    }

    @Test
    void unknownCodeOrStatusIsUnknownNamingDriverAndOperation() throws Exception {
        ExecHarness h = grpc.register(serve("echo '{\"status\":\"Failure\",\"code\":\"NOT_FUND\"}'; exit 1"));
        assertStatus(
                h.demote(volume("vol-1"), Map.of()),
                Status.Code.UNKNOWN,
                "exec driver " + dir.resolve("driver"),
                "(demote)",
                "unknown code \"NOT_FUND\"");
        ExecHarness h2 = grpc.register(serve("echo '{\"status\":\"Failure\",\"code\":\"OK\"}'; exit 1"));
        assertStatus(h2.demote(volume("vol-1"), Map.of()), Status.Code.UNKNOWN, "Failure with code OK");
        ExecHarness h3 = grpc.register(serve("echo '{\"status\":\"success\"}'"));
        assertStatus(h3.enable("vol-1"), Status.Code.UNKNOWN, "(enable)", "unknown status \"success\"");
    }

    @Test
    void malformedOrMissingOutputIsUnknown() throws Exception {
        String[] bodies = {
            "echo 'not json'",
            "echo '{\"status\":\"Success\"'",
            "echo '[\"Success\"]'",
            "echo '{\"status\":\"Success\"} {\"status\":\"Success\"}'",
            "echo \"{'status':'Success'}\"",
            "echo '{\"status\":\"Success\",\"ready\":\"maybe\"}'",
            "exit 0",
            "printf '\\377\\376{}'",
        };
        for (String body : bodies) {
            ExecHarness h = grpc.register(serve(body));
            assertStatus(h.enable("vol-1"), Status.Code.UNKNOWN, "exec driver ", "(enable)", "malformed output");
        }
        ExecHarness h2 = grpc.register(serve("exit 4"));
        assertStatus(h2.enable("vol-1"), Status.Code.UNKNOWN, "printed nothing on stdout", "exit code 4");
    }

    @Test
    void unknownFieldsAreIgnored() throws Exception {
        ExecHarness h = grpc.register(serve("echo '{\"status\":\"Success\",\"vendorDetail\":{\"x\":[1,2]}}'"));
        assertThat(h.enable("vol-1").getCode()).isEqualTo(Status.Code.OK);
    }

    @Test
    void successWithANonZeroExitCodeIsInconsistent() throws Exception {
        ExecHarness h = grpc.register(serve("echo '{\"status\":\"Success\"}'; exit 2"));
        assertStatus(h.enable("vol-1"), Status.Code.UNKNOWN, "(enable)", "inconsistent", "exit code 2");
    }

    @Test
    void operationAnswersAreChecked() throws Exception {
        ExecHarness h = grpc.register(serve("echo '{\"status\":\"Success\"}'"));
        assertThat(h.resync(volume("vol-1"), Map.of()))
                .isInstanceOfSatisfying(
                        Status.class, s -> assertStatus(s, Status.Code.UNKNOWN, "(resync)", "without \"ready\""));
        assertThat(h.info(volume("vol-1"), Map.of()))
                .isInstanceOfSatisfying(
                        Status.class,
                        s -> assertStatus(
                                s,
                                Status.Code.UNKNOWN,
                                "(info)",
                                "invalid answer: \"lastSyncTime\" (last_sync_time: REQUIRED but not set)"));
        ExecHarness h2 = grpc.register(serve("echo '{\"status\":\"Success\",\"lastSyncTime\":\"yesterday\"}'"));
        assertThat(h2.info(volume("vol-1"), Map.of()))
                .isInstanceOfSatisfying(
                        Status.class, s -> assertStatus(s, Status.Code.UNKNOWN, "(info)", "malformed output"));
        ExecHarness h3 =
                grpc.register(serve("echo '{\"status\":\"Success\",\"lastSyncTime\":\"2026-13-45T25:61:61Z\"}'"));
        // A driver bug: rejected, never rolled over into another date.
        assertThat(h3.info(volume("vol-1"), Map.of()))
                .isInstanceOfSatisfying(
                        Status.class,
                        s -> assertStatus(
                                s,
                                Status.Code.UNKNOWN,
                                "(info)",
                                "malformed output",
                                "\"lastSyncTime\" is not a valid RFC 3339 time: \"2026-13-45T25:61:61Z\""));
        ExecHarness h4 = grpc.register(serve(
                "echo '{\"status\":\"Success\",\"lastSyncTime\":\"2026-01-02T03:04:05Z\"," + "\"lastSyncBytes\":-1}'"));
        assertThat(h4.info(volume("vol-1"), Map.of()))
                .isInstanceOfSatisfying(Status.class, s -> assertStatus(s, Status.Code.UNKNOWN, "lastSyncBytes"));
        ExecHarness h5 = grpc.register(serve("case \"$1\" in resync) echo '{\"status\":\"Success\",\"ready\":true}';; "
                + "*) echo '{\"status\":\"Success\",\"lastSyncTime\":\"2026-01-02T03:04:05.5+01:00\","
                + "\"lastSyncDurationSeconds\":1.25,\"lastSyncBytes\":\"4096\"}';; esac"));
        assertThat(h5.resync(volume("vol-1"), Map.of())).isEqualTo(true);
        var info = (GetVolumeReplicationInfoResponse) h5.info(volume("vol-1"), Map.of());
        var time = info.getLastSyncTime();
        assertThat(Instant.ofEpochSecond(time.getSeconds(), time.getNanos()))
                .isEqualTo(Instant.parse("2026-01-02T02:04:05.5Z"));
        var took = info.getLastSyncDuration();
        assertThat(Duration.ofSeconds(took.getSeconds(), took.getNanos())).isEqualTo(Duration.ofMillis(1_250));
        assertThat(info.getLastSyncBytes()).isEqualTo(4096);
    }

    @Test
    void outputOverOneMebibyteIsUnknownAndTheDriverIsKilled() throws Exception {
        ExecHarness h =
                grpc.register(serve("head -c 2000000 /dev/zero | tr '\\0' ' '; echo '{\"status\":\"Success\"}'"));
        assertStatus(h.enable("vol-1"), Status.Code.UNKNOWN, "(enable)", "more than 1048576 bytes");
        // Just under the limit is fine, and a driver flooding stderr at the same time does not dead-lock.
        ExecHarness h2 = grpc.register(serve("head -c 3000000 /dev/zero >&2; head -c 1000000 /dev/zero | tr '\\0' ' '; "
                + "echo '{\"status\":\"Success\"}'"));
        assertThat(h2.enable("vol-1").getCode()).isEqualTo(Status.Code.OK);
    }

    @Test
    void aDriverThatCannotBeStartedIsUnknown() throws Exception {
        Path driver = driverScript(dir, "echo '{\"status\":\"Success\"}'");
        ExecHarness h = grpc.register(
                ExecHarness.inProcess(ExecDriver.builder().executable(driver).build()));
        Files.delete(driver);
        assertStatus(
                h.enable("vol-1"), Status.Code.UNKNOWN, "exec driver " + driver, "(enable)", "cannot start the driver");
    }

    @Test
    void startupFailsClearly() throws Exception {
        Path missing = dir.resolve("missing");
        assertThatThrownBy(() -> ExecDriver.builder().executable(missing).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(missing + " is not an executable file");
        Path notExecutable = Files.writeString(dir.resolve("plain"), "#!/bin/sh\n");
        assertThatThrownBy(() -> ExecDriver.builder().executable(notExecutable).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not an executable file");
        Path failing = script(
                dir, "failing", "echo '{\"status\":\"Failure\",\"message\":\"no backend configured\"}';" + " exit 1");
        assertThatThrownBy(() -> ExecDriver.builder().executable(failing).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exec driver " + failing + " failed to initialize")
                .hasMessageContaining("no backend configured");
        Path garbage = script(dir, "garbage", "echo hello");
        assertThatThrownBy(() -> ExecDriver.builder().executable(garbage).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("(init): malformed output");
        Path badKind = script(dir, "badkind", "echo '{\"status\":\"Success\",\"sourceKinds\":[\"disk\"]}'");
        assertThatThrownBy(() -> ExecDriver.builder().executable(badKind).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("unknown source kind \"disk\"");
        Path slow = script(dir, "slow", "sleep 30");
        long start = System.nanoTime();
        assertThatThrownBy(() -> ExecDriver.builder()
                        .executable(slow)
                        .timeout(Duration.ofMillis(500))
                        .build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no answer within PT0.5S");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void initCapabilitiesGateOperationsWithoutRunningTheDriver() throws Exception {
        Path calls = dir.resolve("calls");
        Path driver = script(
                dir,
                "driver",
                "echo \"$1\" >> " + calls + "\n"
                        + "if [ \"$1\" = init ]; then echo '{\"status\":\"Success\",\"capabilities\":{\"promote\":false,"
                        + "\"resync\":false,\"teleport\":true},\"sourceKinds\":[\"volume\"]}'; exit 0; fi\n"
                        + "echo '{\"status\":\"Success\"}'");
        ExecHarness h = grpc.register(
                ExecHarness.inProcess(ExecDriver.builder().executable(driver).build()));
        assertThat(h.driver.supportedOperations())
                .containsExactlyInAnyOrder(
                        ExecOperation.INIT,
                        ExecOperation.ENABLE,
                        ExecOperation.DISABLE,
                        ExecOperation.DEMOTE,
                        ExecOperation.INFO);
        assertThat(h.driver.supportedSourceKinds()).containsExactly(Kind.VOLUME);
        assertStatus(
                h.promote(volume("vol-1"), Map.of()), Status.Code.UNIMPLEMENTED, "PromoteVolume is not implemented");
        assertThat(h.resync(volume("vol-1"), Map.of()))
                .isInstanceOfSatisfying(
                        Status.class, s -> assertThat(s.getCode()).isEqualTo(Status.Code.UNIMPLEMENTED));
        assertStatus(h.enable(group("grp-1"), Map.of()), Status.Code.INVALID_ARGUMENT);
        assertThat(h.demote(volume("vol-1"), Map.of()).getCode()).isEqualTo(Status.Code.OK);
        assertThat(Files.readAllLines(calls)).containsExactly("init", "demote");
    }

    @Test
    void initNotSupportedKeepsTheDefaults() throws Exception {
        Path driver = script(
                dir,
                "driver",
                "if [ \"$1\" = init ]; then echo '{\"status\":\"Not supported\"}'; "
                        + "exit 1; fi\necho '{\"status\":\"Success\"}'");
        ExecDriver d = grpc.register(ExecDriver.builder().executable(driver).build());
        assertThat(d.supportedOperations())
                .containsExactlyInAnyOrder(
                        ExecOperation.INIT,
                        ExecOperation.ENABLE,
                        ExecOperation.DISABLE,
                        ExecOperation.PROMOTE,
                        ExecOperation.DEMOTE,
                        ExecOperation.RESYNC,
                        ExecOperation.INFO);
        assertThat(d.supportedSourceKinds()).containsExactlyInAnyOrder(Kind.VOLUME, Kind.VOLUME_GROUP);
    }

    @Test
    void secretsTravelOnStdinOnlyAndStderrIsLoggedBoundedAndSanitized() throws Exception {
        String secret = "Sup3r-S3cret-Passw0rd";
        Path seen = dir.resolve("seen");
        Path stdin = dir.resolve("stdin");
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream originalErr = System.err;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try (ExecHarness h = serve(
                "cat > " + stdin + "\n"
                        + "{ printf '%s\\n' \"$0\" \"$@\"; tr '\\0' '\\n' < /proc/self/environ; } > " + seen + "\n"
                        + "echo \"login with $(cat " + stdin + ") failed\" >&2\n"
                        + "head -c 20000 /dev/zero | tr '\\0' x >&2\n"
                        + "echo '{\"status\":\"Failure\",\"code\":\"UNAUTHENTICATED\",\"message\":\"bad password\"}'; exit 1")) {
            assertStatus(
                    h.enable(volume("vol-1"), Map.of("password", secret, "user", "admin")),
                    Status.Code.UNAUTHENTICATED,
                    "bad password");
        } finally {
            System.setErr(originalErr);
        }
        String log = captured.toString(StandardCharsets.UTF_8);
        originalErr.print(log);
        assertThat(Files.readString(stdin))
                .startsWith("{")
                .endsWith("}")
                .hasSize(("{\"password\":\"" + secret + "\",\"user\":\"admin\"}").length())
                .contains("\"password\":\"" + secret + "\"", "\"user\":\"admin\"");
        assertThat(Files.readString(seen)).contains("enable", "vol-1", "PATH=").doesNotContain(secret);
        assertThat(log)
                .contains(
                        "(enable): exit code 1",
                        "stderr:",
                        "login with {\"",
                        "\"password\":\"***\"",
                        "more bytes of stderr not logged")
                .doesNotContain(secret);
        // stderr is logged as one escaped line (its newlines as \n), cut at the limit.
        String stderrRun = log.substring(log.indexOf("xxxx"));
        stderrRun = stderrRun.substring(0, stderrRun.indexOf(" [..."));
        assertThat(stderrRun).matches("x+");
        assertThat(stderrRun.length()).isLessThanOrEqualTo(ExecDriver.STDERR_LOG_BYTES);
    }

    @Test
    void noSecretsMeansAnEmptyObjectOnStdin() throws Exception {
        Path stdin = dir.resolve("stdin");
        ExecHarness h = grpc.register(serve("cat > " + stdin + "; echo '{\"status\":\"Success\"}'"));
        assertThat(h.enable("vol-1").getCode()).isEqualTo(Status.Code.OK);
        assertThat(Files.readString(stdin)).isEqualTo("{}");
    }

    @Test
    void closeKillsRunningDrivers() throws Exception {
        Path pid = dir.resolve("pid");
        ExecHarness h = serve(ExecHarness.HOST_PID + " > " + pid + "; sleep 30; echo '{\"status\":\"Success\"}'");
        Thread call = new Thread(() -> h.enable("vol-1"));
        call.start();
        ProcessTrees.awaitFile(pid);
        h.driver.close();
        call.join(10_000);
        assertThat(call.isAlive()).isFalse();
        assertThat(ProcessTrees.running(List.of(ProcessTrees.readPid(pid)))).isEmpty();
        h.close();
    }

    @Test
    void driverTextIsEscapedAndSecretsAreMaskedInEveryFormTheyTake() throws Exception {
        // Issue 13.6: a driver's stderr, stdout and messages are untrusted text. A secret reaches the driver
        // JSON-escaped (on stdin) and drivers echo it back as their JSON library writes it.
        String secret = "pa\"ss\\w\u00f6rd<1>=";
        List<String> forms = List.of(
                secret,
                "pa\\\"ss\\\\w\u00f6rd\\u003c1\\u003e\\u003d", // protobuf / Gson (the driver's stdin)
                "pa\\\"ss\\\\w\u00f6rd\\u003c1\\u003e=", // Go's encoding/json
                "pa\\\"ss\\\\w\\u00f6rd<1>=", // Python's json.dumps
                "pa\\\"ss\\\\w\\u00F6rd<1>="); // Jackson, ESCAPE_NON_ASCII
        Path formsFile = dir.resolve("forms");
        Files.write(formsFile, forms, StandardCharsets.UTF_8);
        Path answer = dir.resolve("answer.json");
        Files.writeString(
                answer,
                "{\"status\":\"Failure\",\"code\":\"UNAUTHENTICATED\",\"message\":" + "\"bad password " + forms.get(3)
                        + "\\nINFO forged \\u001b[31mred\"}",
                StandardCharsets.UTF_8);
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream originalErr = System.err;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        Status enable;
        Status disable;
        try (ExecHarness h = serve("cat >&2\nprintf 'warn\\nINFO forged by stderr \\033[31mred\\n' >&2\n"
                + "cat " + formsFile + " >&2\n"
                + "case \"$1\" in enable) cat " + answer + ";; *) cat " + formsFile + ";; esac\nexit 1")) {
            enable = h.enable(volume("vol-1"), Map.of("password", secret));
            disable = h.disable(volume("vol-1"), Map.of("password", secret));
        } finally {
            System.setErr(originalErr);
        }
        String log = captured.toString(StandardCharsets.UTF_8);
        originalErr.print(log);
        assertStatus(enable, Status.Code.UNAUTHENTICATED, "bad password ***\\nINFO forged \\u001b[31mred");
        assertStatus(disable, Status.Code.UNKNOWN, "(disable)", "malformed output");
        for (Status status : List.of(enable, disable)) {
            assertThat(status.getDescription()).doesNotContain("\n", "\u001b");
            forms.forEach(form -> assertThat(status.getDescription()).doesNotContain(form));
        }
        assertThat(log)
                .contains(
                        "(enable): exit code 1",
                        "(disable): malformed output",
                        "stdout began with: ***",
                        "\\nINFO forged by stderr \\u001b[31mred")
                .doesNotContain("\u001b");
        assertThat(log.lines()).noneMatch(l -> l.startsWith("INFO forged"));
        forms.forEach(form -> assertThat(log).as(form).doesNotContain(form));
    }
}
