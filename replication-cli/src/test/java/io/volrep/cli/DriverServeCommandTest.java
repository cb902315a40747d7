package io.volrep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The options {@code serve-exec} and {@code serve-ceph} share through {@link DriverServeCommand}: parsed into the
 * command's own {@link ServeOptions}, and listed after the command's own options, as before they were shared.
 */
class DriverServeCommandTest {

    @Test
    void theSharedOptionsReachEachCommandAndComeAfterItsOwnInTheHelp() {
        Map<DriverServeCommand<?>, List<String>> commands = Map.of(
                new ServeExecCommand(), List.of("--driver", "/bin/true", "--listen", "127.0.0.1:0"),
                new ServeCephCommand(),
                        List.of("--listen", "127.0.0.1:0", "--ceph-conf", "/etc/ceph/a.conf", "--pool", "rbd"));
        commands.forEach((command, required) -> {
            CommandLine cli = new CommandLine(command);
            List<String> args = new ArrayList<>(required);
            args.addAll(List.of("--grace-period", "3s", "--metrics-listen", "127.0.0.1:0"));
            cli.parseArgs(args.toArray(String[]::new));

            assertThat(command.serve.gracePeriod).isEqualTo(Duration.ofSeconds(3));
            assertThat(command.serve.metrics.metricsListen).isEqualTo("127.0.0.1:0");
            List<String> optionLines = cli.getUsageMessage()
                    .lines()
                    .filter(line -> line.startsWith("      --") || line.startsWith("  -h"))
                    .map(line -> line.trim().split("[= ]")[0].replace(",", ""))
                    .toList();
            assertThat(optionLines).endsWith("--grace-period", "--metrics-listen", "-h");
            assertThat(optionLines.indexOf("--listen")).isLessThan(optionLines.indexOf("--grace-period"));
        });
    }

    @Test
    void withoutTheOptionsTheDefaultsHold() {
        ServeExecCommand command = new ServeExecCommand();
        new CommandLine(command).parseArgs("--driver", "/bin/true", "--listen", "127.0.0.1:0");

        assertThat(command.serve.gracePeriod).isEqualTo(Duration.ofSeconds(10));
        assertThat(command.serve.metrics.metricsListen).isNull();
    }
}
