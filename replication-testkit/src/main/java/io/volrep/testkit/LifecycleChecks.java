package io.volrep.testkit;

import io.volrep.api.ErrorScheme;
import io.volrep.api.ReplicationSource.Kind;
import io.volrep.api.Rpc;
import io.volrep.api.SpecDialect;
import io.volrep.api.StatusCode;
import io.volrep.testkit.LifecycleModel.Expectation;
import io.volrep.testkit.LifecycleModel.State;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The checks that walk the {@link LifecycleModel}: every RPC in every reachable state for every source kind (named
 * after the RPC's row, in the RPC's group), authentication on every RPC and kind, isolation between sources, and the
 * observation of a source's state through the model's probes. Every walk check sends its calls one at a time and
 * without ABORTED retries: nothing is ever pending, so 10 ABORTED is a failure there.
 */
final class LifecycleChecks {
    static final String ISOLATION = "Isolation";
    static final String CONCURRENT = "Isolation: concurrent calls on distinct sources never draw 10 ABORTED [every fixture]";
    static final List<Kind> KINDS = List.of(Kind.VOLUME, Kind.VOLUME_GROUP);

    private LifecycleChecks() {
    }

    static String kindLabel(Kind kind) {
        return kind == Kind.VOLUME ? "volume" : "volume group";
    }

    static String kindId(Kind kind) {
        return kind == Kind.VOLUME ? "volume" : "group";
    }

    /** The walk check's name: the row for a refusal, {@code "<rpc>: allowed -> 0 OK, then <state>"} for an OK. */
    static String walkName(ErrorScheme scheme, Rpc rpc, Kind kind, State state, Expectation e) {
        String where = " [" + kindLabel(kind) + ", " + state.label() + "]";
        return e.ok() ? rpc.methodName() + ": allowed -> 0 OK, then " + e.after().shortLabel() + where
                : ControllerChecks.row(scheme, rpc, e.code()) + where;
    }

    /** The walk check's id, e.g. {@code "PromoteVolume/volume/disabled"}. */
    static String walkId(Rpc rpc, Kind kind, State state) {
        return rpc.methodName() + "/" + kindId(kind) + "/" + state.id();
    }

    /** The walk checks of {@code rpc}: one per source kind and reachable state. */
    static List<Check> walk(SpecDialect dialect, Rpc rpc) {
        LifecycleModel model = LifecycleModel.forDialect(dialect);
        ErrorScheme scheme = dialect.errorScheme();
        List<Check> checks = new ArrayList<>();
        for (Kind kind : KINDS) {
            for (State state : model.reachable()) {
                Expectation e = model.expect(rpc, state);
                String hint = e.ok()
                        ? "the spec allows " + rpc.methodName() + " here; after it the source must answer as "
                                + e.after().label() + ", and the same call again must answer 0 OK and change nothing"
                        : rpc.methodName() + " must check the source's state (" + state.label() + ") and refuse with "
                                + e.code().display() + " without changing it; check the rule for "
                                + kindLabel(kind) + "s too";
                checks.add(new Check(walkId(rpc, kind, state), walkName(scheme, rpc, kind, state, e),
                        Requirement.REQUIRED, hint, ctx -> walkOne(ctx, model, rpc, kind, state)));
            }
        }
        return checks;
    }

    private static void walkOne(ConformanceContext ctx, LifecycleModel model, Rpc rpc, Kind kind, State state) {
        Addressing target = ctx.source(kind);
        ctx.sequential();
        reach(ctx, model, target, state);
        Expectation e = model.expect(rpc, state);
        Outcome first = ctx.call(rpc, target);
        judge(ctx, first, e.code(), target, rpc.methodName() + " on " + target + " (" + state.label() + ")");
        observe(ctx, model, target, e.after(), rpc.methodName() + " answered " + first.code().display() + " in "
                + state.label());
        if (e.ok()) {
            Outcome again = ctx.call(rpc, target);
            judge(ctx, again, model.expect(rpc, e.after()).code(), target, "not idempotent: " + rpc.methodName()
                    + " on " + target + " repeated (" + e.after().label() + ")");
            observe(ctx, model, target, e.after(), "the same " + rpc.methodName() + " repeated");
        }
    }

    /** Drives {@code target} (replication disabled) along the model's shortest path to {@code state}. */
    static void reach(ConformanceContext ctx, LifecycleModel model, Addressing target, State state) {
        for (Rpc step : model.pathTo(state)) {
            ctx.step(step, target);
        }
    }

    /**
     * Fails unless {@code outcome} has {@code expected}; 12 UNIMPLEMENTED where the table allows it becomes "not
     * implemented"; an OK response must also satisfy every response-validity rule.
     */
    static void judge(ConformanceContext ctx, Outcome outcome, StatusCode expected, Addressing target, String what) {
        ctx.expect(outcome, expected, what);
        if (outcome.ok()) {
            ResponseRules.requireValid(ctx, outcome, target);
        }
    }

    /**
     * Observes {@code target}'s state through the model's probes (calls that change nothing) and fails unless the
     * answers are those of {@code expected}: the state after a call is verified, never taken on trust.
     */
    static void observe(ConformanceContext ctx, LifecycleModel model, Addressing target, State expected, String after) {
        Map<Rpc, Outcome> seen = new LinkedHashMap<>();
        List<String> consistent = consistent(model, seen);
        // The most telling probes first (the answer fewest states share), and no more once only one state fits.
        List<Rpc> probes = new ArrayList<>(model.probes());
        probes.sort(java.util.Comparator.comparingLong(p -> model.reachable().stream()
                .filter(s -> model.expect(p, s).code() == model.expect(p, expected).code()).count()));
        for (Rpc probe : probes) {
            if (consistent.size() == 1 && consistent.contains(expected.label())) {
                break;
            }
            Outcome o = ctx.call(probe, target);
            if (o.code() == StatusCode.UNIMPLEMENTED && ctx.scheme().lists(probe, StatusCode.UNIMPLEMENTED)) {
                continue;       // this probe cannot tell; the others still can
            }
            if (o.ok()) {
                ResponseRules.requireValid(ctx, o, target);
            }
            seen.put(probe, o);
            consistent = consistent(model, seen);
        }
        if (!consistent.contains(expected.label())) {
            StringBuilder answers = new StringBuilder();
            seen.values().forEach(o -> answers.append(answers.isEmpty() ? "" : ", ").append(o.rpc().methodName())
                    .append(" -> ").append(o.describe()).append(ctx.note(o)));
            ctx.fail("after " + after + ", " + target + " must be " + expected.label() + ", but it answers "
                    + answers + (consistent.isEmpty() ? ", as in no state of the model"
                    : ", as if it were " + String.join(" or ", consistent)));
        }
    }

    /** The labels of the states whose answers to the probes so far are {@code seen}. */
    private static List<String> consistent(LifecycleModel model, Map<Rpc, Outcome> seen) {
        List<String> consistent = new ArrayList<>();
        for (State s : model.reachable()) {
            if (seen.entrySet().stream().allMatch(p -> model.expect(p.getKey(), s).code() == p.getValue().code())) {
                consistent.add(s.label());
            }
        }
        return consistent;
    }

    /**
     * Authentication on {@code rpc} for every kind, with wrong and with missing secrets, before and after a valid
     * call on the same connection (no session may outlive a request).
     */
    static List<Check> authentication(SpecDialect dialect, Rpc rpc) {
        LifecycleModel model = LifecycleModel.forDialect(dialect);
        ErrorScheme scheme = dialect.errorScheme();
        List<Check> checks = new ArrayList<>();
        for (Kind kind : KINDS) {
            for (String variant : List.of("wrong", "missing")) {
                String name = authName(scheme, rpc, kind, variant);
                checks.add(new Check(rpc.methodName() + "/" + kindId(kind) + "/auth-" + variant, name,
                        Requirement.REQUIRED, "every call must be authenticated by its own secrets: check the "
                        + kindLabel(kind) + " path too, and that a valid call does not open a session",
                        ctx -> {
                            Map<String, String> bad = new LinkedHashMap<>();
                            if (variant.equals("wrong")) {
                                ctx.requireSecrets().keys().forEach(k -> bad.put(k, "volrep-conformance-wrong-secret"));
                            } else {
                                ctx.requireSecrets();
                            }
                            Addressing target = ctx.source(kind);
                            ctx.sequential();
                            reach(ctx, model, target, stateWhereAllowed(model, rpc));
                            ctx.expect(ctx.call(rpc, target, bad), StatusCode.UNAUTHENTICATED,
                                    rpc.methodName() + " on " + target + " with " + variant + " secrets");
                            ctx.step(rpc, target);
                            ctx.expect(ctx.call(rpc, target, bad), StatusCode.UNAUTHENTICATED,
                                    rpc.methodName() + " on " + target + " with " + variant + " secrets after a valid"
                                            + " call on the same connection (no session may outlive a request)");
                        }));
            }
        }
        return checks;
    }

    /** The authentication check's name; {@code variant} is {@code "wrong"} or {@code "missing"}. */
    static String authName(ErrorScheme scheme, Rpc rpc, Kind kind, String variant) {
        return ControllerChecks.rowCase(scheme, rpc, StatusCode.UNAUTHENTICATED, kindLabel(kind) + ", " + variant
                + " secrets, before and after a valid call");
    }

    /** The state in which {@code rpc} answers OK, preferring one where it changes the state. */
    static State stateWhereAllowed(LifecycleModel model, Rpc rpc) {
        State allowed = null;
        for (State s : model.reachable()) {
            Expectation e = model.expect(rpc, s);
            if (e.ok() && e.after() != s) {
                return s;
            }
            if (e.ok() && allowed == null) {
                allowed = s;
            }
        }
        if (allowed == null) {
            throw new IllegalStateException(rpc + " is refused in every state of the model");
        }
        return allowed;
    }

    // ---------------------------------------------------------------- isolation

    static List<Check> isolation(ConformanceConfig config) {
        LifecycleModel model = LifecycleModel.forDialect(config.dialect());
        List<Check> checks = new ArrayList<>();
        // Ids: every check that needs a group has "/group/" in its id (so '*/group/*' selects it); 0.1's ids stay
        // accepted as former ids.
        checks.add(isolationCheck(model, "volume", "volume", "isolation/volume/round-trip-spares-volume",
                ctx -> ctx.volume(), ctx -> secondVolume(ctx)).withFormerIds("isolation/volume-volume"));
        checks.add(isolationCheck(model, "volume group", "volume", "isolation/group/round-trip-spares-volume",
                ctx -> ctx.volumeGroup(), ctx -> ctx.volume()).withFormerIds("isolation/group-volume"));
        checks.add(isolationCheck(model, "volume", "volume group", "isolation/group/spared-by-volume-round-trip",
                ctx -> ctx.volume(), ctx -> ctx.volumeGroup()).withFormerIds("isolation/volume-group"));
        checks.add(new Check("isolation/volume/after-refusals", "Isolation: a call made after the previous one was"
                + " answered never draws 10 ABORTED [refused calls between the steps of a round trip]",
                Requirement.REQUIRED, "a lock or an operation record that outlives its call (often on an error path: a"
                        + " refused or failed call that does not release it)", ctx -> sequentialAfterRefusals(ctx, model))
                .withFormerIds("isolation/sequential"));
        checks.add(new Check("isolation/all-fixtures/concurrent", CONCURRENT, Requirement.REQUIRED,
                "10 ABORTED is for an operation pending on the same source: a lock that spans sources (per kind,"
                        + " per pool, global) must not refuse calls on other sources",
                ctx -> concurrentRoundTrips(ctx, model)).withFormerIds("isolation/concurrent"));
        return checks;
    }

    private static Addressing secondVolume(ConformanceContext ctx) {
        if (ctx.config().volumes().size() < 2) {
            ctx.skip("needs a second fixture volume (--volume)");
        }
        return Addressing.volume(ctx.config().volumes().get(1));
    }

    private static Check isolationCheck(LifecycleModel model, String actorKind, String observerKind, String id,
                                        java.util.function.Function<ConformanceContext, Addressing> actorOf,
                                        java.util.function.Function<ConformanceContext, Addressing> observerOf) {
        String name = "Isolation: a failover round trip on one " + actorKind + " leaves another " + observerKind
                + "'s state unchanged [" + actorKind + " -> " + observerKind + ", observed in every state]";
        return new Check(id, name, Requirement.REQUIRED, "state must be kept per source (kind and id): look for state"
                + " shared between sources, keyed by id without kind, or applied to every source", ctx -> {
            Addressing actor = actorOf.apply(ctx);
            Addressing observer = observerOf.apply(ctx);
            ctx.sequential();
            for (State observed : model.reachable()) {
                ctx.step(Rpc.DISABLE_VOLUME_REPLICATION, observer);
                reach(ctx, model, observer, observed);
                for (Rpc step : model.roundTrip()) {
                    ctx.step(step, actor);
                    observe(ctx, model, observer, observed, step.methodName() + " on " + actor);
                }
            }
        });
    }

    /** Before every step of a round trip, every call the model refuses in the current state; none may leave a lock. */
    private static void sequentialAfterRefusals(ConformanceContext ctx, LifecycleModel model) {
        Addressing target = ctx.volume();
        ctx.sequential();
        State at = State.DISABLED;
        for (Rpc step : model.roundTrip()) {
            for (Rpc refused : model.rpcs()) {
                Expectation e = model.expect(refused, at);
                if (!e.ok()) {
                    judge(ctx, ctx.call(refused, target), e.code(), target, refused.methodName() + " on " + target
                            + " (" + at.label() + ")");
                }
            }
            judge(ctx, ctx.call(step, target), StatusCode.OK, target, step.methodName() + " on " + target
                    + " right after the refused calls (" + at.label() + ")");
            at = model.expect(step, at).after();
        }
    }

    /** Every fixture at once runs the round trip; none of their calls may draw ABORTED. */
    private static void concurrentRoundTrips(ConformanceContext ctx, LifecycleModel model) throws Exception {
        List<Addressing> sources = new ArrayList<>();
        ctx.config().volumes().forEach(v -> sources.add(Addressing.volume(v)));
        if (ctx.dialect().supports(Kind.VOLUME_GROUP)) {
            ctx.config().volumeGroups().forEach(g -> sources.add(Addressing.volumeGroup(g)));
        }
        if (sources.size() < 2) {
            ctx.skip("needs two fixtures (--volume, --volume-group)");
        }
        ctx.sequential();
        List<String> problems = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(sources.size());
        try {
            List<Future<?>> runs = new ArrayList<>();
            for (Addressing source : sources) {
                runs.add(pool.submit(() -> {
                    start.await();
                    for (Rpc step : model.roundTrip()) {
                        Outcome o = ctx.call(step, source);
                        if (o.code() == StatusCode.UNIMPLEMENTED && ctx.scheme().lists(step, StatusCode.UNIMPLEMENTED)) {
                            ctx.call(Rpc.DISABLE_VOLUME_REPLICATION, source);
                            return null;
                        }
                        if (!o.ok()) {
                            problems.add(step.methodName() + " on " + source + " -> " + o.describe()
                                    + (o.code() == StatusCode.ABORTED ? " (nothing was pending on " + source + ")" : ""));
                            return null;
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> run : runs) {
                run.get();
            }
        } finally {
            pool.shutdownNow();
        }
        if (!problems.isEmpty()) {
            ctx.fail(sources.size() + " sources, each a round trip at the same time: " + String.join("; ", problems));
        }
    }

    // ---------------------------------------------------------------- fixtures and responses

    /** After every other check: every fixture must be back in the state it was found in. */
    static List<Check> fixturesRestored(ConformanceConfig config) {
        List<Check> checks = new ArrayList<>();
        LifecycleModel model = LifecycleModel.forDialect(config.dialect());
        for (String id : config.volumes()) {
            checks.add(restored(model, Addressing.volume(id), "fixtures-restored/volume/" + id));
        }
        for (String id : config.volumeGroups()) {
            checks.add(restored(model, Addressing.volumeGroup(id), "fixtures-restored/group/" + id));
        }
        return checks;
    }

    private static Check restored(LifecycleModel model, Addressing target, String id) {
        return new Check(id, "Fixtures: " + target + " ends with replication disabled", Requirement.REQUIRED,
                "the suite disables what it enabled: a disable that answers 0 OK must really disable", ctx -> {
            if (target.source() != null && target.source().hasVolumegroup()) {
                ctx.volumeGroup();
            }
            ctx.sequential();
            observe(ctx, model, target, State.DISABLED, "every check");
        });
    }

    /** Per kind: every response rule in every state of a failover round trip, and after it. */
    static List<Check> roundTripValidity(ConformanceConfig config) {
        LifecycleModel model = LifecycleModel.forDialect(config.dialect());
        List<Check> checks = new ArrayList<>();
        for (Kind kind : KINDS) {
            checks.add(new Check("response-validity/" + kindId(kind) + "/round-trip",
                    "Response validity: every rule holds in every state of a failover round trip and after it ["
                            + kindLabel(kind) + "]", Requirement.REQUIRED,
                    "REQUIRED fields and non-negative sizes must hold for groups as for volumes, and after a failover",
                    ctx -> {
                        Addressing target = ctx.source(kind);
                        ctx.sequential();
                        State at = State.DISABLED;
                        for (Rpc step : roundTripAndBack(model)) {
                            judge(ctx, ctx.call(step, target), StatusCode.OK, target,
                                    step.methodName() + " on " + target);
                            at = model.expect(step, at).after();
                            observe(ctx, model, target, at, step.methodName());
                        }
                    }));
        }
        return checks;
    }

    /** The round trip without its final disable, then once more promoted: the failover "and back". */
    private static List<Rpc> roundTripAndBack(LifecycleModel model) {
        List<Rpc> trip = new ArrayList<>(model.roundTrip());
        trip.remove(trip.size() - 1);
        trip.add(Rpc.DEMOTE_VOLUME);
        trip.add(Rpc.PROMOTE_VOLUME);
        return trip;
    }
}
