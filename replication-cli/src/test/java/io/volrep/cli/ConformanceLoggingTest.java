package io.volrep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code volrep conformance} without {@code --endpoint} keeps the embedded reference's per-call INFO lines off
 * stderr unless {@code --reference-log}, and {@code -v} prints each call the suite sends, as {@code -v} prints each
 * call of the other commands; run as the real command (a child JVM through {@code main}), since slf4j-simple fixes
 * a logger's level when the logger is created.
 */
class ConformanceLoggingTest {

    @TempDir
    Path dir;

    record Run(int exit, String stdout, String stderr) {}

    private Run volrep(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                VolrepCommand.class.getName()));
        command.addAll(List.of(args));
        Path out = dir.resolve("out-" + System.nanoTime());
        Path err = dir.resolve("err-" + System.nanoTime());
        Process p = new ProcessBuilder(command)
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        return new Run(
                p.exitValue(),
                Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    private static long spiInfoLines(String stderr) {
        return stderr.lines().filter(l -> l.contains(" INFO io.volrep.spi.")).count();
    }

    private static long suiteCallLines(String stderr) {
        return stderr.lines()
                .filter(l -> l.contains(" DEBUG io.volrep.testkit.ConformanceContext - "))
                .count();
    }

    @Test
    void embeddedRunIsQuietByDefaultAndShowsTheReferenceLogOnRequest() throws Exception {
        Run quiet = volrep("conformance", "--include-tag", "optional");
        assertThat(quiet.exit()).as(quiet.stdout() + quiet.stderr()).isZero();
        assertThat(quiet.stdout()).contains("COMPLIANT");
        assertThat(spiInfoLines(quiet.stderr()))
                .as("stderr:\n%s", quiet.stderr())
                .isZero();
        assertThat(suiteCallLines(quiet.stderr())).isZero();

        Run referenceLog = volrep("conformance", "--include-tag", "optional", "--reference-log");
        assertThat(referenceLog.exit()).isZero();
        assertThat(spiInfoLines(referenceLog.stderr()))
                .as("the per-call lines with --reference-log")
                .isGreaterThan(20);
        assertThat(referenceLog.stderr()).contains("INFO io.volrep.spi.runtime.CallRunner - EnableVolumeReplication");
        assertThat(suiteCallLines(referenceLog.stderr())).isZero();
    }

    @Test
    void dashVPrintsEachCallTheSuiteSends() throws Exception {
        Run verbose = volrep("conformance", "--include-tag", "optional", "-v");

        assertThat(verbose.exit()).as(verbose.stdout() + verbose.stderr()).isZero();
        assertThat(suiteCallLines(verbose.stderr()))
                .as("stderr:\n%s", verbose.stderr())
                .isGreaterThan(20);
        assertThat(verbose.stderr())
                .containsPattern("ConformanceContext - EnableVolumeReplication volume vol-\\d -> OK")
                .doesNotContain("admin");
        assertThat(spiInfoLines(verbose.stderr()))
                .as("the reference's log stays quiet")
                .isZero();
    }

    @Test
    void onlyTheEmbeddedConformanceRunIsQuieted() {
        assertThat(ConformanceCommand.quietEmbeddedPluginLogs("serve-reference", "--listen", "unix:///tmp/x.sock"))
                .isFalse();
        assertThat(ConformanceCommand.quietEmbeddedPluginLogs(
                        "conformance", "--endpoint", "unix:///tmp/x.sock", "--volume", "vol-0"))
                .isFalse();
        assertThat(ConformanceCommand.quietEmbeddedPluginLogs("conformance", "--endpoint=unix:///tmp/x.sock"))
                .isFalse();
        assertThat(ConformanceCommand.quietEmbeddedPluginLogs("conformance", "--reference-log"))
                .isFalse();
        assertThat(System.getProperty(ConformanceCommand.SPI_LOG_LEVEL_PROPERTY))
                .isNull();
    }
}
