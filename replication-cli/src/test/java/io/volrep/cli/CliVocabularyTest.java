package io.volrep.cli;

import static io.volrep.cli.CallCommandsTest.volrep;
import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.cli.CallCommandsTest.Run;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * One vocabulary across the {@code volrep} commands (issue 49 point 11): a usage error reads the same whatever
 * picocli or a command found wrong; {@code -v} means the same in every command that has it; the budget of a call
 * is {@code --timeout} everywhere; key-value options name their placeholder {@code KEY=VALUE}.
 */
class CliVocabularyTest {

    /** Every command and subcommand, e.g. {@code volrep group create}. */
    static List<CommandSpec> commands() {
        List<CommandSpec> all = new ArrayList<>();
        collect(VolrepCommand.commandLine(), all);
        return all;
    }

    private static void collect(CommandLine cli, List<CommandSpec> all) {
        all.add(cli.getCommandSpec());
        cli.getSubcommands().values().stream()
                .filter(sub -> !sub.getCommandName().equals("help"))
                .distinct()
                .forEach(sub -> collect(sub, all));
    }

    static Stream<List<String>> usageErrors() {
        return Stream.of(
                List.of("info"), // a missing required argument group
                List.of("info", "--volume"), // an option without its value
                List.of("info", "--volume", "v", "--timeout", "x"), // a value that does not convert
                List.of("info", "--volume", "v", "--secret", "nokey"), // KEY=VALUE without '='
                List.of("failover", "--from", "/tmp/a.sock"), // a missing required option
                List.of("failover", "--from", "/tmp/a.sock", "--to", "/tmp/b.sock"), // checked by the command
                List.of("serve-exec"), // several missing options
                List.of("bogus"), // an unknown command
                List.of("conformance", "--endpoint", "/tmp/x.sock"), // checked by the command
                List.of("group", "list", "--max-entries", "-1"));
    }

    @ParameterizedTest
    @MethodSource("usageErrors")
    void everyUsageErrorReadsTheSame(List<String> args) {
        Run run = volrep(args.toArray(String[]::new));

        assertThat(run.exit()).as(run.all()).isEqualTo(VolrepCommand.EXIT_USAGE);
        List<String> lines = run.err().lines().toList();
        assertThat(lines.get(0)).as(run.err()).startsWith("error: ").doesNotStartWith("error: Error");
        assertThat(lines.get(0).charAt("error: ".length()))
                .as("lower case after 'error: ', as in every error line: %s", lines.get(0))
                .matches(c -> !Character.isUpperCase(c) || lines.get(0).matches("error: [A-Z]{2}.*"));
        assertThat(lines.get(lines.size() - 1)).matches("Try 'volrep[a-z -]*--help' for the options\\.");
        assertThat(run.out()).isEmpty();
    }

    @Test
    void aCommandOrSubcommandAloneIsTheSameError() {
        assertThat(volrep().err().lines().reduce((a, b) -> b)).hasValue("error: a command is required");
        assertThat(volrep("group").err().lines().reduce((a, b) -> b)).hasValue("error: a subcommand is required");
    }

    @Test
    void dashVMeansEachCallEverywhere() {
        List<String> without = new ArrayList<>();
        for (CommandSpec c : commands()) {
            OptionSpec v = c.findOption("-v");
            if (v != null) {
                assertThat(v.names()).as(c.qualifiedName()).containsExactlyInAnyOrder("-v", "--verbose");
                assertThat(String.join(" ", v.description()))
                        .as("-v of %s", c.qualifiedName())
                        .startsWith("Print each call");
            } else if (c.findOption("--endpoint") != null || c.findOption("--from") != null) {
                without.add(c.qualifiedName());
            }
        }
        assertThat(without).as("commands that call a plugin without -v").isEmpty();
        OptionSpec referenceLog = specOf("conformance").findOption("--reference-log");
        assertThat(referenceLog)
                .as("the embedded reference's log, reachable under its own name")
                .isNotNull();
    }

    @Test
    @SuppressWarnings("ReferenceEquality") // an alias is the very same option spec
    void theBudgetOfACallIsTimeoutEverywhere() {
        for (CommandSpec c : commands()) {
            assertThat(c.findOption("--call-timeout") == null
                            || c.findOption("--call-timeout") == c.findOption("--timeout"))
                    .as("%s: --call-timeout is only an alias of --timeout", c.qualifiedName())
                    .isTrue();
            OptionSpec timeout = c.findOption("--timeout");
            if (c.findOption("--endpoint") != null || c.findOption("--from") != null) {
                assertThat(timeout).as("%s has --timeout", c.qualifiedName()).isNotNull();
            }
            if (timeout != null) {
                assertThat(String.join(" ", timeout.description()))
                        .as("%s says its default and why", c.qualifiedName())
                        .containsPattern("default[: ]")
                        .contains(" because ");
            }
        }
    }

    @Test
    void failoverSpeaksTheDialectsAndIsVerboseLikeTheTypedCalls() {
        CommandSpec failover = specOf("failover");
        assertThat(failover.findOption("--dialect")).isNotNull();
        assertThat(failover.findOption("-v")).isNotNull();
    }

    @Test
    void keyValueOptionsAreKeyEqualsValue() {
        Map<String, String> allowed = Map.of(
                "--healer-volume", "ID=PATH",
                "--healer-block-volume", "ID=PATH",
                "--destination", "SRC=DST",
                "--env", "NAME=VALUE");
        for (CommandSpec c : commands()) {
            for (OptionSpec o : c.options()) {
                if (o.paramLabel().contains("=")) {
                    assertThat(o.paramLabel())
                            .as("%s %s", c.qualifiedName(), o.longestName())
                            .isEqualTo(allowed.getOrDefault(o.longestName(), "KEY=VALUE"));
                }
            }
        }
    }

    private static CommandSpec specOf(String name) {
        return VolrepCommand.commandLine().getSubcommands().get(name).getCommandSpec();
    }
}
