package io.volrep.testkit;

import io.volrep.api.ErrorScheme;
import io.volrep.api.ReplicationSource.Kind;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.testkit.LifecycleModel.State;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The checks that drive a source on the target (site A) and its replica on the peer site (B) through the spec's own
 * RPCs: a failover round trip A -> B -> A, a promote refused while the other site is primary, and (used by the
 * Lifecycle and resync checks) a resync of a demoted A while B is primary. Without a peer they report NOT RUN. The
 * replica's id is what A's GetReplicationDestinationInfo answers, or the source's own id where A does not
 * implement it.
 */
final class TwoSiteChecks {
    static final String GROUP = "Two sites";
    static final String ROUND_TRIP = "Two sites: a failover round trip A -> B -> A, each site answering as the model"
            + " says at every step, leaves both sites as they were";

    private TwoSiteChecks() {}

    /** The id of the failover round trip of {@code source}'s kind: the check whose own subject a failover is. */
    static String roundTripId(Addressing source) {
        return "two-sites/" + (source.isGroup() ? "group" : "volume") + "/round-trip";
    }

    static List<Check> checks(ConformanceConfig config) {
        LifecycleModel model = LifecycleModel.forDialect(config.dialect());
        ErrorScheme scheme = config.dialect().errorScheme();
        List<Check> checks = new ArrayList<>();
        for (Kind kind : LifecycleChecks.KINDS) {
            String label = LifecycleChecks.kindLabel(kind);
            Needs needs = (kind == Kind.VOLUME ? Needs.volume() : Needs.group()).calls(40);
            checks.add(Check.builder()
                    .id("two-sites/" + LifecycleChecks.kindId(kind) + "/round-trip")
                    .name(ROUND_TRIP + " [" + label + "]")
                    .hint("demote on one site, promote on the other (without force once the demotion has arrived),"
                            + " and back; an enable on the secondary keeps it secondary (where site B's answers show it secondary);"
                            + " disable must remove the"
                            + " replica on the peer site too (no copy left in error), even during the first sync")
                    .body(ctx -> failoverRoundTrip(ctx, model, ctx.source(kind)))
                    .needs(needs)
                    .build());
            checks.add(Check.builder()
                    .id("two-sites/" + LifecycleChecks.kindId(kind) + "/promote-while-peer-primary")
                    .name(ControllerChecks.rowCase(
                            scheme,
                            Rpc.PROMOTE_VOLUME,
                            StatusCode.FAILED_PRECONDITION,
                            label + ", the replica on site B while site A is primary, without force"))
                    .requirement(Requirement.OPTIONAL)
                    .hint("a promote without force of a copy whose peer is primary makes two primaries (split-brain):"
                            + " refuse it with 9 FAILED_PRECONDITION (\"cannot be promoted without force\"), and"
                            + " change nothing on either site")
                    .body(ctx -> promoteWhilePeerPrimary(ctx, model, ctx.source(kind)))
                    .needs(needs)
                    .build());
        }
        return checks;
    }

    /**
     * A -> B -> A, every action on one site followed by an observation of the other before any further action: an
     * enable disabled at once (during the first sync: no copy may stay on B), an enable on A and on B's replica (B
     * stays secondary), the failover to B, the failback to A, and a disable that leaves no replica on B.
     */
    private static void failoverRoundTrip(ConformanceContext ctx, LifecycleModel model, Addressing a) {
        ctx.requirePeer();
        ctx.sequential();
        ctx.step(Rpc.ENABLE_VOLUME_REPLICATION, a);
        Addressing b = ctx.replicaOf(a);
        ctx.step(Rpc.DISABLE_VOLUME_REPLICATION, a);
        requireNoReplica(ctx, model, b, "DisableVolumeReplication on A right after its enable (the first sync)");
        LifecycleChecks.observe(ctx, model, a, State.DISABLED, "DisableVolumeReplication on A");

        ctx.step(Rpc.ENABLE_VOLUME_REPLICATION, a);
        observeBoth(ctx, model, a, State.PRIMARY, b, State.SECONDARY, "EnableVolumeReplication on A");
        if (PeerSite.mayAct(model, Rpc.ENABLE_VOLUME_REPLICATION, ctx.observedOnPeer(b))) {
            // Only where site B's answers tell a secondary from a volume with replication disabled (not in v0.1.3,
            // whose Info refuses both): an enable of the latter would enable a volume the kit did not observe.
            ctx.expect(
                    ctx.callPeer(Rpc.ENABLE_VOLUME_REPLICATION, b),
                    StatusCode.OK,
                    "EnableVolumeReplication on B's " + b + " (replication enabled, secondary: it stays secondary)");
            observeBoth(ctx, model, a, State.PRIMARY, b, State.SECONDARY, "EnableVolumeReplication on B's replica");
        }
        ctx.step(Rpc.DEMOTE_VOLUME, a);
        observeBoth(ctx, model, a, State.SECONDARY, b, State.SECONDARY, "DemoteVolume on A");
        promoteAfterDemotion(ctx, model, a, b, true);
        observeBoth(ctx, model, a, State.SECONDARY, b, State.PRIMARY, "the failover to B");
        ctx.expect(ctx.callPeer(Rpc.DEMOTE_VOLUME, b), StatusCode.OK, "DemoteVolume on B's " + b);
        observeBoth(ctx, model, a, State.SECONDARY, b, State.SECONDARY, "DemoteVolume on B");
        promoteAfterDemotion(ctx, model, a, b, false);
        observeBoth(ctx, model, a, State.PRIMARY, b, State.SECONDARY, "the failback to A");
        ctx.step(Rpc.DISABLE_VOLUME_REPLICATION, a);
        requireNoReplica(ctx, model, b, "DisableVolumeReplication on A");
        LifecycleChecks.observe(ctx, model, a, State.DISABLED, "DisableVolumeReplication on A");
    }

    /** Site A primary: a promote without force on B is refused, and neither site changes. */
    private static void promoteWhilePeerPrimary(ConformanceContext ctx, LifecycleModel model, Addressing a) {
        ctx.requirePeer();
        ctx.sequential();
        ctx.step(Rpc.ENABLE_VOLUME_REPLICATION, a);
        Addressing b = ctx.replicaOf(a);
        LifecycleChecks.observe(ctx, model, a, State.PRIMARY, "EnableVolumeReplication on A");
        PeerSite.observe(ctx, model, a, b, State.SECONDARY, "EnableVolumeReplication on A");
        Outcome o = ctx.callPeer(Rpc.PROMOTE_VOLUME, b);
        if (!o.ok()) {
            // Refused, as the check hopes: a refusal must change nothing on either site (a MUST, whatever the level).
            ctx.mustHold(
                    () -> observeBoth(ctx, model, a, State.PRIMARY, b, State.SECONDARY, "the refused promote on B"),
                    "PromoteVolume without force on B's " + b + " was refused (" + o.describe() + ") but changed");
        }
        ctx.expect(
                o,
                StatusCode.FAILED_PRECONDITION,
                "PromoteVolume without force on B's " + b + " while A is" + " primary");
    }

    /**
     * Promotes {@code target} (B's {@code replica} when {@code onPeer}, else A's {@code source}) without force, waiting
     * out the demotion window: within the settle timeout a 9 or 10 right after the other site's demote is the
     * storage's "demotion not arrived yet". Before each attempt the target is observed secondary, and after each
     * refusal the other site is observed unchanged.
     */
    static void promoteAfterDemotion(
            ConformanceContext ctx, LifecycleModel model, Addressing source, Addressing replica, boolean onPeer) {
        Addressing target = onPeer ? replica : source;
        String site = onPeer ? "B's " : "A's ";
        Outcome o = ctx.settle(
                () -> {
                    if (onPeer) {
                        PeerSite.observe(ctx, model, source, replica, State.SECONDARY, "the demote on A");
                        return ctx.callPeer(Rpc.PROMOTE_VOLUME, replica);
                    }
                    PeerSite.observe(ctx, model, source, replica, State.SECONDARY, "the demote on B");
                    return ctx.call(Rpc.PROMOTE_VOLUME, source);
                },
                r -> r.code() == StatusCode.FAILED_PRECONDITION || r.code() == StatusCode.ABORTED);
        ctx.expect(
                o,
                StatusCode.OK,
                "PromoteVolume without force on " + site + target
                        + " after the other site's demote (waited out the demotion window up to the settle timeout)");
    }

    /** After an action on either site: observes A as {@code stateA}, then B's replica as {@code stateB}. */
    static void observeBoth(
            ConformanceContext ctx,
            LifecycleModel model,
            Addressing a,
            State stateA,
            Addressing b,
            State stateB,
            String after) {
        LifecycleChecks.observe(ctx, model, a, stateA, after + " (site A)");
        PeerSite.observe(ctx, model, a, b, stateB, after + " (site B)");
    }

    /**
     * No replica left on B: every probe answers "not replicated" (9) or "does not exist" (5), within the settle
     * timeout (storage removes the copy a while after the disable); a copy still replicating, or in error, is a leftover.
     */
    static void requireNoReplica(ConformanceContext ctx, LifecycleModel model, Addressing b, String after) {
        Map<Rpc, Outcome> last = new LinkedHashMap<>();
        ctx.settle(
                () -> {
                    last.clear();
                    for (Rpc probe : PeerSite.readOnlyProbes(model)) {
                        last.put(probe, ctx.callPeer(probe, b));
                    }
                    return last.values().stream()
                            .filter(o -> !gone(o))
                            .findFirst()
                            .orElse(last.values().iterator().next());
                },
                o -> !gone(o));
        List<String> leftovers = last.values().stream()
                .filter(o -> !gone(o))
                .map(o -> o.rpc().methodName() + " -> " + o.describe())
                .toList();
        if (!leftovers.isEmpty()) {
            ctx.fail("after " + after + ", the peer site still holds a replica " + b + " (a leftover: "
                    + String.join(", ", leftovers)
                    + "); replication disabled must leave no copy replicating or in error on either site");
        }
    }

    private static boolean gone(Outcome o) {
        return o.code() == StatusCode.FAILED_PRECONDITION
                || o.code() == StatusCode.NOT_FOUND
                || o.code() == StatusCode.UNIMPLEMENTED;
    }
}
