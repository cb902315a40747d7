package io.volrep.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;

/**
 * A {@code volrep} subcommand: picocli injects its spec here; {@link #out()} and {@link #err()} are the command
 * line's writers (what tests capture), never {@code System.out}; {@link #usageError} reports a bad option.
 */
abstract class Subcommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Where results go. */
    final PrintWriter out() {
        return spec.commandLine().getOut();
    }

    /** Where progress, warnings and errors go. */
    final PrintWriter err() {
        return spec.commandLine().getErr();
    }

    /** A usage error: picocli prints {@code message} and the command's usage, and exits 2. */
    final CommandLine.ParameterException usageError(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }
}
