package io.volrep.examples;

import java.time.Duration;
import java.time.Instant;

/** One mirrored volume or group on the array. */
interface Mirror {
    void enable(String schedule);

    void disable();

    boolean enabled();

    /** Promotes, waiting at most {@code timeout} for the peer's consent (or without it when forced). */
    void promote(boolean force, Duration timeout);

    void demote();

    boolean primary();

    /** Resynchronises from the peer; true once complete. */
    boolean resync(boolean force);

    Instant lastSync();

    long lastSyncBytes();

    /** True when the peer falls behind the configured schedule. */
    boolean lagging();

    /** The peer array's name. */
    String peer();

    /** How far the peer lags. */
    Duration lag();

    /** The id of the copy on the peer array; null until the peer has reported it. */
    String peerId();
}
