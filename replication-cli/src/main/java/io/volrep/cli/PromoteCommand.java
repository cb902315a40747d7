package io.volrep.cli;

import io.volrep.client.SourceClient;
import picocli.CommandLine.Command;

/** {@code volrep promote}: Promote a source to primary (PromoteVolume). */
@Command(
        name = "promote",
        mixinStandardHelpOptions = true,
        description = "Promote a source to primary (PromoteVolume).")
public final class PromoteCommand extends ForceableCallCommand {
    @Override
    String invoke(SourceClient source) {
        return callForOk(source.promote().force(force));
    }
}
