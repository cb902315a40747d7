package io.volrep.client.reconcile;

import io.volrep.api.ReplicationDestination;
import io.volrep.api.ReplicationSource;
import java.util.Map;
import java.util.Objects;

/**
 * Where a source of site A is replicated to on site B: the destination source (same kind, often another id), for a
 * volume group the destination id of each member volume when known, and where this destination came from.
 *
 * <pre>{@code
 * Destination d = Destination.of(ReplicationSource.volumeGroup("b-grp-0"))
 *         .withMembers(Map.of("vol-0", "b-vol-0", "vol-1", "b-vol-1"));
 * d.origin();   // CALLER
 * }</pre>
 *
 * @param source          the destination on site B
 * @param memberVolumeIds source member volume id on A -> destination volume id on B (empty: none or unknown)
 * @param origin          where it came from: site A's answer, the caller, or the same-id assumption
 */
public record Destination(ReplicationSource source, Map<String, String> memberVolumeIds, Origin origin) {

    /** Where a destination came from; a failover report says it per source. */
    public enum Origin {
        /** Site A's plugin answered GetReplicationDestinationInfo. */
        SITE_A,
        /** The caller gave it: a map ({@link DestinationResolver#ids}, {@code --destination}) or its own resolver. */
        CALLER,
        /**
         * Assumed, not known: the source's own id and kind on site B. Only when the caller asks for it
         * ({@link Failover.Builder#assumeSameIds}, {@link DestinationResolver#identity()}, {@code --assume-same-ids})
         * or when site A answers 12 UNIMPLEMENTED to GetReplicationDestinationInfo and does not advertise it.
         */
        SAME_IDS
    }

    public Destination {
        Objects.requireNonNull(source, "source");
        memberVolumeIds = Map.copyOf(memberVolumeIds);
        Objects.requireNonNull(origin, "origin");
    }

    /** A destination given by the caller ({@link Origin#CALLER}) with this member map. */
    public Destination(ReplicationSource source, Map<String, String> memberVolumeIds) {
        this(source, memberVolumeIds, Origin.CALLER);
    }

    /** A destination given by the caller ({@link Origin#CALLER}), without a member map. */
    public static Destination of(ReplicationSource source) {
        return new Destination(source, Map.of());
    }

    /** The same id and kind as {@code sourceOnA}, on site B: {@link Origin#SAME_IDS}. */
    public static Destination sameIdAs(ReplicationSource sourceOnA) {
        return new Destination(sourceOnA, Map.of(), Origin.SAME_IDS);
    }

    /** What site A answered for {@code sourceOnA} ({@link Origin#SITE_A}), with a group's member map. */
    static Destination answeredBySiteA(ReplicationSource sourceOnA, ReplicationDestination answer) {
        return new Destination(
                ReplicationSource.of(sourceOnA.kind(), answer.id()),
                answer instanceof ReplicationDestination.VolumeGroup g ? g.volumeIds() : Map.of(),
                Origin.SITE_A);
    }

    /** A copy with this member map. */
    public Destination withMembers(Map<String, String> members) {
        return new Destination(source, members, origin);
    }
}
