package io.volrep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code volrep serve-reference}'s options and its exit status after SIGINT; serving itself is tested in the testkit
 * (SIGTERM in a child JVM).
 */
class ServeReferenceCommandTest {
    @TempDir
    Path dir;

    private static String run(int expectedExit, String... args) {
        CommandLine cli = VolrepCommand.commandLine();
        StringWriter out = new StringWriter();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(out));
        assertThat(cli.execute(args)).as(out.toString()).isEqualTo(expectedExit);
        return out.toString();
    }

    @Test
    void helpListsTheOptionsAndDefaults() {
        String help = run(0, "serve-reference", "--help");
        assertThat(help).contains("--listen", "unix:///tmp/volrep-reference", "--volumes", "Default: 16", "--groups",
                "--secret", "KEY=VALUE", "--latency", "SIGTERM");
    }

    @Test
    void badOptionsAreUsageErrors() {
        assertThat(run(2, "serve-reference", "--latency", "soon")).contains("not a duration");
        assertThat(run(2, "serve-reference", "--volumes", "-1")).contains("must not be negative");
        assertThat(run(2, "serve-reference", "--volumes", "many")).contains("--volumes");
    }

    @Test
    void sigintDrainsAndExitsZero() throws Exception {
        Path socket = dir.resolve("r.sock");
        Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), VolrepCommand.class.getName(), "serve-reference",
                "--listen", "unix://" + socket, "--volumes", "1", "--groups", "0").redirectErrorStream(true).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null && !line.startsWith("listening on ")) {
                // log lines before the ready line
            }
            assertThat(line).isEqualTo("listening on unix://" + socket);
            assertThat(new ProcessBuilder("kill", "-INT", Long.toString(process.pid())).start()
                    .waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(process.exitValue()).as("exit status after a clean drain (not 130)").isZero();
            assertThat(socket).as("socket removed on shutdown").doesNotExist();
        } finally {
            process.destroyForcibly();
        }
    }
}
