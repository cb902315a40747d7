package io.volrep.testkit;

import io.volrep.api.ErrorScheme;
import io.volrep.api.ReplicationSource;
import io.volrep.api.ReplicationSource.Kind;
import io.volrep.api.Rpc;
import io.volrep.api.SpecDialect;
import io.volrep.api.StatusCode;
import io.volrep.testkit.LifecycleModel.Expectation;
import io.volrep.testkit.LifecycleModel.State;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.opentest4j.AssertionFailedError;

/**
 * The checks that walk the {@link LifecycleModel}: every RPC in every reachable state for every source kind (named
 * after the RPC's row, in the RPC's group), authentication on every RPC and kind, isolation between sources, and the
 * observation of a source's state through the model's probes. Every walk check sends its calls one at a time and
 * without ABORTED retries: nothing is ever pending, so 10 ABORTED is a failure there.
 */
final class LifecycleChecks {
    static final String ISOLATION = "Isolation";
    static final String CONCURRENT =
            "Isolation: concurrent calls on distinct sources never draw 10 ABORTED [every fixture]";
    static final String SEQUENTIAL = "Isolation: a call made after the previous one was answered is not refused with"
            + " 10 ABORTED beyond the settle timeout [refused calls between the steps of a round trip]";
    static final List<Kind> KINDS = List.of(Kind.VOLUME, Kind.VOLUME_GROUP);
    /** The value of every secret the wrong-secrets calls send. */
    static final String WRONG_SECRET = "volrep-conformance-wrong-secret";

    static final String INTERLEAVED = "Isolation: a call sent while another is pending on the same source answers 0 OK"
            + " or 10 ABORTED, and one refused never takes effect [volume, each pair of calls that would change the"
            + " state, in every state]";
    /**
     * The checks that judge what sources do to each other: a failure seen on one fixture that its own calls do not
     * show again when replayed alone is theirs to name (another source's call changed it, or a lock spanning sources
     * refused it).
     */
    static final List<String> ISOLATION_CHECKS = List.of(
            Bystanders.VOLUME_VOLUME,
            Bystanders.GROUP_VOLUME,
            Bystanders.VOLUME_GROUP,
            Bystanders.ALL,
            "isolation/all-fixtures/concurrent");

    private LifecycleChecks() {}

    static String kindLabel(Kind kind) {
        return kind == Kind.VOLUME ? "volume" : "volume group";
    }

    static String kindId(Kind kind) {
        return kind == Kind.VOLUME ? "volume" : "group";
    }

    /** The walk check's name: the row for a refusal, {@code "<rpc>: allowed -> 0 OK, then <state>"} for an OK. */
    static String walkName(ErrorScheme scheme, Rpc rpc, Kind kind, State state, Expectation e) {
        String where = " [" + kindLabel(kind) + ", " + state.label() + "]";
        return e.ok()
                ? rpc.methodName() + ": allowed -> 0 OK, then " + e.after().shortLabel() + where
                : ControllerChecks.row(scheme, rpc, e.code()) + where;
    }

    /** The walk check's id, e.g. {@code "PromoteVolume/volume/disabled"}. */
    static String walkId(Rpc rpc, Kind kind, State state) {
        return rpc.methodName() + "/" + kindId(kind) + "/" + state.id();
    }

    /** The force check's name: the walk check's, with {@code force} in the bracket. */
    static String forceName(ErrorScheme scheme, Rpc rpc, Kind kind, State state, Expectation e) {
        String name = walkName(scheme, rpc, kind, state, e);
        return name.substring(0, name.length() - 1) + ", force]";
    }

    /**
     * The lifecycle checks of {@code rpc}, one per source kind and reachable state, and the same with force where the
     * request has the field: each reports what the {@link Exploration} found on its edge, in every history.
     */
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
                checks.add(explored(walkId(rpc, kind, state), walkName(scheme, rpc, kind, state, e), kind, hint));
                if (LifecycleModel.forceable(rpc)) {
                    checks.add(explored(
                            walkId(rpc, kind, state) + "/force",
                            forceName(scheme, rpc, kind, state, e),
                            kind,
                            "force must not change what the table demands in " + state.label() + ": "
                                    + (e.ok()
                                            ? "0 OK, then " + e.after().label()
                                            : e.code().display() + ", nothing changed")
                                    + " (a plugin that ignores force, or lets it past a"
                                    + " precondition, fails here)"));
                }
            }
        }
        return checks;
    }

    /** A check that reports the exploration's findings on its edges. */
    private static Check explored(String id, String name, Kind kind, String hint) {
        return Check.builder()
                .id(id)
                .name(name)
                .hint(hint)
                .body(ctx -> ctx.exploration().report(ctx, kind, id, name))
                .needs(Needs.exploration())
                .build();
    }

    /**
     * The destination's consistency per kind: repeated answers agree while replication stays enabled (a group's
     * member map, when given, MUST be complete for its current members: a partial map in one answer and a complete
     * one in another fails here).
     */
    static List<Check> consistency(SpecDialect dialect) {
        if (!dialect.supports(Rpc.GET_REPLICATION_DESTINATION_INFO)) {
            return List.of();
        }
        List<Check> checks = new ArrayList<>();
        for (Kind kind : KINDS) {
            String id = Exploration.consistentId(kind);
            String name = "GetReplicationDestinationInfo: repeated answers agree while replication stays enabled ["
                    + kindLabel(kind) + (kind == Kind.VOLUME_GROUP ? ", the member map complete in every answer" : "")
                    + "]";
            checks.add(explored(
                    id,
                    name,
                    kind,
                    "answer the same destination every time"
                            + (kind == Kind.VOLUME_GROUP
                                    ? ", with every member's destination or none: never a partial map"
                                            + " (answer 14 UNAVAILABLE until the map is complete)"
                                    : "")));
        }
        return checks;
    }

    /**
     * The last sync time compared over time per kind ({@link AnswerHistory}): never the zero timestamp, never later than
     * the plugin's clock allows, never earlier than an answer before it while the source stays primary. Revisions
     * without GetVolumeReplicationInfo have none.
     */
    static List<Check> overTime(SpecDialect dialect) {
        if (!dialect.supports(Rpc.GET_VOLUME_REPLICATION_INFO)) {
            return List.of();
        }
        List<Check> checks = new ArrayList<>();
        for (Kind kind : KINDS) {
            checks.add(explored(
                    AnswerHistory.checkId(kind),
                    "GetVolumeReplicationInfo: last_sync_time is when a sync completed: never the zero timestamp,"
                            + " never later than the plugin's clock allows (tolerance "
                            + AnswerHistory.CLOCK_TOLERANCE.toMinutes() + " minutes), never earlier than an answer"
                            + " before it while the source stays primary [" + kindLabel(kind) + "]",
                    kind,
                    "answer the time the last sync completed, from a clock that does not run ahead; while no sync has"
                            + " completed yet, answer 5 NOT_FOUND (\"not available at the moment\"), never a zero"
                            + " timestamp"));
        }
        return checks;
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
    static void judge(
            ConformanceContext ctx,
            Outcome outcome,
            StatusCode expected,
            Addressing target,
            State before,
            String what) {
        // The exploration judges this very call in this state: a wrong answer here is that check's failure (and an
        // answer that breaks a rule, the named response-validity check's), of which this check is the consequence.
        List<String> causes = new ArrayList<>();
        if (outcome.code() != expected) {
            causes.add(walkId(outcome.rpc(), ResponseRules.kindOf(target), before));
            ctx.calls(target).stream().filter(c -> !causes.contains(c)).forEach(causes::add);
            try {
                ctx.expect(outcome, expected, what);
            } catch (AssertionFailedError wrong) {
                ctx.failBecause(causes, wrong.getMessage());
            }
        }
        if (outcome.ok()) {
            try {
                ResponseRules.requireValid(ctx, outcome, target);
            } catch (AssertionFailedError broken) {
                causes.addAll(ResponseRules.namedChecksOfBrokenRules(ctx, outcome, target));
                causes.add(walkId(outcome.rpc(), ResponseRules.kindOf(target), before));
                ctx.failBecause(causes, broken.getMessage());
            }
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
        probes.sort(Comparator.comparingLong(p -> model.reachable().stream()
                .filter(s ->
                        model.expect(p, s).code() == model.expect(p, expected).code())
                .count()));
        for (Rpc probe : probes) {
            if (consistent.size() == 1 && consistent.contains(expected.label())) {
                break;
            }
            Outcome o = ctx.call(probe, target);
            if (o.code() == StatusCode.UNIMPLEMENTED && ctx.scheme().lists(probe, StatusCode.UNIMPLEMENTED)) {
                continue; // this probe cannot tell; the others still can
            }
            if (o.ok()) {
                try {
                    ResponseRules.requireValid(ctx, o, target);
                } catch (AssertionFailedError broken) {
                    List<String> causes = new ArrayList<>(ResponseRules.namedChecksOfBrokenRules(ctx, o, target));
                    causes.add(walkId(probe, ResponseRules.kindOf(target), expected));
                    ctx.failBecause(causes, broken.getMessage());
                }
            }
            seen.put(probe, o);
            consistent = consistent(model, seen);
        }
        if (!consistent.contains(expected.label())) {
            StringBuilder answers = new StringBuilder();
            seen.values()
                    .forEach(o -> answers.append(answers.isEmpty() ? "" : ", ")
                            .append(o.rpc().methodName())
                            .append(" -> ")
                            .append(o.describe())
                            .append(ctx.note(o)));
            // The exploration judges the call that led here in its state, and each probe in the expected state: the
            // first of them that failed names the defect.
            List<String> causes = new ArrayList<>();
            causes.addAll(ctx.calls(target));
            seen.keySet().forEach(p -> causes.add(walkId(p, ResponseRules.kindOf(target), expected)));
            ctx.failBecause(
                    causes,
                    "after " + after + ", " + target + " must be " + expected.label() + ", but it answers " + answers
                            + (consistent.isEmpty()
                                    ? ", as in no state of the model"
                                    : ", as if it were " + String.join(" or ", consistent)));
        }
    }

    /** The labels of the states whose answers to the probes so far are {@code seen}. */
    private static List<String> consistent(LifecycleModel model, Map<Rpc, Outcome> seen) {
        List<String> consistent = new ArrayList<>();
        for (State s : model.reachable()) {
            if (seen.entrySet().stream()
                    .allMatch(p ->
                            model.expect(p.getKey(), s).code() == p.getValue().code())) {
                consistent.add(s.label());
            }
        }
        return consistent;
    }

    /**
     * Authentication on {@code rpc} for every kind, with wrong and with missing secrets: in every state, by every
     * history, between valid calls on the same connection (no session may outlive a request), and nothing changes.
     */
    static List<Check> authentication(SpecDialect dialect, Rpc rpc) {
        ErrorScheme scheme = dialect.errorScheme();
        List<Check> checks = new ArrayList<>();
        for (Kind kind : KINDS) {
            for (String variant : List.of("wrong", "missing")) {
                String name = authName(scheme, rpc, kind, variant);
                String id = rpc.methodName() + "/" + kindId(kind) + "/auth-" + variant;
                checks.add(Check.builder()
                        .id(id)
                        .name(name)
                        .hint("every call must be authenticated by its own secrets, in every state, and refused"
                                + " without changing anything: check the " + kindLabel(kind) + " path too, and that a"
                                + " valid call does not open a session")
                        .body(ctx -> {
                            ctx.requireSecrets();
                            ctx.exploration().report(ctx, kind, id, name);
                        })
                        .needs(Needs.exploration())
                        .build());
            }
        }
        return checks;
    }

    /** The authentication check's name; {@code variant} is {@code "wrong"} or {@code "missing"}. */
    static String authName(ErrorScheme scheme, Rpc rpc, Kind kind, String variant) {
        return ControllerChecks.rowCase(
                scheme,
                rpc,
                StatusCode.UNAUTHENTICATED,
                kindLabel(kind) + ", " + variant + " secrets, before and after a valid call");
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
        // Ids: every check that needs a group has "/group/" in its id (so '*/group/*' selects it). The first four
        // report what one engine found, which observes every other fixture after each call ({@link Bystanders}).
        checks.add(bystanderCheck(
                Bystanders.VOLUME_VOLUME,
                "Isolation: a failover round trip on one volume leaves another volume's state unchanged [volume ->"
                        + " volume, observed in every state]"));
        checks.add(bystanderCheck(
                Bystanders.GROUP_VOLUME,
                "Isolation: a failover round trip on one volume group leaves another volume's state unchanged [volume"
                        + " group -> volume, observed in every state]"));
        checks.add(bystanderCheck(
                Bystanders.VOLUME_GROUP,
                "Isolation: a failover round trip on one volume leaves another volume group's state unchanged [volume"
                        + " -> volume group, observed in every state]"));
        checks.add(bystanderCheck(
                Bystanders.ALL,
                "Isolation: after each call of a failover round trip on some fixtures, every other fixture is observed"
                        + " unchanged, and a change names the call [every fixture, every pair, every state]"));
        checks.add(Check.builder()
                .id("isolation/volume/after-refusals")
                .name(SEQUENTIAL)
                .hint("a lock or an operation record that outlives its call (often on an error path: a refused or"
                        + " failed call that does not release it)")
                .body(ctx -> sequentialAfterRefusals(ctx, model))
                .needs(Needs.volume().calls(30))
                .build());
        checks.add(Check.builder()
                .id("isolation/volume/interleaved-calls")
                .name(INTERLEAVED)
                .hint("a call refused with 10 ABORTED because another is pending must never take effect, not even"
                        + " later; one served must take effect as if the two came one after the other")
                .body(ctx -> interleavedCalls(ctx, model))
                .needs(Needs.volumes(INTERLEAVING_FIXTURES, 0)
                        .calls(7 * interleavings(model).size()))
                .build());
        checks.add(Check.builder()
                .id("isolation/all-fixtures/concurrent")
                .name(CONCURRENT)
                .hint("10 ABORTED is for an operation pending on the same source: a lock that spans sources (per"
                        + " kind, per pool, global) must not refuse calls on other sources")
                .body(ctx -> concurrentRoundTrips(ctx, model))
                .needs(Needs.everyFixture())
                .build());
        return checks;
    }

    /** A check that reports what the isolation engine found for its pair of kinds ({@link Bystanders}). */
    private static Check bystanderCheck(String id, String name) {
        return Check.builder()
                .id(id)
                .name(name)
                .hint("state must be kept per source (kind and id): look for state shared between sources, keyed by"
                        + " id without kind, matched by prefix, or applied to every source")
                .body(ctx -> ctx.bystanders().report(ctx, id))
                .needs(Needs.exploration())
                .build();
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
                    judge(
                            ctx,
                            ctx.call(refused, target),
                            e.code(),
                            target,
                            at,
                            refused.methodName() + " on " + target + " (" + at.label() + ")");
                }
            }
            judge(
                    ctx,
                    ctx.call(step, target),
                    StatusCode.OK,
                    target,
                    at,
                    step.methodName() + " on " + target + " right after the refused calls (" + at.label() + ")");
            at = model.expect(step, at).after();
        }
    }

    /** A pair of calls sent together in a state: the first pending when the second arrives. */
    record Interleaving(State state, Rpc first, Rpc second) {}

    /**
     * The pairs the interleaving check sends, from the model: in each state, a call that changes it there (or a resync,
     * the long operation), and a second one, allowed both there and after the first, that would change the state after
     * the first (so that a refused second call that takes effect later shows).
     */
    static List<Interleaving> interleavings(LifecycleModel model) {
        List<Interleaving> pairs = new ArrayList<>();
        List<Rpc> mutating =
                model.rpcs().stream().filter(SourceBookkeeping::mutating).toList();
        for (State s : model.reachable()) {
            for (Rpc first : mutating) {
                Expectation a = model.expect(first, s);
                if (!a.ok() || (a.after() == s && first != Rpc.RESYNC_VOLUME)) {
                    continue;
                }
                for (Rpc second : mutating) {
                    Expectation alone = model.expect(second, s);
                    Expectation after = model.expect(second, a.after());
                    if (second != first && alone.ok() && after.ok() && after.after() != a.after()) {
                        pairs.add(new Interleaving(s, first, second));
                    }
                }
            }
        }
        return pairs;
    }

    /**
     * Every pair of {@link #interleavings}: the source reached, the first call sent and the second right after it;
     * each must answer 0 OK or 10 ABORTED, and the source then be where the served calls lead in some order (a refused
     * call applied later, or answered twice, shows as another state).
     */
    private static void interleavedCalls(ConformanceContext ctx, LifecycleModel model) throws Exception {
        ctx.sequential();
        List<Addressing> volumes =
                ctx.lease().volumes().stream().map(Addressing::volume).toList();
        // The pairs are independent (each starts from replication disabled): shared among the volumes held, each
        // volume taking its share one pair after the other, they take a fraction of the time on real storage.
        Map<Addressing, List<Interleaving>> shares = new LinkedHashMap<>();
        (volumes.isEmpty() ? List.of(ctx.volume()) : volumes).forEach(v -> shares.put(v, new ArrayList<>()));
        List<Addressing> held = List.copyOf(shares.keySet());
        List<Interleaving> pairs = interleavings(model);
        for (int i = 0; i < pairs.size(); i++) {
            shares.get(held.get(i % held.size())).add(pairs.get(i));
        }
        AtOnce.each(held, vol -> interleavedCalls(ctx, model, vol, shares.get(vol)));
    }

    /** How many fixture volumes the interleaved-calls check shares its pairs among (fewer when fewer are configured). */
    static final int INTERLEAVING_FIXTURES = 2;

    /** {@code pairs}, one after the other, on {@code vol}. */
    private static void interleavedCalls(
            ConformanceContext ctx, LifecycleModel model, Addressing vol, List<Interleaving> pairs) throws Exception {
        for (Interleaving pair : pairs) {
            ctx.step(Rpc.DISABLE_VOLUME_REPLICATION, vol);
            reach(ctx, model, vol, pair.state());
            List<Outcome> answers = ctx.callInterleaved(pair.first(), pair.second(), vol);
            Outcome a = answers.get(0);
            Outcome b = answers.get(1);
            if (answers.stream()
                    .anyMatch(o -> o.code() == StatusCode.UNIMPLEMENTED
                            && ctx.scheme().lists(o.rpc(), StatusCode.UNIMPLEMENTED))) {
                continue; // an RPC the plugin does not implement: nothing to interleave
            }
            String what = pair.first().methodName() + " and, while it was pending, "
                    + pair.second().methodName() + " on " + vol + " ("
                    + pair.state().label() + "): " + a.describe() + ", " + b.describe();
            // The plugin may have run them in either order: each order that explains both answers (a call answers
            // what the model says in the state the other left, or 10 ABORTED and has no effect) gives a state.
            Set<State> expected = new LinkedHashSet<>();
            explain(model, pair.state(), List.of(a, b)).ifPresent(expected::add);
            explain(model, pair.state(), List.of(b, a)).ifPresent(expected::add);
            if (expected.isEmpty()) {
                List<String> causes = new ArrayList<>();
                for (Outcome o : answers) {
                    causes.add(o.rpc().methodName() + "/volume/simultaneous-calls");
                }
                ctx.failBecause(
                        causes,
                        what + ": these answers fit neither order of the two calls (each answers what the table says in"
                                + " the state the other left, or 10 ABORTED: an operation pending)");
            }
            observeOneOf(ctx, model, vol, expected, what);
        }
    }

    /**
     * The state {@code answers}, in this order, leave {@code start} in: each call answers what the model says in the
     * state the calls before it left (and moves it), or 10 ABORTED (and changes nothing); empty when they do not.
     */
    private static Optional<State> explain(LifecycleModel model, State start, List<Outcome> answers) {
        State at = start;
        for (Outcome o : answers) {
            Expectation e = model.expect(o.rpc(), at);
            if (o.code() == StatusCode.ABORTED) {
                continue;
            }
            if (o.code() != e.code()) {
                return Optional.empty();
            }
            at = e.after();
        }
        return Optional.of(at);
    }

    /** Observes {@code target} and fails unless its answers fit one of {@code expected}. */
    private static void observeOneOf(
            ConformanceContext ctx, LifecycleModel model, Addressing target, Set<State> expected, String after) {
        Map<Rpc, Outcome> seen = new LinkedHashMap<>();
        for (Rpc probe : model.probes()) {
            // Info's 5 on a primary is "details not available at the moment" (the first sync after an enable): polled
            // when a primary is expected, whatever the order of the calls left the bookkeeping believing.
            Outcome o = probe == Rpc.GET_VOLUME_REPLICATION_INFO && expected.contains(State.PRIMARY)
                    ? ctx.settle(() -> ctx.call(probe, target), r -> r.code() == StatusCode.NOT_FOUND)
                    : ctx.call(probe, target);
            if (o.code() == StatusCode.UNIMPLEMENTED && ctx.scheme().lists(probe, StatusCode.UNIMPLEMENTED)) {
                continue;
            }
            seen.put(probe, o);
        }
        List<String> fits = consistent(model, seen);
        if (expected.stream().noneMatch(s -> fits.contains(s.label()))) {
            StringBuilder answers = new StringBuilder();
            seen.values()
                    .forEach(o -> answers.append(answers.isEmpty() ? "" : ", ")
                            .append(o.rpc().methodName())
                            .append(" -> ")
                            .append(o.describe()));
            // Each probe is judged by the exploration in each state: the first of those checks that failed, or a call
            // of this check that did, names the defect.
            List<String> causes = new ArrayList<>();
            for (State s : expected) {
                seen.keySet().forEach(p -> causes.add(walkId(p, ResponseRules.kindOf(target), s)));
            }
            causes.addAll(ctx.calls(target));
            ctx.failBecause(
                    causes,
                    "after " + after + ", " + target + " must be "
                            + String.join(
                                    " or ", expected.stream().map(State::label).toList()) + " (where the served calls"
                            + " lead, in either order), but it answers " + answers
                            + (fits.isEmpty()
                                    ? ", as in no state of the model"
                                    : ", as if it were " + String.join(" or ", fits))
                            + ": a refused call took effect, or a served one did not");
        }
    }

    /** How many times the concurrent round trips run when a source drew 10 ABORTED beside the others. */
    static final int CONCURRENT_RUNS = 3;

    /**
     * Every fixture at once runs the round trip. A 10 ABORTED is polled within the settle timeout (a source may be
     * finishing work of its own, or the machine may be slow), and counted with its step. A source that drew 10 beside
     * the others is then tried alone, twice, and beside the others again: only a source that draws 10 in most runs
     * beside the others ({@value #CONCURRENT_RUNS}) and never alone is refused for another source's operation (a lock
     * spanning sources). A 10 or a slow answer that a loaded machine causes once does not repeat so. A 10 a source
     * draws alone is its own pending work at that step (the table allows it): a source of the same kind that drew 10
     * beside the others only at such steps is not tried alone again (on real storage each try is a round trip of
     * real replication; a lock spanning sources draws no 10 alone, so it never excuses one).
     */
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
        Map<Addressing, Set<Rpc>> together = roundTripsAtOnce(ctx, model, sources);
        Map<Addressing, Integer> runsWithAborted = new LinkedHashMap<>();
        together.forEach((s, steps) -> {
            if (!steps.isEmpty()) {
                runsWithAborted.put(s, 1);
            }
        });
        if (runsWithAborted.isEmpty()) {
            return;
        }
        // Each suspect alone: a 10 it draws alone is its own pending work (the table allows it), at that step.
        Map<Kind, Set<Rpc>> ownPendingSteps = new LinkedHashMap<>();
        for (Addressing suspect : List.copyOf(runsWithAborted.keySet())) {
            Set<Rpc> explained =
                    ownPendingSteps.computeIfAbsent(ResponseRules.kindOf(suspect), k -> new LinkedHashSet<>());
            if (explained.containsAll(together.get(suspect))) {
                runsWithAborted.remove(suspect);
                continue;
            }
            for (int i = 0; i < 2; i++) {
                Set<Rpc> alone = roundTripsAtOnce(ctx, model, List.of(suspect)).get(suspect);
                if (!alone.isEmpty()) {
                    explained.addAll(alone);
                    runsWithAborted.remove(suspect);
                    break;
                }
            }
        }
        for (int run = 1; run < CONCURRENT_RUNS && !runsWithAborted.isEmpty(); run++) {
            Map<Addressing, Set<Rpc>> again = roundTripsAtOnce(ctx, model, sources);
            runsWithAborted.replaceAll((s, n) -> n + (again.get(s).isEmpty() ? 0 : 1));
        }
        List<String> spanning = new ArrayList<>();
        runsWithAborted.forEach((s, n) -> {
            if (n * 2 > CONCURRENT_RUNS) {
                spanning.add(s + " drew 10 ABORTED in " + n + " of " + CONCURRENT_RUNS
                        + " runs beside the others, never alone");
            }
        });
        if (!spanning.isEmpty()) {
            ctx.fail("10 ABORTED while nothing was pending on the source itself (the suite sends one call at a time"
                    + " per source): " + String.join("; ", spanning));
        }
    }

    /**
     * A round trip on each of {@code sources} at the same time; the steps at which each drew 10 ABORTED. A step that
     * fails fails the check, as the consequence of the exploration's check of that call in that state.
     */
    private static Map<Addressing, Set<Rpc>> roundTripsAtOnce(
            ConformanceContext ctx, LifecycleModel model, List<Addressing> sources) throws Exception {
        List<String> problems = Collections.synchronizedList(new ArrayList<>());
        List<String> causes = Collections.synchronizedList(new ArrayList<>());
        Map<Addressing, Set<Rpc>> aborted = new ConcurrentHashMap<>();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(sources.size());
        try {
            List<Future<?>> runs = new ArrayList<>();
            for (Addressing source : sources) {
                runs.add(pool.submit(() -> {
                    start.await();
                    roundTripCounting(ctx, model, source, problems, causes, aborted);
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
            ctx.failBecause(
                    List.copyOf(causes),
                    sources.size() + " sources, each a round trip at the same time: " + String.join("; ", problems));
        }
        return aborted;
    }

    /** One round trip on {@code source}, noting the steps at which it draws 10 ABORTED (polled within the settle timeout). */
    private static void roundTripCounting(
            ConformanceContext ctx,
            LifecycleModel model,
            Addressing source,
            List<String> problems,
            List<String> causes,
            Map<Addressing, Set<Rpc>> aborted) {
        Set<Rpc> steps = aborted.computeIfAbsent(source, s -> ConcurrentHashMap.newKeySet());
        State at = State.DISABLED;
        String previous = null;
        for (Rpc step : model.roundTrip()) {
            Outcome o = ctx.callCounting(step, source, () -> steps.add(step));
            if (o.code() == StatusCode.UNIMPLEMENTED && ctx.scheme().lists(step, StatusCode.UNIMPLEMENTED)) {
                ctx.call(Rpc.DISABLE_VOLUME_REPLICATION, source);
                return;
            }
            if (!o.ok()) {
                problems.add(step.methodName() + " on " + source + " -> " + o.describe() + ctx.note(o));
                causes.add(walkId(step, ResponseRules.kindOf(source), at));
                if (previous != null) {
                    // Refused as in another state: the step before may have answered 0 OK without its effect.
                    causes.add(previous);
                }
                ctx.call(Rpc.DISABLE_VOLUME_REPLICATION, source);
                return;
            }
            previous = walkId(step, ResponseRules.kindOf(source), at);
            at = model.expect(step, at).after();
        }
    }

    // ---------------------------------------------------------------- fixtures and responses

    /** After every other check: every fixture must be back in the state it was found in. */
    static List<Check> fixturesRestored(ConformanceConfig config) {
        List<Check> checks = new ArrayList<>();
        LifecycleModel model = LifecycleModel.forDialect(config.dialect());
        for (String id : config.volumes()) {
            checks.add(restored(model, Addressing.volume(id), "fixtures-restored/volume/" + id)
                    .withNeeds(Needs.fixture(ReplicationSource.volume(id)).at(Needs.Order.LAST)));
        }
        for (String id : config.volumeGroups()) {
            checks.add(restored(model, Addressing.volumeGroup(id), "fixtures-restored/group/" + id)
                    .withNeeds(Needs.fixture(ReplicationSource.volumeGroup(id)).at(Needs.Order.LAST)));
        }
        return checks;
    }

    private static Check restored(LifecycleModel model, Addressing target, String id) {
        return Check.builder()
                .id(id)
                .name("Fixtures: " + target + " ends with replication disabled")
                .hint("the suite disables what it enabled: a disable that answers 0 OK must really disable")
                .body(ctx -> {
                    if (target.source() != null && target.source().hasVolumegroup()) {
                        ctx.volumeGroup();
                    }
                    ctx.sequential();
                    observe(ctx, model, target, State.DISABLED, "every check");
                    if (ctx.hasPeer()) {
                        // Read-only, and only a replica site A named during the run: nothing else of site B is looked
                        // at, let alone changed.
                        ctx.knownReplicaOf(target)
                                .ifPresent(b -> TwoSiteChecks.requireNoReplica(ctx, model, b, "every check"));
                    }
                })
                .build();
    }

    /**
     * Per kind: every response rule in every state of a failover round trip, and after it. The exploration judges every
     * answer by every rule in every state, by every history (one of them a failover round trip): these checks report
     * the rules its answers broke, for their kind.
     */
    static List<Check> roundTripValidity(ConformanceConfig config) {
        List<Check> checks = new ArrayList<>();
        for (Kind kind : KINDS) {
            checks.add(Check.builder()
                    .id("response-validity/" + kindId(kind) + "/round-trip")
                    .name("Response validity: every rule holds in every state of a failover round trip and after it ["
                            + kindLabel(kind) + "]")
                    .hint("REQUIRED fields and non-negative sizes must hold for groups as for volumes, and after a"
                            + " failover")
                    .body(ctx -> ctx.exploration().reportRules(ctx, kind))
                    .needs(Needs.exploration())
                    .build());
        }
        return checks;
    }
}
