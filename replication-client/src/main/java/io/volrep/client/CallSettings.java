package io.volrep.client;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

/**
 * What a {@link CallEngine} runs with, as {@link ReplicationClient.Builder} configured it: one value instead of a
 * long list of positional arguments, so that adding a setting is one component here and one line in the builder.
 *
 * @param target the target the channel dials, for messages and connection warnings
 * @param executor the client's executor: gRPC callbacks, queued calls, and every failure's decision
 * @param scheduler where back-offs, readiness polls and connection nudges are scheduled
 * @param defaultPolicy the retry policy of a call that sets none
 * @param secrets where a call's secrets come from
 * @param verifier the {@link SourceVerifier}, or null: NOT_FOUND is then never retried
 * @param listener sees every attempt, or null
 * @param observer sees every call ({@link CallObservers#NONE} when nobody does)
 * @param maxQueuedPerSource how many calls may wait behind the one in flight for a source
 * @param wire the spec revision's codec
 * @param maxInboundMessageSize the channel's inbound message limit, named when a response exceeds it
 * @param directExecutor {@link ReplicationClient.Builder#directExecutor()}: a success completes on the transport thread
 * @param warnings when a wait for a connection is logged
 */
record CallSettings(
        String target,
        Executor executor,
        ScheduledExecutorService scheduler,
        RetryPolicy defaultPolicy,
        SecretsProvider secrets,
        SourceVerifier verifier,
        AttemptListener listener,
        CallObserver observer,
        int maxQueuedPerSource,
        WireDialect wire,
        int maxInboundMessageSize,
        boolean directExecutor,
        ConnectionWarnings warnings) {

    /**
     * While calls wait for a connection, a WARN after {@code first} and then every {@code every}: the Go CSI
     * sidecars' "Still connecting to unix:///..." every 10 s is the convention.
     */
    record ConnectionWarnings(Duration first, Duration every) {
        /** The first after 5 s, then every 10 s. */
        static final ConnectionWarnings DEFAULT = new ConnectionWarnings(Duration.ofSeconds(5), Duration.ofSeconds(10));
    }
}
