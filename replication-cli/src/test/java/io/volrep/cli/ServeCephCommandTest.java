package io.volrep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code volrep serve-ceph} without a Ceph cluster: its options, and the plugin it serves on a unix socket answering
 * through the rbd command it was given (a script here; the real cluster is in the Ceph integration tests).
 */
class ServeCephCommandTest {
    @TempDir
    Path dir;

    private CommandResult run(String... args) {
        CommandLine cli = VolrepCommand.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int exit = cli.execute(args);
        return new CommandResult(exit, out.toString(), err.toString());
    }

    record CommandResult(int exit, String out, String err) {}

    @Test
    void aMissingCephConfIsAUsageErrorOfOneLineNamingTheOption() {
        CommandResult r = run(
                "serve-ceph",
                "--listen",
                "unix://" + dir.resolve("p.sock"),
                "--ceph-conf",
                dir.resolve("nope.conf").toString(),
                "--pool",
                "rbd");

        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).startsWith("error: --ceph-conf: " + dir.resolve("nope.conf") + " is not a readable file");
        assertThat(dir.resolve("p.sock")).doesNotExist();
    }

    @Test
    void theServedPluginAnswersThroughRbdWithItsIdentityAndTheSpecsCodes() throws Exception {
        Path conf = Files.writeString(dir.resolve("site-a.conf"), "[global]\n");
        Path rbd = Files.writeString(dir.resolve("rbd"), """
                #!/bin/sh
                case "$*" in
                  *" info rbd/vol-0 --format json") echo '{"name":"vol-0","id":"1"}' ;;
                  *" ls rbd") exit 0 ;;
                  *) echo "rbd: error opening image: (2) No such file or directory" >&2; exit 2 ;;
                esac
                """);
        Files.setPosixFilePermissions(rbd, PosixFilePermissions.fromString("rwx------"));
        ServeCephCommand command = new ServeCephCommand();
        CommandLine cli = new CommandLine(command);
        String socket = "unix://" + dir.resolve("site-a.sock");
        cli.parseArgs("--listen", socket, "--ceph-conf", conf.toString(), "--pool", "rbd", "--rbd", rbd.toString());
        command.spec = cli.getCommandSpec();

        try (ServeStart.Served<?> started = command.start()) {
            CommandResult probe = run("probe", "--endpoint", socket);
            CommandResult notMirrored = run("demote", "--endpoint", socket, "--volume", "vol-0");
            CommandResult missing = run("info", "--endpoint", socket, "--volume", "vol-7");
            CommandResult group = run("enable", "--endpoint", socket, "--volume-group", "grp-0");

            assertThat(probe.exit()).as(probe.err()).isZero();
            assertThat(probe.out()).contains("rbd.ceph.volrep.io").contains("ready");
            assertThat(notMirrored.exit()).isNotZero();
            assertThat(notMirrored.err()).contains("9 FAILED_PRECONDITION", "replication is not enabled for vol-0");
            assertThat(missing.err()).contains("5 NOT_FOUND", "image vol-7 does not exist in pool rbd");
            assertThat(group.err()).contains("3 INVALID_ARGUMENT", "volumegroup sources are not supported");
        }
    }
}
