package io.volrep.testkit;

import com.google.protobuf.TextFormat;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.SpecDialect;
import io.volrep.api.StatusCode;
import io.volrep.proto.replication.GetReplicationDestinationInfoResponse;
import io.volrep.proto.replication.ReplicationDestination;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The fixtures' replicas on the peer site, as site A names them, for the run: what A's GetReplicationDestinationInfo
 * answers for each (asked while replication is enabled), or the same id where A does not implement it. A name is a
 * claim, not a fact: each replica may be claimed by one fixture only (two sources never share a destination), a
 * fixture's destination never wanders, and before any check acts on a replica the context verifies it on site B
 * ({@link ConformanceContext#replicaOf}): present, secondary, and, where B can tell, a replica of that fixture.
 */
final class PeerReplicas {
    /** A destination as site A named it: the replica, and A's whole answer (a group's member map). */
    record Named(Addressing replica, Optional<ReplicationDestination> answer) {}

    private final Map<ReplicationSource, Named> named = new ConcurrentHashMap<>();
    private final Map<ReplicationSource, ReplicationSource> claimedBy = new ConcurrentHashMap<>();
    /** The fixtures whose named replica was verified on site B at least once. */
    private final Set<ReplicationSource> verified = ConcurrentHashMap.newKeySet();

    /**
     * The replica of {@code target} as site A names it; {@code askDestination} sends GetReplicationDestinationInfo on
     * A (replication enabled there). Fails the check (through the context) on an answer that is neither OK nor 12
     * UNIMPLEMENTED, on a destination of another kind, on one that differs from what A answered before, and on one
     * another fixture claimed already: the kit then acts on nothing of site B.
     */
    Named name(
            Addressing target,
            SpecDialect dialect,
            ConformanceContext ctx,
            Function<Addressing, Outcome> askDestination) {
        ReplicationSource source =
                target.fixture().orElseThrow(() -> new IllegalArgumentException("not a fixture: " + target));
        Named now = new Named(target, Optional.empty());
        if (dialect.supports(Rpc.GET_REPLICATION_DESTINATION_INFO)) {
            Outcome o = askDestination.apply(target);
            if (o.ok()) {
                ReplicationDestination d =
                        ((GetReplicationDestinationInfoResponse) o.response()).getReplicationDestination();
                Addressing replica = d.hasVolume() && !target.isGroup()
                        ? Addressing.volume(d.getVolume().getVolumeId())
                        : d.hasVolumegroup() && target.isGroup()
                                ? Addressing.volumeGroup(d.getVolumegroup().getVolumeGroupId())
                                : null;
                if (replica == null || replica.fixture().isEmpty()) {
                    ctx.fail("site A's GetReplicationDestinationInfo on " + target + " names no " + target.kindLabel()
                            + " as its destination (" + TextFormat.shortDebugString(d)
                            + "): the kit acts on nothing of site B for it");
                }
                now = new Named(replica, Optional.of(d));
            } else if (o.code() != StatusCode.UNIMPLEMENTED) {
                ctx.fail("GetReplicationDestinationInfo on " + target + " (to find its replica on the peer site) -> "
                        + o.describe() + ctx.note(o));
            }
        }
        ReplicationSource replica = now.replica().fixture().orElseThrow();
        Named before = named.putIfAbsent(source, now);
        if (before != null && !before.replica().equals(now.replica())) {
            ctx.fail("site A's GetReplicationDestinationInfo on " + target + " named site B's " + before.replica()
                    + " before, and now " + now.replica() + ": a destination is one fact of the replication; the kit"
                    + " acts on neither, and left both alone");
        }
        ReplicationSource claimant = claimedBy.putIfAbsent(replica, source);
        if (claimant != null && !claimant.equals(source)) {
            ctx.fail("site A's GetReplicationDestinationInfo names site B's " + now.replica() + " as the destination"
                    + " of " + target + ", and of " + claimant + " before: two sources cannot replicate to one"
                    + " destination; the kit acts on it for neither, and left it alone");
        }
        return before == null ? now : new Named(before.replica(), now.answer().or(before::answer));
    }

    /** How site A named {@code target}'s destination, verified on site B or not. */
    Optional<Named> named(Addressing target) {
        return target.fixture().map(named::get);
    }

    /** Notes that {@code target}'s named replica was verified on site B. */
    void verified(Addressing target) {
        target.fixture().ifPresent(verified::add);
    }

    /** The replica site A named for {@code target} earlier in the run and site B verified, if there is one. */
    Optional<Named> known(Addressing target) {
        return target.fixture().filter(verified::contains).map(named::get);
    }
}
