package io.volrep.testkit.reference;

import io.volrep.api.SpecDialect;
import io.volrep.spi.ReplicationServer;
import io.volrep.spi.ServeUntilSignal;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Objects;

/**
 * Serves a {@link ReferenceDriver} as a gRPC plugin (replication, volume groups, NodeHealer and Identity; any spec
 * dialect): for tests in-process, for other languages' clients on a
 * unix socket or TCP ({@code volrep serve-reference} runs {@link #runUntilShutdown}).
 *
 * <pre>{@code
 * ReferenceDriver driver = ReferenceDriver.builder().volumes(16).groups(2).build();
 * try (ReplicationServer server = ReferencePlugin.start(driver, "unix:///tmp/ref.sock")) {
 *     ReplicationClient client = ReplicationClient.builder().target(server.address()).build();
 *     ...
 * }
 * }</pre>
 */
public final class ReferencePlugin {
    /** Where {@code volrep serve-reference} listens by default. */
    public static final String DEFAULT_LISTEN = "unix:///tmp/volrep-reference.sock";
    /** How many volumes {@code volrep serve-reference} creates by default. */
    public static final int DEFAULT_VOLUMES = 16;
    /** How many volume groups {@code volrep serve-reference} creates by default. */
    public static final int DEFAULT_GROUPS = 2;
    /** How long a shutdown lets calls in flight finish. */
    public static final Duration DEFAULT_GRACE_PERIOD = Duration.ofSeconds(10);

    private ReferencePlugin() {}

    /** The name the reference plugin answers GetIdentity with. */
    public static final String PLUGIN_NAME = "reference.volrep.io";

    /**
     * A server builder for {@code driver} serving replication (current dialect), volume groups, NodeHealer and
     * Identity ({@value #PLUGIN_NAME}); add the address and build.
     */
    public static ReplicationServer.Builder serverBuilder(ReferenceDriver driver) {
        String version = ReferencePlugin.class.getPackage().getImplementationVersion();
        return ReplicationServer.builder()
                .driver(driver)
                .volumeGroups(driver)
                .healer(driver)
                .identity(PLUGIN_NAME, version == null ? "dev" : version)
                .gracePeriod(DEFAULT_GRACE_PERIOD);
    }

    /** A started server for {@code driver} on {@code listen} ({@code unix:///path}, {@code host:port}, {@code inprocess:NAME}). */
    public static ReplicationServer start(ReferenceDriver driver, String listen) {
        return start(driver, listen, SpecDialect.CURRENT);
    }

    /** A started server for {@code driver} on {@code listen} speaking the replication spec revision {@code dialect}. */
    public static ReplicationServer start(ReferenceDriver driver, String listen, SpecDialect dialect) {
        return serverBuilder(driver).dialect(dialect).listen(listen).build().start();
    }

    /**
     * Serves until the JVM is asked to stop (SIGTERM, SIGINT): prints {@code listening on <address>} to
     * {@code out} once the server is ready, then blocks; the signal closes the server gracefully (calls in
     * flight finish within the grace period, a unix socket file is removed) and this returns 0
     * ({@link ServeUntilSignal}, shared with {@code volrep serve-exec}).
     *
     * @return 0 after a clean drain
     */
    public static int runUntilShutdown(ReferenceDriver driver, String listen, Duration gracePeriod, PrintWriter out)
            throws InterruptedException {
        return runUntilShutdown(driver, listen, gracePeriod, SpecDialect.CURRENT, out);
    }

    /** As {@link #runUntilShutdown(ReferenceDriver, String, Duration, PrintWriter)}, speaking {@code dialect}. */
    public static int runUntilShutdown(
            ReferenceDriver driver, String listen, Duration gracePeriod, SpecDialect dialect, PrintWriter out)
            throws InterruptedException {
        ReplicationServer server = serverBuilder(driver)
                .dialect(dialect)
                .listen(listen)
                .gracePeriod(Objects.requireNonNull(gracePeriod, "gracePeriod"))
                .build()
                .start();
        return ServeUntilSignal.run(server, server::close, out);
    }
}
