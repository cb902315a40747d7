package io.volrep.cli;

import io.volrep.client.SourceClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code volrep demote}: Demote a source to secondary (DemoteVolume). */
@Command(name = "demote", mixinStandardHelpOptions = true, description = "Demote a source to secondary (DemoteVolume).")
public final class DemoteCommand extends ParameterizedCallCommand {
    @Option(names = "--force", description = "Set the request's force flag.")
    boolean force;

    @Override
    String invoke(SourceClient source) {
        source.demote().parameters(parameters).replicationId(replicationId).force(force).call();
        return "DemoteVolume " + source.source() + ": OK";
    }
}
