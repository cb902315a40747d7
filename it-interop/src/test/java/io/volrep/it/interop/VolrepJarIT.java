package io.volrep.it.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The shaded {@code volrep.jar} as a user runs it: it ships its SLF4J binding (never the "no providers"
 * warning), and exit codes and stderr are those of the in-process tests. Needs only the jar, not Node.
 */
class VolrepJarIT {

    record Result(int exit, String out, String err) {}

    static Result run(String... args) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(Interop.volrep(args)).start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        byte[] err = p.getErrorStream().readAllBytes();
        assertThat(p.waitFor(Interop.RUN_TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        return new Result(
                p.exitValue(), new String(out, StandardCharsets.UTF_8), new String(err, StandardCharsets.UTF_8));
    }

    @Test
    void theJarShipsItsLoggingBindingAndFailsInOneLine() throws Exception {
        assumeTrue(Files.isRegularFile(Interop.jar()), "replication-cli/target/volrep.jar is missing");

        Result version = run("--version");
        assertThat(version.exit()).isZero();
        assertThat(version.err()).doesNotContain("SLF4J");

        // The client waits for an unreachable plugin within --timeout (issue 21), then names it and why.
        Result unreachable =
                run("info", "--endpoint", "/nonexistent/csi-addons.sock", "--volume", "pvc-1", "--timeout", "2s");
        assertThat(unreachable.exit()).isEqualTo(1);
        assertThat(unreachable.err())
                .doesNotContain("SLF4J")
                .doesNotContain("\tat ")
                .contains("unreachable: the plugin at unix:///nonexistent/csi-addons.sock: no such directory");
        assertThat(unreachable.out()).isEmpty();

        Result none = run();
        assertThat(none.exit()).isEqualTo(2);
        assertThat(none.err()).contains("a command is required").doesNotContain("SLF4J");

        Result embedded = run("conformance", "--include-tag", "required");
        assertThat(embedded.exit()).as(embedded.err()).isZero();
        assertThat(embedded.err()).doesNotContain("SLF4J");
    }
}
