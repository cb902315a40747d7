package io.volrep.spi.internal.runtime;

import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * At most one call in flight per key (a replication source, a healer volume id): the spec answers a second,
 * concurrent call for the same source with ABORTED. Keys are removed when their call completes, so an idle
 * source costs nothing, however many volumes the plugin manages.
 *
 * <pre>{@code
 * try (SourceGuard.Permit permit = guard.tryAcquire("replication.Controller volume vol-1")) {
 *     if (permit == null) { ... answer ABORTED ... }
 *     ... call the driver ...
 * }
 * }</pre>
 * Internal to the runtime; public so that the runtime's services in other packages can share it (replication and
 * healer; Identity calls are not guarded).
 */
public final class SourceGuard {
    private final ConcurrentHashMap<Object, Permit> inFlight = new ConcurrentHashMap<>();

    /** A held key; closing it releases the key. */
    public final class Permit implements AutoCloseable {
        private final Object key;

        private Permit(Object key) {
            this.key = key;
        }

        @Override
        public void close() {
            inFlight.remove(key, this);
        }
    }

    /** The permit for {@code key}, or null when a call for the key is already in flight. */
    public Permit tryAcquire(Object key) {
        Objects.requireNonNull(key, "key");
        Permit permit = new Permit(key);
        return inFlight.putIfAbsent(key, permit) == null ? permit : null;
    }

    /** How many keys are held, i.e. have a call in flight (0 when the plugin is idle). */
    public int busyKeys() {
        return inFlight.size();
    }
}
