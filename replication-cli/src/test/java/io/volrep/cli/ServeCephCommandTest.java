package io.volrep.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.volrep.ceph.CephRbdDriver;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code volrep serve-ceph} without a Ceph cluster: its options, and the plugin it serves on a unix socket answering
 * while its cluster is not there (the real cluster is in the Ceph integration tests).
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
    void aLimitOfCallsBelowOneIsAUsageError() throws Exception {
        Path conf = Files.writeString(dir.resolve("site-a.conf"), "[global]\n");
        CommandResult r = run(
                "serve-ceph",
                "--listen",
                "unix://" + dir.resolve("p.sock"),
                "--ceph-conf",
                conf.toString(),
                "--pool",
                "rbd",
                "--max-concurrent-calls",
                "0");

        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).startsWith("error: --max-concurrent-calls: 0 is not at least 1");
    }

    @Test
    void withoutTheCephLibrariesServeCephRefusesToStartNamingThePackages() throws Exception {
        assumeTrue(CephRbdDriver.nativeLibrariesMissing() != null, "librados and librbd are installed here");
        Path conf = Files.writeString(dir.resolve("site-a.conf"), "[global]\n");
        CommandResult r = run(
                "serve-ceph",
                "--listen",
                "unix://" + dir.resolve("p.sock"),
                "--ceph-conf",
                conf.toString(),
                "--pool",
                "rbd");

        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("librados2 librbd1");
    }

    @Test
    void theServedPluginAnswersWithItsIdentityAndTheSpecsCodesWhileItsClusterIsNotThere() throws Exception {
        assumeTrue(CephRbdDriver.nativeLibrariesMissing() == null, "librados and librbd are not installed here");
        // a cluster nobody runs: no mon at that address, no keyring
        Path conf = Files.writeString(dir.resolve("site-a.conf"), "[global]\nmon_host = 127.0.0.1:9\n");
        ServeCephCommand command = new ServeCephCommand();
        CommandLine cli = new CommandLine(command);
        String socket = "unix://" + dir.resolve("site-a.sock");
        cli.parseArgs("--listen", socket, "--ceph-conf", conf.toString(), "--pool", "rbd", "--timeout", "3s");
        command.spec = cli.getCommandSpec();

        try (ServeStart.Served<?> started = command.start()) {
            CommandResult probe = run("probe", "--endpoint", socket);
            // one attempt, waited for generously: the plugin's own 3 s budget decides the answer, not the load
            CommandResult demote =
                    run("demote", "--endpoint", socket, "--volume", "vol-0", "--max-attempts", "1", "--timeout", "2m");
            CommandResult group = run("enable", "--endpoint", socket, "--volume-group", "grp-0");

            assertThat(probe.out()).contains("rbd.ceph.volrep.io").contains("ready:        false");
            assertThat(demote.exit()).isNotZero();
            assertThat(demote.err()).contains("14 UNAVAILABLE", "site site-a");
            assertThat(group.err()).contains("3 INVALID_ARGUMENT", "volumegroup sources are not supported");
        }
    }
}
