package io.volrep.testkit;

import io.volrep.api.Rpc;
import io.volrep.api.SpecDialect;
import io.volrep.api.StatusCode;
import io.volrep.proto.replication.GetReplicationDestinationInfoResponse;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The fixtures' replicas on the peer site, for the run: what site A's GetReplicationDestinationInfo answers for each
 * (asked once, while replication is enabled), or the same id where A does not implement it.
 */
final class PeerReplicas {
    private final Map<String, Addressing> known = new ConcurrentHashMap<>();

    /**
     * The replica of {@code target}; {@code askDestination} sends GetReplicationDestinationInfo on site A when it is
     * not known yet. An answer that is neither OK nor 12 UNIMPLEMENTED fails the check (through the context).
     */
    Addressing of(
            Addressing target,
            SpecDialect dialect,
            ConformanceContext ctx,
            Function<Addressing, Outcome> askDestination) {
        String key = SourceBookkeeping.key(target);
        Addressing replica = key == null ? null : known.get(key);
        if (replica != null) {
            return replica;
        }
        replica = target;
        if (dialect.supports(Rpc.GET_REPLICATION_DESTINATION_INFO)) {
            Outcome o = askDestination.apply(target);
            if (o.ok()) {
                var d = ((GetReplicationDestinationInfoResponse) o.response()).getReplicationDestination();
                if (d.hasVolume() && !target.isGroup()) {
                    replica = Addressing.volume(d.getVolume().getVolumeId());
                } else if (d.hasVolumegroup() && target.isGroup()) {
                    replica = Addressing.volumeGroup(d.getVolumegroup().getVolumeGroupId());
                }
            } else if (o.code() != StatusCode.UNIMPLEMENTED) {
                ctx.fail("GetReplicationDestinationInfo on " + target + " (to find its replica on the peer site) -> "
                        + o.describe() + ctx.note(o));
            }
        }
        if (key != null) {
            known.put(key, replica);
        }
        return replica;
    }
}
