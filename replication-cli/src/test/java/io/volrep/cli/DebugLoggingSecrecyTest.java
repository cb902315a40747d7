package io.volrep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With every logger at DEBUG ({@code -Dorg.slf4j.simpleLogger.defaultLogLevel=debug}, the level the issue's
 * attacker chose), neither the served plugin's log nor the calling CLI's stderr holds a secret: not in plain text,
 * not as the hex of gRPC's HTTP/2 frame dumps. Real child JVMs through {@code main}, over a unix socket.
 */
class DebugLoggingSecrecyTest {
    static final String SECRET = "Sup3r-s3cret-value";

    @TempDir
    Path dir;

    private List<String> java(String... args) {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=debug",
                "-cp",
                System.getProperty("java.class.path"),
                VolrepCommand.class.getName()));
        command.addAll(List.of(args));
        return command;
    }

    static void noSecret(String what, String log) {
        String hex = HexFormat.of().formatHex(SECRET.getBytes(StandardCharsets.UTF_8));
        assertThat(log).as(what).doesNotContain(SECRET);
        assertThat(log.toLowerCase(Locale.ROOT)).as(what + " (hex)").doesNotContain(hex);
        // Nor any frame dump at all: the HTTP/2 frame loggers stay off at every level the jar offers.
        assertThat(log).as(what).doesNotContain("DATA: streamId=").doesNotContain("HEADERS: streamId=");
    }

    @Test
    void noSecretInTheServersOrTheClientsDebugLog() throws Exception {
        Path socket = dir.resolve("p.sock");
        Path serverLog = dir.resolve("server.log");
        Process server = new ProcessBuilder(java(
                        "serve-reference",
                        "--listen",
                        "unix://" + socket,
                        "--volumes",
                        "1",
                        "--groups",
                        "0",
                        "--secret",
                        "password=" + SECRET))
                .redirectErrorStream(true)
                .redirectOutput(serverLog.toFile())
                .start();
        try {
            long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
            while (!Files.readString(serverLog).contains("listening on ") && System.nanoTime() < end) {
                assertThat(server.isAlive()).as(Files.readString(serverLog)).isTrue();
                Thread.sleep(50);
            }
            Path clientErr = dir.resolve("client.err");
            Process client = new ProcessBuilder(java(
                            "enable",
                            "--endpoint",
                            "unix://" + socket,
                            "--volume",
                            "vol-0",
                            "--secret",
                            "password=" + SECRET))
                    .redirectOutput(dir.resolve("client.out").toFile())
                    .redirectError(clientErr.toFile())
                    .start();
            assertThat(client.waitFor(120, TimeUnit.SECONDS)).isTrue();
            String clientLog = Files.readString(clientErr);
            assertThat(client.exitValue()).as(clientLog).isZero();
            // The client did log at DEBUG (so the test is not vacuous).
            assertThat(clientLog).contains("DEBUG");

            server.destroy();
            assertThat(server.waitFor(5, TimeUnit.MINUTES)).isTrue();
            String log = Files.readString(serverLog);
            assertThat(log).contains("DEBUG").contains("EnableVolumeReplication");
            noSecret("server log", log);
            noSecret("client stderr", clientLog);
        } finally {
            server.destroyForcibly();
        }
    }
}
