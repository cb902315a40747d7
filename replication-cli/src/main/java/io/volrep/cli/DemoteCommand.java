package io.volrep.cli;

import io.volrep.client.SourceClient;
import picocli.CommandLine.Command;

/** {@code volrep demote}: Demote a source to secondary (DemoteVolume). */
@Command(name = "demote", mixinStandardHelpOptions = true, description = "Demote a source to secondary (DemoteVolume).")
public final class DemoteCommand extends ForceableCallCommand {
    @Override
    String invoke(SourceClient source) {
        return callForOk(source.demote().force(force));
    }
}
