package io.volrep.examples;

import java.time.Instant;
import java.util.Optional;

/** The storage array API the docs' AcmeDriver talks to (a stand-in: the docs' own code is what is compiled). */
interface AcmeArray {
    boolean login(String user, String password);

    Optional<Mirror> find(String id);

    boolean isConnected();
}

/** One mirrored volume or group on the array. */
interface Mirror {
    void enable(String schedule);

    void disable();

    boolean enabled();

    void promote(boolean force);

    Instant lastSync();

    long lastSyncBytes();

    /** True when the peer falls behind the configured schedule. */
    boolean lagging();

    /** The peer array's name. */
    String peer();

    /** How far the peer lags. */
    java.time.Duration lag();

    /** The id of the copy on the peer array; null until the peer has reported it. */
    String peerId();
}
