package io.volrep.cli;

import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Mixin;

/**
 * A command on one source of one plugin: the call commands ({@link CallCommand}) and {@code volrep reconcile}.
 * It holds their shared options: the plugin and how to call it ({@link ClientOptions}) and exactly one source
 * ({@link SourceSelection}).
 */
abstract class SourceCommand extends Subcommand {
    @Mixin
    ClientOptions client;

    @ArgGroup(exclusive = true, multiplicity = "1")
    SourceSelection source;
}
