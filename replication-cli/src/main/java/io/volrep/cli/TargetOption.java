package io.volrep.cli;

import io.volrep.client.ReplicationClient;
import picocli.CommandLine.Option;

/** {@code --endpoint}, the plugin to call: a picocli mixin of the call commands' {@link ClientOptions} and of probe. */
final class TargetOption {
    @Option(
            names = "--endpoint",
            paramLabel = "URI",
            defaultValue = ReplicationClient.DEFAULT_TARGET,
            converter = Endpoint.TargetConverter.class,
            description = "The plugin: unix:///path, /path (a unix socket), dns:///host:port or host:port "
                    + "(default: ${DEFAULT-VALUE}).")
    String endpoint;
}
