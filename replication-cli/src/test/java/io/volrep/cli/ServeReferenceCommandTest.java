package io.volrep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code volrep serve-reference}'s options; serving itself is tested in the testkit (SIGTERM in a child JVM). */
class ServeReferenceCommandTest {
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
}
