package io.volrep.testkit;

import io.volrep.api.ErrorScheme;
import io.volrep.api.ReplicationSource.Kind;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.testkit.LifecycleModel.State;
import java.util.ArrayList;
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

    static List<Check> checks(ConformanceConfig config) {
        LifecycleModel model = LifecycleModel.forDialect(config.dialect());
        ErrorScheme scheme = config.dialect().errorScheme();
        List<Check> checks = new ArrayList<>();
        for (Kind kind : LifecycleChecks.KINDS) {
            String label = LifecycleChecks.kindLabel(kind);
            Needs needs = kind == Kind.VOLUME ? Needs.volume() : Needs.group();
            checks.add(new Check(
                    "two-sites/" + LifecycleChecks.kindId(kind) + "/round-trip",
                    ROUND_TRIP + " [" + label + "]",
                    Requirement.REQUIRED,
                    "demote on one site, promote on the other (without force once the demotion has arrived), and back;"
                            + " disable must remove the replica on the peer site too (no copy left in error)",
                    ctx -> failoverRoundTrip(ctx, model, ctx.source(kind)),
                    needs));
            checks.add(new Check(
                    "two-sites/" + LifecycleChecks.kindId(kind) + "/promote-while-peer-primary",
                    ControllerChecks.rowCase(
                            scheme,
                            Rpc.PROMOTE_VOLUME,
                            StatusCode.FAILED_PRECONDITION,
                            label + ", the replica on site B while site A is primary, without force"),
                    Requirement.OPTIONAL,
                    "a promote without force of a copy whose peer is primary makes two primaries"
                            + " (split-brain): refuse it with 9 FAILED_PRECONDITION (\"cannot be promoted without force\")",
                    ctx -> promoteWhilePeerPrimary(ctx, model, ctx.source(kind)),
                    needs));
        }
        return checks;
    }

    /** A -> B -> A: every step on both sites observed, then disabled, and no replica left on B. */
    private static void failoverRoundTrip(ConformanceContext ctx, LifecycleModel model, Addressing a) {
        ctx.requirePeer();
        ctx.sequential();
        ctx.step(Rpc.ENABLE_VOLUME_REPLICATION, a);
        Addressing b = ctx.replicaOf(a);
        observeBoth(ctx, model, a, State.PRIMARY, b, State.SECONDARY, "EnableVolumeReplication on A");
        ctx.step(Rpc.DEMOTE_VOLUME, a);
        promoteAfterDemotion(ctx, b, true);
        observeBoth(ctx, model, a, State.SECONDARY, b, State.PRIMARY, "the failover to B");
        ctx.expect(ctx.callPeer(Rpc.DEMOTE_VOLUME, b), StatusCode.OK, "DemoteVolume on B's " + b);
        promoteAfterDemotion(ctx, a, false);
        observeBoth(ctx, model, a, State.PRIMARY, b, State.SECONDARY, "the failback to A");
        ctx.step(Rpc.DISABLE_VOLUME_REPLICATION, a);
        LifecycleChecks.observe(ctx, model, a, State.DISABLED, "DisableVolumeReplication on A");
        requireNoReplica(ctx, model, b, "DisableVolumeReplication on A");
    }

    /** Site A primary: a promote without force on B is refused, and neither site changes. */
    private static void promoteWhilePeerPrimary(ConformanceContext ctx, LifecycleModel model, Addressing a) {
        ctx.requirePeer();
        ctx.sequential();
        ctx.step(Rpc.ENABLE_VOLUME_REPLICATION, a);
        Addressing b = ctx.replicaOf(a);
        LifecycleChecks.observe(ctx, model, a, State.PRIMARY, "EnableVolumeReplication on A");
        Outcome o = ctx.callPeer(Rpc.PROMOTE_VOLUME, b);
        ctx.expect(
                o,
                StatusCode.FAILED_PRECONDITION,
                "PromoteVolume without force on B's " + b + " while A is" + " primary");
        observeBoth(ctx, model, a, State.PRIMARY, b, State.SECONDARY, "the refused promote on B");
    }

    /**
     * Promotes {@code target} (on B when {@code onPeer}) without force, waiting out the demotion window: within the
     * settle timeout a 9 or 10 right after the other site's demote is the storage's "demotion not arrived yet".
     */
    static void promoteAfterDemotion(ConformanceContext ctx, Addressing target, boolean onPeer) {
        Outcome o = ctx.settle(
                () -> onPeer ? ctx.callPeer(Rpc.PROMOTE_VOLUME, target) : ctx.call(Rpc.PROMOTE_VOLUME, target),
                r -> r.code() == StatusCode.FAILED_PRECONDITION || r.code() == StatusCode.ABORTED);
        ctx.expect(
                o,
                StatusCode.OK,
                "PromoteVolume without force on " + (onPeer ? "B's " : "A's ") + target
                        + " after the other site's demote (waited out the demotion window up to the settle timeout)");
    }

    /** Observes A as {@code stateA} and B's replica as {@code stateB}. */
    private static void observeBoth(
            ConformanceContext ctx,
            LifecycleModel model,
            Addressing a,
            State stateA,
            Addressing b,
            State stateB,
            String after) {
        LifecycleChecks.observe(ctx, model, a, stateA, after + " (site A)");
        observePeer(ctx, model, b, stateB, after + " (site B)");
    }

    /** The peer's replica answers every probe as in {@code expected}. */
    static void observePeer(ConformanceContext ctx, LifecycleModel model, Addressing b, State expected, String after) {
        StringBuilder said = new StringBuilder();
        boolean fits = true;
        for (Rpc probe : model.probes()) {
            Outcome o = ctx.callPeer(probe, b);
            if (o.code() == StatusCode.UNIMPLEMENTED && ctx.scheme().lists(probe, StatusCode.UNIMPLEMENTED)) {
                continue;
            }
            if (o.ok()) {
                ResponseRules.requireValid(ctx, o, b);
            }
            said.append(said.isEmpty() ? "" : ", ")
                    .append(probe.methodName())
                    .append(" -> ")
                    .append(o.describe());
            fits &= o.code() == model.expect(probe, expected).code();
        }
        if (!fits) {
            ctx.fail("after " + after + ", the peer site's " + b + " must be " + expected.label() + ", but it answers "
                    + said);
        }
    }

    /**
     * No replica left on B: every probe answers "not replicated" (9) or "does not exist" (5), within the settle
     * timeout (storage removes the copy a while after the disable); a copy still replicating, or in error, is a leftover.
     */
    static void requireNoReplica(ConformanceContext ctx, LifecycleModel model, Addressing b, String after) {
        Map<Rpc, Outcome> last = new java.util.LinkedHashMap<>();
        ctx.settle(
                () -> {
                    last.clear();
                    for (Rpc probe : model.probes()) {
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
