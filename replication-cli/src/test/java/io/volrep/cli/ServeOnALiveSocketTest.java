package io.volrep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testkit.reference.ReferencePlugin;
import io.volrep.testsupport.GrpcCleanup;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Starting a second plugin on a socket a live one answers on: {@code serve-reference} and {@code serve-exec} print
 * one line saying why, no stack trace, exit 2, and leave the live plugin's socket alone.
 */
class ServeOnALiveSocketTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    @TempDir
    Path dir;

    @Test
    void bothServeCommandsPrintOneLineAndExitTwo() throws Exception {
        Path socket = dir.resolve("live.sock");
        grpc.register(ReferencePlugin.start(ReferenceDriver.builder().build(), "unix://" + socket));
        for (String[] args : new String[][] {
            {"serve-reference", "--listen", "unix://" + socket},
            {
                "serve-exec",
                "--driver",
                ServeExecCommandTest.EXAMPLE.toString(),
                "--listen",
                "unix://" + socket,
                "--env",
                "VOLREP_EXEC_STATE_DIR=" + dir.resolve("state")
            },
        }) {
            CommandLine cli = VolrepCommand.commandLine();
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            cli.setOut(new PrintWriter(out));
            cli.setErr(new PrintWriter(err));
            assertThat(cli.execute(args)).as(args[0] + ": " + err).isEqualTo(2);
            assertThat(err.toString().lines())
                    .as(args[0])
                    .containsExactly("volrep " + args[0] + ": cannot listen on unix://" + socket
                            + ": another server is listening on it (stop it first)");
            assertThat(out.toString()).isEmpty();
            assertThat(socket).exists();
        }
        assertThat(Files.exists(socket)).isTrue();
    }
}
