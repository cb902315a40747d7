package io.volrep.client.reconcile;

import io.volrep.api.ReplicationSource;
import io.volrep.api.internal.SafeText;
import io.volrep.client.ReplicationClient;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Finds the destination on site B of a source on site A. Source and destination ids differ on most storage
 * (each site names its own volumes), so a failover must never guess them.
 *
 * <pre>{@code
 * DestinationResolver byMap = DestinationResolver.ids(Map.of("vol-0", "b-vol-0", "grp-0", "b-grp-0"));
 * DestinationResolver sameIds = DestinationResolver.identity();
 * DestinationResolver custom = source -> lookUpInMyInventory(source);   // any asynchronous look-up
 * }</pre>
 *
 * <p>An implementation may ask anything, site A's plugin included (GetReplicationDestinationInfo); it is
 * called once per source, before any call that changes a site. A future failed with any exception makes that
 * source fail with nothing sent to either site. Keep in mind that a resolver asking site A cannot answer while
 * A is down: for a disaster failover, give the destinations recorded beforehand (a map).
 *
 * <p>A {@link Failover} without a resolver asks site A itself and guesses nothing (see
 * {@link Failover.Builder#resolver}). The {@link Destination#origin()} of what a resolver gives is reported per
 * source: {@link Destination.Origin#CALLER} for {@link #ids}, {@link #of} and a resolver of your own,
 * {@link Destination.Origin#SAME_IDS} for {@link #identity()}, {@link Destination.Origin#SITE_A} for
 * {@link #askSiteA}.
 */
@FunctionalInterface
public interface DestinationResolver {

    /** The destination of {@code sourceOnA} on site B. */
    CompletableFuture<Destination> resolve(ReplicationSource sourceOnA);

    /**
     * The same id and kind on site B ({@link Destination.Origin#SAME_IDS}): only for sites that truly share ids.
     * Nothing is asked; a volume of that id on B is promoted whether or not it is the source's replica.
     */
    static DestinationResolver identity() {
        return source -> CompletableFuture.completedFuture(Destination.sameIdAs(source));
    }

    /** Exactly the given destinations; any other source fails to resolve. */
    static DestinationResolver of(Map<ReplicationSource, Destination> destinations) {
        Map<ReplicationSource, Destination> copy = Map.copyOf(destinations);
        return source -> {
            Destination d = copy.get(source);
            return d != null
                    ? CompletableFuture.completedFuture(d)
                    : CompletableFuture.failedFuture(new IllegalArgumentException(
                            "no destination given for " + SafeText.escape(source.toString())));
        };
    }

    /** Source id -> destination id, of the same kind as the source; any other source fails to resolve. */
    static DestinationResolver ids(Map<String, String> sourceToDestinationId) {
        Map<String, String> copy = Map.copyOf(sourceToDestinationId);
        return source -> {
            String id = copy.get(source.id());
            return id != null
                    ? CompletableFuture.completedFuture(Destination.of(ReplicationSource.of(source.kind(), id)))
                    : CompletableFuture.failedFuture(new IllegalArgumentException(
                            "no destination given for " + SafeText.escape(source.toString())));
        };
    }

    /**
     * Asks site A's plugin (GetReplicationDestinationInfo, upstream 2026) with its client's retry policy (14
     * UNAVAILABLE, "not known yet", is retried with back-off): the destination volume, or the destination group
     * with its member map ({@link Destination.Origin#SITE_A}). Fails for a plugin that does not implement it (12
     * UNIMPLEMENTED), cannot be reached or answers anything else; combine with {@link #orElse} and a recorded map
     * for a disaster failover.
     *
     * <pre>{@code
     * DestinationResolver resolver = DestinationResolver.askSiteA(siteA).orElse(DestinationResolver.ids(recorded));
     * }</pre>
     */
    static DestinationResolver askSiteA(ReplicationClient siteA) {
        Objects.requireNonNull(siteA, "siteA");
        return source -> siteA.source(source).destinationAsync().thenApply(d -> Destination.answeredBySiteA(source, d));
    }

    /**
     * This resolver, and {@code fallback} for the sources it fails on, whatever the failure: a transient one (14
     * UNAVAILABLE, a deadline) as much as "no entry". Fall back to destinations you recorded, not to
     * {@link #identity()} after {@link #askSiteA}: that would promote whatever volume of the same id site B has
     * whenever site A is slow to answer.
     */
    default DestinationResolver orElse(DestinationResolver fallback) {
        Objects.requireNonNull(fallback, "fallback");
        return source -> resolve(source)
                .handle((d, t) -> t == null ? CompletableFuture.completedFuture(d) : fallback.resolve(source))
                .thenCompose(f -> f);
    }
}
