package io.volrep.spi;

import io.volrep.api.ReplicationDestination;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.UnimplementedException;
import java.util.EnumSet;
import java.util.Set;

/**
 * What a storage vendor implements to become a CSI-Addons replication plugin. {@link #enable} and
 * {@link #disable} are required; the spec allows a plugin to answer UNIMPLEMENTED for the other five, which
 * is what their defaults do.
 *
 * <p>The runtime ({@link ReplicationServer}) validates every request before calling the driver, guarantees at
 * most one call in flight per source, and maps what the driver throws: the api's typed exceptions
 * ({@link io.volrep.api.SourceNotFoundException}, {@link io.volrep.api.PreconditionFailedException},
 * {@link io.volrep.api.UnauthenticatedException}, ...) become their gRPC code with their message; anything else
 * becomes UNKNOWN with a generic message, and its stack trace goes to the plugin's log. Methods are called on
 * gRPC's executor threads (a pool, so they may block; see {@link ReplicationServer.Builder#directExecutor}),
 * concurrently for different sources: implementations must be thread-safe.
 *
 * <pre>{@code
 * public final class MyDriver implements ReplicationDriver {
 *     public void enable(EnableRequest r) {
 *         if (!backend.exists(r.source().id())) {
 *             throw new SourceNotFoundException(r.source() + " does not exist");
 *         }
 *         backend.enableMirroring(r.source().id());          // idempotent: enabling twice is fine
 *     }
 *     public void disable(DisableRequest r) {
 *         backend.disableMirroring(r.source().id());
 *     }
 * }
 * }</pre>
 */
public interface ReplicationDriver {

    /** EnableVolumeReplication: start replicating the source. MUST be idempotent. */
    void enable(EnableRequest request);

    /** DisableVolumeReplication: stop replicating the source. MUST be idempotent. */
    void disable(DisableRequest request);

    /**
     * PromoteVolume: make the source primary. Throw {@link io.volrep.api.PreconditionFailedException} when
     * replication is not enabled.
     */
    default void promote(PromoteRequest request) {
        throw new UnimplementedException("PromoteVolume is not implemented by this driver");
    }

    /**
     * DemoteVolume: make the source secondary. Throw {@link io.volrep.api.PreconditionFailedException} when
     * replication is not enabled.
     */
    default void demote(DemoteRequest request) {
        throw new UnimplementedException("DemoteVolume is not implemented by this driver");
    }

    /**
     * ResyncVolume: resynchronize a demoted source from the primary; report whether it has caught up. Throw
     * {@link io.volrep.api.PreconditionFailedException} when it is not enabled or not demoted.
     */
    default ResyncResult resync(ResyncRequest request) {
        throw new UnimplementedException("ResyncVolume is not implemented by this driver");
    }

    /**
     * GetVolumeReplicationInfo: when the last sync happened, and the replication's health
     * ({@link ReplicationInfo#withStatus}). Must not return null (the runtime answers UNKNOWN "driver returned an
     * invalid response" if it does). A driver that reports no status answers
     * {@link ReplicationInfo.Status#UNKNOWN}: the runtime never claims HEALTHY on the driver's silence.
     */
    default ReplicationInfo info(InfoRequest request) {
        throw new UnimplementedException("GetVolumeReplicationInfo is not implemented by this driver");
    }

    /**
     * GetReplicationDestinationInfo (upstream 2026): where the source is replicated to, of the source's kind; for a
     * group, optionally the destination of every current member (complete, or not at all). Throw
     * {@link io.volrep.api.PreconditionFailedException} when replication is not enabled, and
     * {@link io.volrep.api.UnavailableException} while the destination is not known yet (transient). The runtime
     * checks the answer (non-null, the source's kind, non-empty ids and member ids) and answers UNKNOWN "driver
     * returned an invalid response" otherwise. Identity advertises
     * {@code VolumeReplication.GET_REPLICATION_DESTINATION_INFO} exactly when a driver overrides this method.
     */
    default ReplicationDestination destination(DestinationRequest request) {
        throw new UnimplementedException("GetReplicationDestinationInfo is not implemented by this driver");
    }

    /**
     * Whether Identity advertises {@code VolumeReplication.GET_REPLICATION_DESTINATION_INFO}: by default exactly
     * when this class overrides {@link #destination}. Read once, when the server is built. A driver that decides at
     * start (the exec bridge asks its executable) overrides this too, so the capability never promises an RPC that
     * answers UNIMPLEMENTED.
     *
     * <pre>{@code
     * public boolean servesDestinations() { return array.supportsDestinations(); }   // in a driver class
     * }</pre>
     */
    default boolean servesDestinations() {
        try {
            return getClass().getMethod("destination", DestinationRequest.class).getDeclaringClass()
                    != ReplicationDriver.class;
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The kinds of source this driver replicates. A request for another kind is answered INVALID_ARGUMENT
     * before the driver sees it. Read once, when the server is built. Volumes and volume groups by default.
     */
    default Set<ReplicationSource.Kind> supportedSourceKinds() {
        return EnumSet.of(ReplicationSource.Kind.VOLUME, ReplicationSource.Kind.VOLUME_GROUP);
    }
}
