package io.volrep.spi;

import io.volrep.api.ReplicationDestination;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.UnimplementedException;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * What a storage vendor implements to become a CSI-Addons replication plugin. {@link #enable} and
 * {@link #disable} are required; the spec allows a plugin to answer UNIMPLEMENTED for the other five, which
 * is what their defaults do. What the driver serves is declared, not inferred: {@link #servedRpcs()} (the six RPCs of
 * the seed spec by default; add {@code GET_REPLICATION_DESTINATION_INFO} when implementing {@link #destination}) and
 * {@link #supportedSourceKinds()}. Every request carries the time the driver has ({@link DriverRequest#deadline()}).
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
     * returned an invalid response" otherwise. Called only when {@link #servedRpcs()} declares
     * {@code GET_REPLICATION_DESTINATION_INFO}, which Identity then advertises.
     */
    default ReplicationDestination destination(DestinationRequest request) {
        throw new UnimplementedException("GetReplicationDestinationInfo is not implemented by this driver");
    }

    /**
     * The RPCs this driver serves, read once when the server is built: the runtime answers 12 UNIMPLEMENTED to the
     * others without calling the driver, and Identity advertises {@code VolumeReplication.GET_REPLICATION_DESTINATION_INFO}
     * exactly when it is declared here (and the spec revision served has it). The default, {@link #DEFAULT_RPCS}, is
     * the six RPCs of the seed spec; a driver that implements {@link #destination} declares it, one that leaves out
     * an optional RPC may say so. Only {@code replication.Controller} RPCs; a declaration is explicit, never inferred
     * from which methods a class overrides, so a wrapper ({@link ForwardingReplicationDriver}) declares what it wraps.
     *
     * <pre>{@code
     * public Set<Rpc> servedRpcs() {
     *     return ReplicationDriver.defaultRpcsAnd(Rpc.GET_REPLICATION_DESTINATION_INFO);
     * }
     * }</pre>
     */
    default Set<Rpc> servedRpcs() {
        return DEFAULT_RPCS;
    }

    /**
     * What {@link #servedRpcs()} declares by default: EnableVolumeReplication, DisableVolumeReplication, PromoteVolume,
     * DemoteVolume, ResyncVolume and GetVolumeReplicationInfo (the methods of the seed spec; the spec lets a plugin
     * answer UNIMPLEMENTED to all but the first two, which their default methods do).
     */
    Set<Rpc> DEFAULT_RPCS = Collections.unmodifiableSet(EnumSet.of(
            Rpc.ENABLE_VOLUME_REPLICATION,
            Rpc.DISABLE_VOLUME_REPLICATION,
            Rpc.PROMOTE_VOLUME,
            Rpc.DEMOTE_VOLUME,
            Rpc.RESYNC_VOLUME,
            Rpc.GET_VOLUME_REPLICATION_INFO));

    /**
     * {@link #DEFAULT_RPCS} and {@code more}, for a {@link #servedRpcs()} that adds to the default.
     *
     * <pre>{@code
     * ReplicationDriver.defaultRpcsAnd(Rpc.GET_REPLICATION_DESTINATION_INFO);
     * }</pre>
     */
    static Set<Rpc> defaultRpcsAnd(Rpc... more) {
        Set<Rpc> rpcs = EnumSet.copyOf(DEFAULT_RPCS);
        rpcs.addAll(Arrays.asList(more));
        return Collections.unmodifiableSet(rpcs);
    }

    /**
     * The kinds of source this driver replicates. A request for another kind is answered INVALID_ARGUMENT
     * before the driver sees it. Read once, when the server is built. Volumes and volume groups by default.
     */
    default Set<ReplicationSource.Kind> supportedSourceKinds() {
        return EnumSet.of(ReplicationSource.Kind.VOLUME, ReplicationSource.Kind.VOLUME_GROUP);
    }
}
