package io.volrep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class VolrepCommandTest {

    @Test
    void helpAndVersion() {
        StringWriter out = new StringWriter();
        var cli = VolrepCommand.commandLine();
        cli.setOut(new PrintWriter(out));
        assertThat(cli.execute("--help")).isZero();
        assertThat(out.toString()).contains("Usage: volrep");

        out.getBuffer().setLength(0);
        assertThat(cli.execute("--version")).isZero();
        assertThat(out.toString()).startsWith("volrep 0.");
    }

    @Test
    void unknownOptionFailsWithUsage() {
        StringWriter err = new StringWriter();
        var cli = VolrepCommand.commandLine();
        cli.setErr(new PrintWriter(err));
        assertThat(cli.execute("--no-such-option")).isEqualTo(2);
        assertThat(err.toString()).startsWith("error: unknown option");
    }
}
