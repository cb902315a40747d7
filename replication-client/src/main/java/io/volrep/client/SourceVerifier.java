package io.volrep.client;

import io.volrep.api.ReplicationSource;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Predicate;

/**
 * The orchestrator's check, after a NOT_FOUND answer, that the source is correct, accessible and not deleted.
 * The spec asks the caller to verify this before retrying NOT_FOUND with back-off; without a verifier the
 * client surfaces {@link io.volrep.api.SourceNotFoundException} at once.
 *
 * <pre>{@code
 * ReplicationClient.builder()
 *         .sourceVerifier(SourceVerifier.of(source -> pvcLister.exists(source.id())))
 *         .build();
 * }</pre>
 * A verifier that fails (its stage completes exceptionally) counts as "not approved".
 */
@FunctionalInterface
public interface SourceVerifier {

    /** Completes with true when {@code source} is valid and the call may be retried. Must not block. */
    CompletionStage<Boolean> verify(ReplicationSource source);

    /** A verifier from a quick, non-blocking predicate. */
    static SourceVerifier of(Predicate<ReplicationSource> exists) {
        Objects.requireNonNull(exists, "exists");
        return source -> CompletableFuture.completedFuture(exists.test(source));
    }
}
