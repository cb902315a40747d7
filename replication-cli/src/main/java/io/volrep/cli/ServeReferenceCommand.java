package io.volrep.cli;

import io.volrep.api.SpecDialect;
import io.volrep.spi.ReplicationServer;
import io.volrep.spi.ServeUntilSignal;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testkit.reference.ReferencePair;
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
 * volrep serve-reference --listen unix:///tmp/a.sock --peer-listen unix:///tmp/b.sock \
 *         --demotion-window 3s --first-sync-delay 5s                   # two sites, with real storage's windows
 * </pre>
 */
@Command(
        name = "serve-reference",
        mixinStandardHelpOptions = true,
        versionProvider = VolrepCommand.Version.class,
        description = {
            "Serve the in-memory reference replication plugin (spec semantics) until SIGTERM or SIGINT.",
            "Creates volumes vol-0..vol-(N-1) and groups grp-0..grp-(N-1), all disabled and primary, and "
                    + "prints 'listening on <address>' once ready.",
            "Also serves healer.HealerNode (every volume healthy at any path unless --abnormal-volume) and "
                    + "identity.Identity (reference.volrep.io).",
            "With --peer-listen it serves two sites of one replication pair per source (same ids): enable on a "
                    + "site makes its copy primary and the other's secondary; a promote without force is refused "
                    + "while the other site is primary and within --demotion-window after its demote; a resync is "
                    + "ready only while the other site is primary; disable removes both copies."
        })
public final class ServeReferenceCommand extends Subcommand {

    @Option(
            names = "--listen",
            paramLabel = "URI",
            defaultValue = ReferencePlugin.DEFAULT_LISTEN,
            converter = Endpoint.ListenConverter.class,
            description = "unix:///path or /path (in an existing directory), host:port (port 0 picks one) or "
                    + "tcp://host:port.%nDefault: ${DEFAULT-VALUE}")
    String listen;

    @Option(
            names = "--peer-listen",
            paramLabel = "URI",
            converter = Endpoint.ListenConverter.class,
            description = "Also serve the peer site here: the two endpoints are the two sites of one replication "
                    + "pair per source. Default: one site")
    String peerListen;

    @Option(
            names = "--demotion-window",
            paramLabel = "DURATION",
            defaultValue = "0",
            description = "With --peer-listen: for this long after a site's demote, the other site refuses a "
                    + "promote without force with 9 FAILED_PRECONDITION (\"cannot be promoted without force yet\"), "
                    + "as real mirroring does until the demotion has arrived. Default: ${DEFAULT-VALUE}")
    String demotionWindow;

    @Option(
            names = "--first-sync-delay",
            paramLabel = "DURATION",
            defaultValue = "0",
            description = "For this long after an enable or a promote, GetVolumeReplicationInfo answers 5 NOT_FOUND "
                    + "(\"details not available at the moment\"): the first sync has not completed. "
                    + "Default: ${DEFAULT-VALUE}")
    String firstSyncDelay;

    @Option(
            names = "--volumes",
            paramLabel = "N",
            defaultValue = "16",
            description = "Volumes vol-0..vol-(N-1). Default: ${DEFAULT-VALUE}")
    int volumes;

    @Option(
            names = "--groups",
            paramLabel = "N",
            defaultValue = "2",
            description = "Volume groups grp-0..grp-(N-1). Default: ${DEFAULT-VALUE}")
    int groups;

    /** Secrets every call must carry; others get UNAUTHENTICATED. Default: none. */
    @CommandLine.Mixin
    SecretOptions secrets;

    @Option(
            names = "--latency",
            paramLabel = "DURATION",
            defaultValue = "0",
            description = "How long every call takes: 250ms, 2s or PT2S. Default: ${DEFAULT-VALUE}")
    String latency;

    @Option(
            names = "--resync-calls",
            paramLabel = "N",
            defaultValue = "2",
            description = "Which ResyncVolume call reports ready (at least 1). Default: ${DEFAULT-VALUE}")
    int resyncCalls;

    @Option(
            names = "--abnormal-volume",
            paramLabel = "ID",
            description = "A volume NodeHealer reports abnormal (repeatable). Default: none")
    List<String> abnormalVolumes = new ArrayList<>();

    @Option(
            names = "--degraded-volume",
            paramLabel = "ID",
            description = "A volume whose replication info reports status DEGRADED with a message (repeatable)."
                    + " Default: none")
    List<String> degradedVolumes = new ArrayList<>();

    @Option(
            names = "--dialect",
            paramLabel = "REVISION",
            defaultValue = "current",
            converter = ClientOptions.DialectConverter.class,
            description =
                    "The replication spec revision to serve: current, upstream-2026, v0.1.3 or v0.1.0. Default: ${DEFAULT-VALUE}")
    SpecDialect dialect;

    @Option(
            names = "--grace-period",
            paramLabel = "DURATION",
            defaultValue = "10s",
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
        Duration window;
        Duration delay;
        Map<String, String> requiredSecrets;
        try {
            latencyValue = DurationConverter.parse(latency);
            window = DurationConverter.parse(demotionWindow);
            delay = DurationConverter.parse(firstSyncDelay);
            grace = DurationConverter.parse(gracePeriod);
            if (metrics.metricsListen != null) {
                MetricsOptions.parse(metrics.metricsListen);
            }
            requiredSecrets = secrets.secrets();
        } catch (IllegalArgumentException e) {
            throw usageError(e.getMessage());
        }
        ReferenceDriver.Builder reference = ReferenceDriver.builder()
                .volumes(volumes)
                .groups(groups)
                .requiredSecrets(requiredSecrets)
                .latency(latencyValue)
                .resyncCallsUntilReady(Math.max(1, resyncCalls))
                .demotionWindow(window)
                .firstSyncDelay(delay);
        abnormalVolumes.forEach(reference::abnormalVolume);
        degradedVolumes.forEach(reference::degradedVolume);
        PrintWriter out = out();
        ReplicationServer server;
        ReplicationServer peer = null;
        ReferenceDriver siteA;
        ReferenceDriver siteB = null;
        if (peerListen != null) {
            ReferencePair pair = reference.buildPair();
            siteA = pair.siteA();
            siteB = pair.siteB();
        } else {
            siteA = reference.build();
        }
        try {
            server = ServeStart.start(metrics.bind(ReferencePlugin.serverBuilder(siteA)
                    .dialect(dialect)
                    .listen(listen)
                    .gracePeriod(grace)));
        } catch (ServeStart.CannotListen e) {
            return ServeStart.report(spec, e);
        }
        if (siteB != null) {
            try {
                peer = ServeStart.start(ReferencePlugin.serverBuilder(siteB)
                        .dialect(dialect)
                        .listen(peerListen)
                        .gracePeriod(grace));
            } catch (ServeStart.CannotListen e) {
                server.close();
                return ServeStart.report(spec, e);
            }
            out.println("peer site listening on " + peer.address());
            out.flush();
        }
        ReplicationServer peerServer = peer;
        MetricsOptions.Endpoint endpoint;
        try {
            endpoint = metrics.startAnnounced(err());
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        Runnable close = peerServer == null
                ? server::close
                : () -> {
                    try {
                        peerServer.close();
                    } finally {
                        server.close();
                    }
                };
        return ServeUntilSignal.run(server, endpoint.after(close), out);
    }
}
