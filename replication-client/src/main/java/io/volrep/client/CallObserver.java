package io.volrep.client;

import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import java.util.Optional;

/**
 * Sees every call the client makes, from the moment it is accepted to its final outcome: the hook metrics
 * and tracing bind to (the {@code replication-micrometer} module implements it). Several observers may be
 * registered; each gets its own {@link CallObservation} per call.
 *
 * <p>Called on the calling thread or a client thread; must be quick and must not block. Exceptions it throws
 * are logged and ignored. The source is given so that an observer can tell kinds apart; it must not become a
 * metric tag (unbounded cardinality, and ids may be sensitive). It is empty for the Identity calls
 * ({@link Rpc#isIdentity()}), which concern the plugin itself.
 *
 * <pre>{@code
 * ReplicationClient.builder()
 *         .observer((rpc, source) -> {
 *             long start = System.nanoTime();
 *             return (code, attempts) -> log.info("{} -> {} after {} attempt(s) in {} ns",
 *                     rpc.methodName(), code.display(), attempts, System.nanoTime() - start);
 *         })
 *         .build();
 * }</pre>
 */
@FunctionalInterface
public interface CallObserver {
    /**
     * A call was accepted (before it waits for its source's single-flight slot).
     *
     * @param source the source the call concerns; empty for the Identity calls
     * @return this call's observation; never null ({@link CallObservation#NONE} to ignore the call)
     */
    CallObservation onCall(Rpc rpc, Optional<ReplicationSource> source);
}
