package io.volrep.cli;

import io.volrep.client.SourceClient;
import picocli.CommandLine.Command;

/** {@code volrep disable}: Disable replication of a source (DisableVolumeReplication). */
@Command(
        name = "disable",
        mixinStandardHelpOptions = true,
        description = "Disable replication of a source (DisableVolumeReplication).")
public final class DisableCommand extends ParameterizedCallCommand {
    @Override
    String invoke(SourceClient source) {
        return callForOk(source.disable());
    }
}
