package io.volrep.cli;

import io.volrep.api.SpecDialect;
import io.volrep.spi.ReplicationServer;
import io.volrep.spi.ServeUntilSignal;

import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testkit.reference.ReferencePlugin;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code volrep serve-reference}: the in-memory reference plugin, served until SIGTERM or SIGINT.
 *
 * <pre>
 * volrep serve-reference --listen unix:///tmp/ref.sock --volumes 16 --groups 2 --secret user=admin
 * volrep serve-reference --dialect v0.1.3 --abnormal-volume vol-3      # a legacy plugin with a sick volume
 * </pre>
 */
@Command(name = "serve-reference",
        mixinStandardHelpOptions = true,
        versionProvider = VolrepCommand.Version.class,
        description = {"Serve the in-memory reference replication plugin (spec semantics) until SIGTERM or SIGINT.",
                "Creates volumes vol-0..vol-(N-1) and groups grp-0..grp-(N-1), all disabled and primary, and "
                        + "prints 'listening on <address>' once ready.",
                "Also serves healer.HealerNode (every volume healthy at any path unless --abnormal-volume) and "
                        + "identity.Identity (reference.volrep.io)."})
public final class ServeReferenceCommand extends Subcommand {

    @Option(names = "--listen", paramLabel = "URI", defaultValue = ReferencePlugin.DEFAULT_LISTEN,
            converter = Endpoint.ListenConverter.class,
            description = "unix:///path or /path (in an existing directory), host:port (port 0 picks one) or "
                    + "tcp://host:port.%nDefault: ${DEFAULT-VALUE}")
    String listen;

    @Option(names = "--volumes", paramLabel = "N", defaultValue = "16",
            description = "Volumes vol-0..vol-(N-1). Default: ${DEFAULT-VALUE}")
    int volumes;

    @Option(names = "--groups", paramLabel = "N", defaultValue = "2",
            description = "Volume groups grp-0..grp-(N-1). Default: ${DEFAULT-VALUE}")
    int groups;

    /** Secrets every call must carry; others get UNAUTHENTICATED. Default: none. */
    @CommandLine.Mixin
    SecretOptions secrets;

    @Option(names = "--latency", paramLabel = "DURATION", defaultValue = "0",
            description = "How long every call takes: 250ms, 2s or PT2S. Default: ${DEFAULT-VALUE}")
    String latency;

    @Option(names = "--resync-calls", paramLabel = "N", defaultValue = "2",
            description = "Which ResyncVolume call reports ready (at least 1). Default: ${DEFAULT-VALUE}")
    int resyncCalls;

    @Option(names = "--abnormal-volume", paramLabel = "ID",
            description = "A volume NodeHealer reports abnormal (repeatable). Default: none")
    List<String> abnormalVolumes = new ArrayList<>();

    @Option(names = "--degraded-volume", paramLabel = "ID",
            description = "A volume whose replication info reports status DEGRADED with a message (repeatable)."
                    + " Default: none")
    List<String> degradedVolumes = new ArrayList<>();

    @Option(names = "--dialect", paramLabel = "REVISION", defaultValue = "current",
            converter = ClientOptions.DialectConverter.class,
            description = "The replication spec revision to serve: current, upstream-2026, v0.1.3 or v0.1.0. Default: ${DEFAULT-VALUE}")
    SpecDialect dialect;

    @Option(names = "--grace-period", paramLabel = "DURATION", defaultValue = "10s",
            description = "How long shutdown lets calls in flight finish: 30s, 2m or PT30S. Default: ${DEFAULT-VALUE}")
    String gracePeriod;

    @CommandLine.Mixin
    MetricsOptions metrics = new MetricsOptions();

    @Override
    public Integer call() throws Exception {
        if (volumes < 0 || groups < 0) {
            throw usageError("--volumes and --groups must not be negative");
        }
        Duration latencyValue;
        Duration grace;
        Map<String, String> requiredSecrets;
        try {
            latencyValue = DurationConverter.parse(latency);
            grace = DurationConverter.parse(gracePeriod);
            if (metrics.metricsListen != null) {
                MetricsOptions.parse(metrics.metricsListen);
            }
            requiredSecrets = secrets.secrets();
        } catch (IllegalArgumentException e) {
            throw usageError(e.getMessage());
        }
        ReferenceDriver.Builder reference = ReferenceDriver.builder().volumes(volumes).groups(groups)
                .requiredSecrets(requiredSecrets).latency(latencyValue).resyncCallsUntilReady(Math.max(1, resyncCalls));
        abnormalVolumes.forEach(reference::abnormalVolume);
        degradedVolumes.forEach(reference::degradedVolume);
        PrintWriter out = out();
        ReplicationServer server;
        try {
            server = ServeStart.start(metrics.bind(ReferencePlugin.serverBuilder(reference.build()).dialect(dialect)
                    .listen(listen).gracePeriod(grace)));
        } catch (ServeStart.CannotListen e) {
            return ServeStart.report(spec, e);
        }
        MetricsOptions.Endpoint endpoint;
        try {
            endpoint = metrics.startAnnounced(err());
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        return ServeUntilSignal.run(server, endpoint.after(server::close), out);
    }
}
