package io.volrep.cli;

import io.volrep.client.SourceClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code volrep promote}: Promote a source to primary (PromoteVolume). */
@Command(name = "promote", mixinStandardHelpOptions = true, description = "Promote a source to primary (PromoteVolume).")
public final class PromoteCommand extends ParameterizedCallCommand {
    @Option(names = "--force", description = "Set the request's force flag.")
    boolean force;

    @Override
    String invoke(SourceClient source) {
        source.promote().parameters(parameters).replicationId(replicationId).force(force).call();
        return "PromoteVolume " + source.source() + ": OK";
    }
}
