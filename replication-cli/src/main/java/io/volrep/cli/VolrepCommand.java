package io.volrep.cli;

import io.volrep.spi.ReplicationServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.logging.Level;
import java.util.logging.Logger;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code volrep} command line.
 *
 * <pre>
 * java -jar replication-cli/target/volrep.jar --help
 * </pre>
 */
@Command(
        name = "volrep",
        mixinStandardHelpOptions = true,
        versionProvider = VolrepCommand.Version.class,
        description = "Drive and test CSI-Addons volume replication plugins.",
        subcommands = {
            CommandLine.HelpCommand.class,
            ServeReferenceCommand.class,
            ServeExecCommand.class,
            ServeCephCommand.class,
            EnableCommand.class,
            DisableCommand.class,
            PromoteCommand.class,
            DemoteCommand.class,
            ResyncCommand.class,
            InfoCommand.class,
            DestinationCommand.class,
            GroupCommand.class,
            ConformanceCommand.class,
            HealCommand.class,
            ProbeCommand.class,
            ReconcileCommand.class,
            FailoverCommand.class
        })
public final class VolrepCommand implements Callable<Integer> {
    /** The exit code of a usage error: a wrong option, a missing argument, an endpoint that cannot be used. */
    static final int EXIT_USAGE = 2;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** The frame loggers' JUL side, held: java.util.logging keeps loggers (and so their levels) weakly. */
    private static final List<Logger> FRAME_LOGGERS_OFF = new ArrayList<>();

    /**
     * Keeps gRPC's HTTP/2 frame loggers ({@link io.volrep.spi.ReplicationServer#RAW_FRAME_LOGGERS}), which dump every
     * frame with its secrets as hex at DEBUG, at INFO whatever level is asked for
     * ({@code -Dorg.slf4j.simpleLogger.defaultLogLevel=debug} included): slf4j-simple reads a logger's level when it
     * creates it, so this runs in {@code main}, before any logger exists.
     */
    static void keepFrameLoggersOff() {
        for (String name : ReplicationServer.RAW_FRAME_LOGGERS) {
            System.setProperty("org.slf4j.simpleLogger.log." + name, "info");
            Logger jul = Logger.getLogger(name);
            jul.setLevel(Level.INFO);
            FRAME_LOGGERS_OFF.add(jul);
        }
    }

    /** Runs {@code volrep} with {@code args} and exits with its exit code. */
    public static void main(String[] args) {
        ConformanceCommand.quietEmbeddedPluginLogs(args); // before any logger exists
        ConformanceCommand.showSuiteCalls(args);
        Progress.quietLibraryConnectionWarnings(args);
        keepFrameLoggersOff(); // before gRPC's exist (it creates ReplicationServer's own logger: so second)
        Progress.liveLineOnTerminal = onTerminal();
        System.exit(execute(args));
    }

    /** Runs {@code volrep} with {@code args} and returns the exit code (for tests and embedding). */
    public static int execute(String... args) {
        return commandLine().execute(args);
    }

    /**
     * The configured command line, with every subcommand. A usage error prints the error and one line pointing
     * to {@code --help} (not the whole help, which would push the error off the screen) and exits 2.
     */
    public static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new VolrepCommand());
        cli.setParameterExceptionHandler(VolrepCommand::usageError);
        return cli;
    }

    private static int usageError(CommandLine.ParameterException e, String[] args) {
        CommandLine cmd = e.getCommandLine();
        PrintWriter err = cmd.getErr();
        err.println(cmd.getColorScheme().errorText(errorLine(message(e))));
        CommandLine.UnmatchedArgumentException.printSuggestions(e, err);
        err.println(helpHint(cmd));
        err.flush();
        return EXIT_USAGE;
    }

    /**
     * A usage error's message. picocli words a {@code KEY=VALUE} option's missing '=' as "Value for option option
     * '--secret' (KEY=VALUE) should be in KEY=VALUE format but was ..." (its option description already starts
     * with "option"), and repeats the value, which for {@code --secret} may be the secret itself.
     */
    static String message(CommandLine.ParameterException e) {
        String m = String.valueOf(e.getMessage());
        if (e.getArgSpec() instanceof CommandLine.Model.OptionSpec option
                && m.contains("should be in KEY=VALUE format")) {
            return "option '" + option.longestName() + "' takes KEY=VALUE; the value given has no '=' (not shown:"
                    + " it may be a secret)";
        }
        return m;
    }

    /**
     * A usage error's one form, whoever found it (picocli words its own "Error: Missing required argument ...",
     * "Missing required option ...", "Invalid value for option ..."): {@code error: } and the message, starting in
     * lower case, as every other error line of the command line does ({@code error: a command is required}).
     */
    static String errorLine(String message) {
        String m = message.startsWith("Error: ") ? message.substring("Error: ".length()) : message;
        if (m.length() > 1 && Character.isUpperCase(m.charAt(0)) && Character.isLowerCase(m.charAt(1))) {
            m = Character.toLowerCase(m.charAt(0)) + m.substring(1);
        }
        return "error: " + m;
    }

    /** The line that follows a usage error, e.g. {@code Try 'volrep info --help' for the options.} */
    static String helpHint(CommandLine cmd) {
        return "Try '" + cmd.getCommandSpec().qualifiedName() + " --help' for the options.";
    }

    /** {@code volrep} alone: the command list on stderr and exit 2 (a script that forgot its command fails). */
    @Override
    public Integer call() {
        CommandLine cmd = spec.commandLine();
        cmd.usage(cmd.getErr());
        cmd.getErr().println("error: a command is required");
        cmd.getErr().flush();
        return EXIT_USAGE;
    }

    /** One line and {@link #EXIT_USAGE} for a command that cannot start (e.g. an address it cannot listen on). */
    static int cannotStart(CommandLine.Model.CommandSpec spec, Throwable e) {
        PrintWriter err = spec.commandLine().getErr();
        err.println(spec.qualifiedName() + ": " + e.getMessage());
        err.flush();
        return EXIT_USAGE;
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
            return new String[] {
                "volrep " + p.getProperty("version", "unknown"),
                "JVM " + System.getProperty("java.version") + " (" + System.getProperty("java.vendor") + ")"
            };
        }
    }

    /**
     * Whether the command runs on a terminal, where a live progress line may redraw itself. On Java 17 (our
     * baseline) {@link System#console()} is null exactly when stdin or stdout is not a terminal; from Java 22 it is
     * never null and {@code Console.isTerminal()} tells.
     */
    @SuppressWarnings("SystemConsoleNull") // the Java 17 meaning, above
    static boolean onTerminal() {
        return System.console() != null;
    }
}
