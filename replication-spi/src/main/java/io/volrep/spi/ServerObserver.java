package io.volrep.spi;

import io.volrep.api.Rpc;

/**
 * Sees every call the runtime serves (replication, healer and identity): what metrics bind to (the
 * {@code replication-micrometer} module implements it). Called on the serving thread; must be quick and must not
 * block. Exceptions it throws are logged and ignored. It is never given a request's content, so never a secret
 * or a source id.
 *
 * <pre>{@code
 * ReplicationServer.builder()
 *         .driver(driver)
 *         .observer(event -> log.info("{} -> {} ({})", event.rpc().methodName(), event.code(), event.cause()))
 *         .build();
 * }</pre>
 */
@FunctionalInterface
public interface ServerObserver {
    /** A call entered the runtime's pipeline (before validation). */
    default void onCallStarted(Rpc rpc) {}

    /** A call was answered; called once per {@link #onCallStarted}, before the answer is sent. */
    void onCallFinished(ServerCallEvent event);
}
