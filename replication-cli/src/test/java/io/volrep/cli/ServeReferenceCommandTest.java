package io.volrep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.testsupport.Signals;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
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
        assertThat(help)
                .contains(
                        "--listen",
                        "unix:///tmp/volrep-reference",
                        "--volumes",
                        "Default: 16",
                        "--groups",
                        "--secret",
                        "KEY=VALUE",
                        "--latency",
                        "SIGTERM");
    }

    @Test
    void badOptionsAreUsageErrors() {
        assertThat(run(2, "serve-reference", "--latency", "soon")).contains("not a duration");
        assertThat(run(2, "serve-reference", "--volumes", "-1")).contains("must not be negative");
        assertThat(run(2, "serve-reference", "--volumes", "many")).contains("--volumes");
    }

    @Test
    void sigintDrainsAndExitsZero() throws Exception {
        Assumptions.assumeFalse(Signals.sigintIgnored(), Signals.SIGINT_IGNORED);
        Path socket = dir.resolve("r.sock");
        Process process = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        VolrepCommand.class.getName(),
                        "serve-reference",
                        "--listen",
                        "unix://" + socket,
                        "--volumes",
                        "1",
                        "--groups",
                        "0")
                .redirectErrorStream(true)
                .start();
        try (BufferedReader out =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null && !line.startsWith("listening on ")) {
                // log lines before the ready line
            }
            assertThat(line).isEqualTo("listening on unix://" + socket);
            assertThat(new ProcessBuilder("kill", "-INT", Long.toString(process.pid()))
                            .start()
                            .waitFor(5, TimeUnit.MINUTES))
                    .isTrue();
            assertThat(process.waitFor(5, TimeUnit.MINUTES)).isTrue();
            assertThat(process.exitValue())
                    .as("exit status after a clean drain (not 130)")
                    .isZero();
            assertThat(socket).as("socket removed on shutdown").doesNotExist();
        } finally {
            process.destroyForcibly();
        }
    }

    @Test
    void twoSitesWithRealStoragesWindowsPassTheConformanceSuiteWithAPeer() throws Exception {
        // serve-reference --peer-listen: one replication pair per source on two endpoints, refusing promotes
        // without force for 300 ms after the other site's demote and answering Info 5 for 300 ms after an enable or
        // a promote. The suite with --peer-endpoint runs every check, waits the windows out, and is compliant.
        Path a = dir.resolve("a.sock");
        Path b = dir.resolve("b.sock");
        Process process = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        VolrepCommand.class.getName(),
                        "serve-reference",
                        "--listen",
                        "unix://" + a,
                        "--peer-listen",
                        "unix://" + b,
                        "--volumes",
                        "2",
                        "--groups",
                        "1",
                        "--demotion-window",
                        "300ms",
                        "--first-sync-delay",
                        "300ms")
                .redirectErrorStream(true)
                .start();
        // Not closed by the test: the drain below holds it until the plugin exits (the finally stops it first).
        BufferedReader out =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        try {
            List<String> lines = new ArrayList<>();
            String line;
            while ((line = out.readLine()) != null && !line.startsWith("listening on ")) {
                lines.add(line);
            }
            assertThat(lines).contains("peer site listening on unix://" + b);
            assertThat(line).isEqualTo("listening on unix://" + a);
            // The plugin logs a line per call: keep reading, or it blocks on a full pipe.
            Thread drain = new Thread(() -> out.lines().forEach(l -> {}));
            drain.setDaemon(true);
            drain.start();

            String report = run(
                    0,
                    "conformance",
                    "--endpoint",
                    "unix://" + a,
                    "--peer-endpoint",
                    "unix://" + b,
                    "--volume",
                    "vol-0",
                    "--volume",
                    "vol-1",
                    "--volume-group",
                    "grp-0",
                    "--settle-timeout",
                    "10s",
                    "--include-tag",
                    "required");
            assertThat(report)
                    .contains("peer site unix://" + b)
                    .contains("COMPLIANT")
                    .doesNotContain("NOT RUN")
                    .contains("PASS            required Two sites: a failover round trip A -> B -> A")
                    .contains("PASS            required ResyncVolume: ready becomes true within the resync timeout")
                    .contains("for transient answers)");
        } finally {
            // SIGTERM (SIGINT may be ignored: a background job's children ignore it), then the drain.
            process.destroy();
            process.waitFor(5, TimeUnit.MINUTES);
            process.destroyForcibly();
        }
    }

    @Test
    void theWindowsNeedDurations() {
        assertThat(run(2, "serve-reference", "--demotion-window", "a while")).contains("not a duration");
        assertThat(run(2, "serve-reference", "--first-sync-delay", "soon")).contains("not a duration");
    }
}
