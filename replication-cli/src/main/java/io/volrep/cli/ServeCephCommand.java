package io.volrep.cli;

import io.volrep.api.internal.SafeText;
import io.volrep.ceph.CephRbdDriver;
import io.volrep.spi.ReplicationServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code volrep serve-ceph}: serves the Ceph RBD snapshot-mirroring driver (replication-ceph) for one site's cluster
 * and pool until SIGTERM or SIGINT. Both sites run one each.
 *
 * <pre>
 * volrep serve-ceph --listen unix:///run/volrep/site-a.sock --ceph-conf /etc/ceph/site-a.conf --pool rbd
 * </pre>
 */
@Command(
        name = "serve-ceph",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Serve Ceph RBD snapshot mirroring of one site's pool as a CSI-Addons replication plugin until "
                    + "SIGTERM or SIGINT (volume ids are image names; docs/storage-vendors.md \"Real storage\").",
            "Calls librbd and librados (Debian: librbd1, librados2) in its own process over one connection per "
                    + "site, each call within --timeout, at most --max-concurrent-calls at once. Does not contact "
                    + "Ceph to start: prints 'listening on <address>' at once; Probe answers ready once the pool "
                    + "can be read. Exit status 2 when an option or the address cannot be used, or the Ceph "
                    + "libraries are missing; 0 after a clean drain on SIGTERM or SIGINT."
        })
public final class ServeCephCommand extends DriverServeCommand<CephRbdDriver> {

    @Option(
            names = "--listen",
            paramLabel = "URI",
            required = true,
            converter = Endpoint.ListenConverter.class,
            description = "unix:///path or /path (in an existing directory), host:port (port 0 picks one).")
    String listen;

    @Option(
            names = "--ceph-conf",
            paramLabel = "PATH",
            required = true,
            description = "The site's ceph.conf: its mon addresses and the keyring of --ceph-id.")
    Path cephConf;

    @Option(
            names = "--pool",
            paramLabel = "NAME",
            required = true,
            description = "The mirrored pool (mirror mode image, peered with the other site).")
    String pool;

    @Option(
            names = "--ceph-id",
            paramLabel = "NAME",
            description = "The Ceph user, without client. (default ${DEFAULT-VALUE}). It reads the peer's bootstrap "
                    + "credentials (the pool's mirroring peer attributes) to ask the other site directly.")
    String cephId = "admin";

    @Option(
            names = "--max-concurrent-calls",
            paramLabel = "N",
            description = "The most calls served at once (default ${DEFAULT-VALUE}); a call beyond it waits for a "
                    + "slot until its caller's deadline, and its --timeout budget starts once it has one.")
    int maxConcurrentCalls = CephRbdDriver.DEFAULT_MAX_CONCURRENT_CALLS;

    @Option(
            names = "--timeout",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            description = "The budget of one call, all its Ceph calls together (less when the caller's deadline is "
                    + "sooner), and Ceph's own client timeouts; a site silent that long answers UNAVAILABLE, a "
                    + "change still running answers ABORTED and completes in the plugin (default ${DEFAULT-VALUE}, "
                    + "because Ceph answers in seconds when its monitors can be reached).")
    Duration timeout = CephRbdDriver.DEFAULT_TIMEOUT;

    @Mixin
    ServeOptions serveOptions = serve;

    /**
     * Builds the driver and starts serving it; on SIGTERM or SIGINT the server drains, then the driver waits for the
     * Ceph calls still running and closes its connections.
     */
    @Override
    ServeStart.Served<CephRbdDriver> start() {
        if (!Files.isRegularFile(cephConf) || !Files.isReadable(cephConf)) {
            throw usageError("--ceph-conf: " + cephConf + " is not a readable file");
        }
        if (pool.isEmpty() || pool.contains("/") || pool.contains("@")) {
            throw usageError("--pool: \"" + SafeText.escape(pool) + "\" is not a pool name");
        }
        if (maxConcurrentCalls < 1) {
            throw usageError("--max-concurrent-calls: " + maxConcurrentCalls + " is not at least 1");
        }
        String missing = CephRbdDriver.nativeLibrariesMissing();
        if (missing != null) {
            throw usageError("serve-ceph: " + missing);
        }
        CephRbdDriver driver = CephRbdDriver.builder()
                .cephConf(cephConf)
                .pool(pool)
                .clientId(cephId)
                .timeout(timeout)
                .maxConcurrentCalls(maxConcurrentCalls)
                .build();
        try {
            ReplicationServer.Builder server = serve.metrics.bind(ReplicationServer.builder()
                    .driver(driver)
                    .identity(CephRbdDriver.PLUGIN_NAME, version())
                    .readiness(driver.readiness())
                    .listen(listen)
                    .gracePeriod(serve.gracePeriod));
            return new ServeStart.Served<>(ServeStart.start(server), driver);
        } catch (RuntimeException e) {
            driver.close();
            throw e;
        }
    }

    private static String version() {
        String v = ServeCephCommand.class.getPackage().getImplementationVersion();
        return v == null ? "unknown" : v;
    }
}
