package io.volrep.cli;

import picocli.CommandLine.Option;

/** A call command with {@code --force}: promote, demote and resync (the client's ForceableCall). */
abstract class ForceableCallCommand extends ParameterizedCallCommand {
    @Option(names = "--force", description = "Set the request's force flag.")
    boolean force;
}
