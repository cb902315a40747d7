package io.volrep.testkit;

import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.proto.replication.GetReplicationDestinationInfoResponse;
import io.volrep.proto.replication.ReplicationDestination;
import io.volrep.testkit.LifecycleModel.State;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * How the kit looks at a replica on the peer site (site B) before and after it acts: with read-only calls only
 * (GetVolumeReplicationInfo and GetReplicationDestinationInfo; ResyncVolume only where a revision has neither), so
 * that observing a volume the kit was wrongly pointed at changes nothing. A replica is verified before any check acts
 * on it: present, in the state the check expects, and, where site B answers GetReplicationDestinationInfo, naming the
 * fixture of site A back (a group's member map the inverse of A's). Every observation is noted in the check's books,
 * and a call that would change a replica is sent only right after an observation in the state it expects.
 */
final class PeerSite {
    private PeerSite() {}

    /** The state a replica on site B must be observed in before the kit sends {@code rpc} to it; null: never sent. */
    static State stateBefore(Rpc rpc) {
        return switch (rpc) {
            case PROMOTE_VOLUME, ENABLE_VOLUME_REPLICATION -> State.SECONDARY;
            case DEMOTE_VOLUME -> State.PRIMARY;
            default -> null;
        };
    }

    /**
     * True when the kit may send {@code rpc} to a replica on site B last observed as in each of {@code observed}: it was
     * observed since its last change, and in every state its answers fit the call is either the one the check expects
     * ({@link #stateBefore}) or one the model says is refused and changes nothing. A revision whose read-only probes
     * cannot tell a secondary from a volume with replication disabled (v0.1.3: Info refuses both) lets the kit send a
     * promote (refused on a volume with replication disabled) but not an enable (it would enable that volume).
     */
    static boolean mayAct(LifecycleModel model, Rpc rpc, Set<State> observed) {
        State needed = stateBefore(rpc);
        if (needed == null || !observed.contains(needed)) {
            return false;
        }
        return observed.stream().allMatch(s -> s == needed || refusedUnchanged(model, rpc, s));
    }

    private static boolean refusedUnchanged(LifecycleModel model, Rpc rpc, State state) {
        LifecycleModel.Expectation e = model.expect(rpc, state);
        return e.code() != StatusCode.OK && e.after() == state;
    }

    /** The read-only probes of {@code model}: Info and the destination; the model's probes where it has neither. */
    static List<Rpc> readOnlyProbes(LifecycleModel model) {
        List<Rpc> probes = model.probes().stream()
                .filter(p -> p == Rpc.GET_VOLUME_REPLICATION_INFO || p == Rpc.GET_REPLICATION_DESTINATION_INFO)
                .toList();
        return probes.isEmpty() ? model.probes() : probes;
    }

    /**
     * Verifies {@code named}, site A's destination of {@code source} (enabled and primary on A), on site B before any
     * check acts on it: it must answer as a secondary and, where B can tell, replicate {@code source}. Fails the check
     * otherwise, leaving the replica alone.
     */
    static void verify(ConformanceContext ctx, Addressing source, PeerReplicas.Named named) {
        LifecycleModel model = LifecycleModel.forDialect(ctx.dialect());
        String what = "site B's " + named.replica() + ", which site A's GetReplicationDestinationInfo names as the"
                + " destination of " + source;
        if (named.answer().isEmpty()) {
            what = "site B's " + named.replica() + ", the replica of " + source + " (the same id: site A does not"
                    + " answer GetReplicationDestinationInfo)";
        }
        Seen seen = look(ctx, model, named.replica());
        if (!seen.fits().contains(State.SECONDARY)) {
            ctx.fail(what + ", is not secondary: it answers " + seen.said() + seen.asIf()
                    + "; it is not " + source.fixture().map(Object::toString).orElse("the fixture") + "'s replica, or"
                    + " not one the kit may act on, and was left alone (the kit changes nothing on either site that"
                    + " it has not first observed in the state the check expects)");
        }
        Optional<String> foreign = notTheReplica(seen, source, named);
        if (foreign.isPresent()) {
            ctx.observedOnPeer(named.replica(), Set.of());
            ctx.fail(what + ", is not the replica of " + source + ": " + foreign.get() + "; it was left alone");
        }
    }

    /**
     * Observes {@code replica} on site B with read-only calls and fails unless it answers as in {@code expected}; on
     * a destination answer, also unless it names {@code source} back where site B can tell.
     */
    static void observe(
            ConformanceContext ctx,
            LifecycleModel model,
            Addressing source,
            Addressing replica,
            State expected,
            String after) {
        Seen seen = look(ctx, model, replica);
        if (!seen.fits().contains(expected)) {
            ctx.fail("after " + after + ", the peer site's " + replica + " must be " + expected.label()
                    + ", but it answers " + seen.said() + seen.asIf());
        }
        Optional<PeerReplicas.Named> named = ctx.namingOf(source);
        Optional<String> foreign = named.flatMap(n -> notTheReplica(seen, source, n));
        if (foreign.isPresent()) {
            ctx.observedOnPeer(replica, Set.of());
            ctx.fail("after " + after + ", the peer site's " + replica + " is not the replica of " + source + ": "
                    + foreign.get());
        }
    }

    /** What site B answered to the read-only probes, and the states those answers fit. */
    record Seen(Map<Rpc, Outcome> answers, List<State> fits) {
        String said() {
            List<String> parts = new ArrayList<>();
            answers.values().forEach(o -> parts.add(o.rpc().methodName() + " -> " + o.describe()));
            return String.join(", ", parts);
        }

        String asIf() {
            return fits.isEmpty()
                    ? ", as in no state of the model"
                    : ", as if it were "
                            + String.join(
                                    " or ", fits.stream().map(State::label).toList());
        }
    }

    /** Asks {@code replica}'s read-only probes on site B and notes the state they fit (when exactly one does). */
    static Seen look(ConformanceContext ctx, LifecycleModel model, Addressing replica) {
        Map<Rpc, Outcome> answers = new LinkedHashMap<>();
        for (Rpc probe : readOnlyProbes(model)) {
            Outcome o = ctx.callPeer(probe, replica);
            if (o.code() == StatusCode.UNIMPLEMENTED && ctx.scheme().lists(probe, StatusCode.UNIMPLEMENTED)) {
                continue; // this probe cannot tell; the others still can
            }
            if (o.ok()) {
                ResponseRules.requireValid(ctx, o, replica);
            }
            answers.put(probe, o);
        }
        List<State> fits = model.reachable().stream()
                .filter(s -> answers.entrySet().stream()
                        .allMatch(a -> model.expect(a.getKey(), s).code()
                                == a.getValue().code()))
                .toList();
        ctx.observedOnPeer(replica, Set.copyOf(fits));
        return new Seen(answers, fits);
    }

    /**
     * Why site B's destination answer for a replica shows that it does not replicate {@code source}: it names another
     * source back, or (a group) its member map is not the inverse of site A's. Empty where B cannot tell (no answer).
     */
    private static Optional<String> notTheReplica(Seen seen, Addressing source, PeerReplicas.Named named) {
        Outcome o = seen.answers().get(Rpc.GET_REPLICATION_DESTINATION_INFO);
        if (o == null || !o.ok() || source.fixture().isEmpty()) {
            return Optional.empty();
        }
        String sourceId = source.fixture().get().id();
        ReplicationDestination back =
                ((GetReplicationDestinationInfoResponse) o.response()).getReplicationDestination();
        String backId = back.hasVolume()
                ? back.getVolume().getVolumeId()
                : back.hasVolumegroup() ? back.getVolumegroup().getVolumeGroupId() : "";
        if (!backId.equals(sourceId)) {
            return Optional.of("site B's GetReplicationDestinationInfo on it names "
                    + (backId.isEmpty() ? "nothing" : backId) + " back, not " + sourceId);
        }
        if (back.hasVolumegroup()
                && named.answer().isPresent()
                && named.answer().get().hasVolumegroup()) {
            Map<String, String> there = named.answer().get().getVolumegroup().getVolumeIdsMap();
            Map<String, String> here = back.getVolumegroup().getVolumeIdsMap();
            if (!there.isEmpty() && !here.isEmpty()) {
                Map<String, String> inverse = new LinkedHashMap<>();
                there.forEach((member, destination) -> inverse.put(destination, member));
                if (!inverse.equals(here)) {
                    return Optional.of("site A maps the members " + there + ", site B maps them back " + here
                            + ": not the inverse, so at least one member's destination is not its replica");
                }
            }
        }
        return Optional.empty();
    }
}
