package io.volrep.client;

import java.time.Duration;

/**
 * Hears when calls wait for a plugin that cannot be reached, whatever logging the application has: at the moments
 * the client logs its {@code Still connecting to ...} WARN (5 s into a wait, then every 10 s), with the reason found
 * by looking at the target (no such socket file, connection refused, permission denied, unknown host, ...). Calls
 * keep waiting within their deadlines, so that a plugin that restarts costs time, not failures; this is how a
 * program learns within seconds that nothing listens where it points. Called on a client thread; must be quick;
 * what it throws is logged and ignored.
 *
 * <pre>{@code
 * ReplicationClient client = ReplicationClient.builder()
 *         .target("unix:///csi/csi-addons.sock")
 *         .connectionListener((target, waited, why) -> // your program's own log, status page or readiness probe
 *                 log.warn("still waiting for {} after {}: {}", target, waited, why))
 *         .build();
 * }</pre>
 */
@FunctionalInterface
public interface ConnectionListener {
    /**
     * Calls have waited {@code waited} for a connection to {@code target}, which cannot be reached because of
     * {@code why} (plugin-independent text, escaped).
     */
    void stillConnecting(String target, Duration waited, String why);

    /** The connection to {@code target} is back after {@code waited}, following a wait this listener heard of. */
    default void connected(String target, Duration waited) {}
}
