package io.volrep.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code volrep} command line.
 *
 * <pre>
 * java -jar replication-cli/target/volrep.jar --help
 * </pre>
 */
@Command(name = "volrep",
        mixinStandardHelpOptions = true,
        versionProvider = VolrepCommand.Version.class,
        description = "Drive and test CSI-Addons volume replication plugins.",
        subcommands = {CommandLine.HelpCommand.class, ServeReferenceCommand.class, ServeExecCommand.class,
                EnableCommand.class, DisableCommand.class, PromoteCommand.class, DemoteCommand.class,
                ResyncCommand.class, InfoCommand.class, ConformanceCommand.class, HealCommand.class,
                ProbeCommand.class, ReconcileCommand.class, FailoverCommand.class})
public final class VolrepCommand implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Runs {@code volrep} with {@code args} and exits with its exit code. */
    public static void main(String[] args) {
        ConformanceCommand.quietEmbeddedPluginLogs(args);      // before any logger exists
        System.exit(execute(args));
    }

    /** Runs {@code volrep} with {@code args} and returns the exit code (for tests and embedding). */
    public static int execute(String... args) {
        return commandLine().execute(args);
    }

    /** The configured command line, with every subcommand. */
    public static CommandLine commandLine() {
        return new CommandLine(new VolrepCommand());
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** Reads the version Maven wrote into the jar. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() throws IOException {
            Properties p = new Properties();
            try (InputStream in = VolrepCommand.class.getResourceAsStream("version.properties")) {
                if (in != null) {
                    p.load(in);
                }
            }
            return new String[] {"volrep " + p.getProperty("version", "unknown"),
                    "JVM " + System.getProperty("java.version") + " (" + System.getProperty("java.vendor") + ")"};
        }
    }
}
