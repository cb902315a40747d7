package io.volrep.client;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

/**
 * What every call of one client runs with, read by name from the {@link ReplicationClient.Builder} that configured
 * it: adding a setting is a field of the builder and one line here, never a longer argument list.
 */
final class CallSettings {
    private final String target;
    private final Executor executor;
    private final ScheduledExecutorService scheduler;
    private final RetryPolicy defaultPolicy;
    private final SecretsProvider secrets;
    private final SourceVerifier verifier;
    private final AttemptListener listener;
    private final ConnectionListener connectionListener;
    private final CallObserver observer;
    private final int maxQueuedPerSource;
    private final WireDialect wire;
    private final int maxInboundMessageSize;
    private final boolean directExecutor;
    private final ConnectionWarnings warnings;

    /**
     * The settings of {@code b}, with the client's threads (the builder's, or ones the client made).
     *
     * <pre>{@code
     * CallSettings settings = new CallSettings(builder, threads.executor(), threads.scheduler());
     * }</pre>
     */
    CallSettings(ReplicationClient.Builder b, Executor executor, ScheduledExecutorService scheduler) {
        this.target = b.target;
        this.executor = executor;
        this.scheduler = scheduler;
        this.defaultPolicy = b.deadline == null
                ? b.retry
                : b.retry.toBuilder().perAttemptTimeout(b.deadline).build();
        this.secrets = b.secrets;
        this.verifier = b.sourceVerifier;
        this.listener = b.listener;
        this.connectionListener = b.connectionListener;
        this.observer = CallObservers.of(b.observers);
        this.maxQueuedPerSource = b.maxQueuedPerSource;
        this.wire = WireDialect.of(b.dialect, b.alsoSendDeprecatedVolumeId);
        this.maxInboundMessageSize = b.maxInboundMessageSize;
        this.directExecutor = b.directExecutor;
        this.warnings = b.connectionWarnings;
    }

    /** The target the channel dials, for messages and connection warnings. */
    String target() {
        return target;
    }

    /** The client's executor: gRPC callbacks, queued calls, and every failure's decision. */
    Executor executor() {
        return executor;
    }

    /** Where back-offs, readiness polls and connection nudges are scheduled. */
    ScheduledExecutorService scheduler() {
        return scheduler;
    }

    /** The retry policy of a call that sets none ({@link ReplicationClient.Builder#deadline} applied). */
    RetryPolicy defaultPolicy() {
        return defaultPolicy;
    }

    /** Where a call's secrets come from. */
    SecretsProvider secrets() {
        return secrets;
    }

    /** The {@link SourceVerifier}, or null: NOT_FOUND is then never retried. */
    SourceVerifier verifier() {
        return verifier;
    }

    /** Sees every attempt, or null. */
    AttemptListener listener() {
        return listener;
    }

    /** Hears of waits for a connection, or null. */
    ConnectionListener connectionListener() {
        return connectionListener;
    }

    /** Sees every call ({@link CallObservers#NONE} when nobody does). */
    CallObserver observer() {
        return observer;
    }

    /** How many calls may wait behind the one in flight for a source. */
    int maxQueuedPerSource() {
        return maxQueuedPerSource;
    }

    /** The spec revision's codec. */
    WireDialect wire() {
        return wire;
    }

    /** The channel's inbound message limit, named when a response exceeds it. */
    int maxInboundMessageSize() {
        return maxInboundMessageSize;
    }

    /** {@link ReplicationClient.Builder#directExecutor()}: a success completes on the transport thread. */
    boolean directExecutor() {
        return directExecutor;
    }

    /** When a wait for a connection is logged (and told to the {@link #connectionListener()}). */
    ConnectionWarnings warnings() {
        return warnings;
    }

    /**
     * While calls wait for a connection, a WARN after {@code first} and then every {@code every}: the Go CSI
     * sidecars' "Still connecting to unix:///..." every 10 s is the convention.
     */
    record ConnectionWarnings(Duration first, Duration every) {
        /** The first after 5 s, then every 10 s. */
        static final ConnectionWarnings DEFAULT = new ConnectionWarnings(Duration.ofSeconds(5), Duration.ofSeconds(10));
    }
}
