package io.volrep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.spi.exec.ExecDriver;
import io.volrep.testsupport.GrpcCleanup;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.Assertions;
import org.assertj.core.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code volrep serve-exec} with the example driver of examples/exec-driver: the conformance suite passes
 * against it on a unix socket, bad drivers fail to start with a clear message, SIGTERM stops it cleanly.
 */
class ServeExecCommandTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    static final Path EXAMPLE =
            Path.of("..", "examples", "exec-driver", "volrep-exec-example").toAbsolutePath();

    @TempDir
    Path dir;

    private ServeExecCommand parse(String... args) {
        ServeExecCommand command = new ServeExecCommand();
        CommandLine cli = new CommandLine(command);
        cli.parseArgs(args);
        command.spec = cli.getCommandSpec();
        return command;
    }

    @Test
    void theConformanceSuitePassesAgainstTheServedExample() throws Exception {
        Path secrets = Files.writeString(dir.resolve("secrets.json"), "{\"user\":\"admin\"}");
        ServeExecCommand command = parse(
                "--driver",
                EXAMPLE.toString(),
                "--listen",
                "unix://" + dir.resolve("x.sock"),
                "--timeout",
                "20s",
                "--env",
                "VOLREP_EXEC_STATE_DIR=" + dir.resolve("state"),
                "--env",
                "VOLREP_EXEC_VOLUMES=1",
                "--env",
                "VOLREP_EXEC_GROUPS=1",
                "--env",
                "VOLREP_EXEC_SECRETS_FILE=" + secrets);
        ServeStart.Served<ExecDriver> started = grpc.register(command.start());
        CommandLine cli = VolrepCommand.commandLine();
        StringWriter out = new StringWriter();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(out));
        // One process per call: the required checks, the lifecycle walk and authentication for volumes, not the
        // group walk, isolation and round trips (the whole suite passes against the example too, but takes
        // minutes); this keeps the test at about the size it had before the walk.
        int exit = cli.execute(
                "conformance",
                "--endpoint",
                started.server().address(),
                "--volume",
                "vol-0",
                "--volume-group",
                "grp-0",
                "--secret",
                "user=admin",
                "--resync-timeout",
                "60s",
                "--call-timeout",
                "30s",
                "--reports-dir",
                dir.resolve("reports").toString(),
                "--include-tag",
                "required",
                "--skip",
                "*/group/*",
                "--skip",
                "isolation/*",
                "--skip",
                "response-validity/*");
        System.out.println(out);
        assertThat(exit).as(out.toString()).isZero();
        assertThat(out.toString())
                .contains("COMPLIANT")
                .doesNotContain("FAIL ")
                .contains("PASS            required PromoteVolume: allowed -> 0 OK, then primary [volume, "
                        + "replication enabled, secondary]");
    }

    @Test
    void theDriverGetsTheMinimalEnvironmentAndWhatPassEnvNames() throws Exception {
        List<String> others = System.getenv().keySet().stream()
                .filter(n -> !ExecDriver.DEFAULT_PASSED_ENVIRONMENT.contains(n))
                .filter(n -> !Set.of("PWD", "OLDPWD", "SHLVL", "_").contains(n))
                .sorted()
                .toList();
        Assumptions.assumeThat(others).hasSizeGreaterThan(1);
        Path seen = dir.resolve("env");
        Path driver = dir.resolve("env-driver");
        Files.writeString(driver, "#!/bin/sh\nenv > '" + seen + "'\necho '{\"status\":\"Success\"}'\n");
        driver.toFile().setExecutable(true);
        ServeExecCommand command = parse(
                "--driver",
                driver.toString(),
                "--listen",
                "unix://" + dir.resolve("e.sock"),
                "--pass-env",
                others.get(0),
                "--env",
                "MY_DRIVER_CONFIG=/etc/my.conf");
        grpc.register(command.start());
        List<String> names = Files.readAllLines(seen).stream()
                .filter(l -> l.indexOf('=') > 0)
                .map(l -> l.substring(0, l.indexOf('=')))
                .toList();
        assertThat(names)
                .contains(others.get(0), "MY_DRIVER_CONFIG", "PATH")
                .doesNotContainAnyElementsOf(others.subList(1, others.size()));
        assertThat(parse(
                        "--driver",
                        driver.toString(),
                        "--listen",
                        "unix://" + dir.resolve("f.sock"),
                        "--pass-env",
                        "A=B"))
                .satisfies(c -> Assertions.assertThatThrownBy(c::start).hasMessageContaining("--pass-env"));
    }

    @Test
    void aDriverThatCannotInitializeFailsWithExitOne() throws Exception {
        Path broken = dir.resolve("broken");
        Files.writeString(broken, """
                #!/bin/sh
                echo '{"status":"Failure","message":"no array configured"}'
                exit 1
                """);
        broken.toFile().setExecutable(true);
        for (String[] args : new String[][] {
            {"serve-exec", "--driver", broken.toString(), "--listen", "unix://" + dir.resolve("b.sock")},
            {"serve-exec", "--driver", dir.resolve("missing").toString(), "--listen", "unix://" + dir.resolve("b.sock")
            },
        }) {
            CommandLine cli = VolrepCommand.commandLine();
            StringWriter err = new StringWriter();
            cli.setErr(new PrintWriter(err));
            assertThat(cli.execute(args)).isEqualTo(1);
            assertThat(err.toString()).startsWith("volrep serve-exec: exec driver ");
        }
        assertThat(err(new String[] {
                    "serve-exec", "--driver", EXAMPLE.toString(), "--listen", "127.0.0.1:0", "--timeout", "soon"
                }))
                .contains("not a duration");
    }

    @Test
    void metricsListenMetersTheDriverProcesses() throws Exception {
        Path driver = dir.resolve("driver");
        Files.writeString(driver, "#!/bin/sh\necho '{\"status\":\"Success\"}'\n");
        driver.toFile().setExecutable(true);
        ServeExecCommand command = parse(
                "--driver",
                driver.toString(),
                "--listen",
                "unix://" + dir.resolve("m.sock"),
                "--max-concurrent-drivers",
                "3",
                "--containment",
                "off",
                "--metrics-listen",
                "127.0.0.1:0");
        grpc.register(command.start());
        var registry = command.serve.metrics.registry();
        assertThat(registry.get("volrep.exec.drivers.limit").gauge().value()).isEqualTo(3.0);
        assertThat(registry.get("volrep.exec.drivers.running").gauge().value()).isZero();
        assertThat(registry.scrape()).contains("volrep_exec_drivers_killed_total 0.0");
    }

    @Test
    void admissionAndContainmentFlagsReachTheDriver() throws Exception {
        Path driver = dir.resolve("driver");
        Files.writeString(driver, "#!/bin/sh\necho '{\"status\":\"Success\"}'\n");
        driver.toFile().setExecutable(true);
        String listen = "unix://" + dir.resolve("f.sock");
        ServeStart.Served<ExecDriver> uncontained = grpc.register(parse(
                        "--driver",
                        driver.toString(),
                        "--listen",
                        listen,
                        "--max-concurrent-drivers",
                        "3",
                        "--containment",
                        "OFF")
                .start());
        assertThat(uncontained.driver().stats().limit()).isEqualTo(3);
        assertThat(uncontained.driver().contained()).isFalse();
        ServeStart.Served<ExecDriver> contained = grpc.register(parse(
                        "--driver",
                        driver.toString(),
                        "--listen",
                        "unix://" + dir.resolve("g.sock"),
                        "--containment",
                        "required")
                .start());
        assertThat(contained.driver().stats().limit()).isEqualTo(ExecDriver.defaultMaxConcurrentDrivers());
        assertThat(contained.driver().contained()).isTrue();
        assertThat(err(new String[] {
                    "serve-exec", "--driver", driver.toString(), "--listen", listen, "--max-concurrent-drivers", "0"
                }))
                .contains("--max-concurrent-drivers", "at least 1");
        assertThat(err(new String[] {
                    "serve-exec", "--driver", driver.toString(), "--listen", listen, "--containment", "maybe"
                }))
                .contains("not a containment", "auto, required or off");
    }

    private static String err(String[] args) {
        CommandLine cli = VolrepCommand.commandLine();
        StringWriter err = new StringWriter();
        cli.setErr(new PrintWriter(err));
        assertThat(cli.execute(args)).isEqualTo(2);
        return err.toString();
    }

    @Test
    void sigtermStopsTheServerCleanly() throws Exception {
        Path socket = dir.resolve("t.sock");
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                VolrepCommand.class.getName(),
                "serve-exec",
                "--driver",
                EXAMPLE.toString(),
                "--listen",
                "unix://" + socket,
                "--timeout",
                "PT30S",
                "--env",
                "VOLREP_EXEC_STATE_DIR=" + dir.resolve("state")));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try (BufferedReader out =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            String listening = null;
            while ((line = out.readLine()) != null) {
                if (line.startsWith("listening on ")) {
                    listening = line;
                    break;
                }
            }
            assertThat(listening).isEqualTo("listening on unix://" + socket);
            assertThat(Files.exists(socket)).isTrue();
            process.destroy(); // SIGTERM
            assertThat(process.waitFor(5, TimeUnit.MINUTES)).isTrue();
            assertThat(process.exitValue())
                    .as("exit status after a clean drain")
                    .isZero();
            assertThat(Files.exists(socket)).as("socket removed on shutdown").isFalse();
        } finally {
            process.destroyForcibly();
        }
    }
}
