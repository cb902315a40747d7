package io.volrep.cli;

import io.volrep.client.SourceClient;
import picocli.CommandLine.Command;

/** {@code volrep enable}: Enable replication of a source (EnableVolumeReplication). */
@Command(
        name = "enable",
        mixinStandardHelpOptions = true,
        description = "Enable replication of a source (EnableVolumeReplication).")
public final class EnableCommand extends ParameterizedCallCommand {
    @Override
    String invoke(SourceClient source) {
        return callForOk(source.enable());
    }
}
