package io.volrep.client.reconcile;

import io.volrep.api.ReplicationSource;
import java.util.Map;
import java.util.Objects;

/**
 * Where a source of site A is replicated to on site B: the destination source (same kind, often another id) and,
 * for a volume group, the destination id of each member volume when known.
 *
 * <pre>{@code
 * Destination d = Destination.of(ReplicationSource.volumeGroup("b-grp-0"))
 *         .withMembers(Map.of("vol-0", "b-vol-0", "vol-1", "b-vol-1"));
 * }</pre>
 *
 * @param source          the destination on site B
 * @param memberVolumeIds source member volume id on A -> destination volume id on B (empty: none or unknown)
 */
public record Destination(ReplicationSource source, Map<String, String> memberVolumeIds) {

    public Destination {
        Objects.requireNonNull(source, "source");
        memberVolumeIds = Map.copyOf(memberVolumeIds);
    }

    /** A destination without a member map. */
    public static Destination of(ReplicationSource source) {
        return new Destination(source, Map.of());
    }

    /** A copy with this member map. */
    public Destination withMembers(Map<String, String> members) {
        return new Destination(source, members);
    }
}
