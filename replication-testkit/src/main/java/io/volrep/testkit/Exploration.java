package io.volrep.testkit;

import io.volrep.api.ErrorScheme;
import io.volrep.api.ReplicationSource.Kind;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.proto.replication.GetReplicationDestinationInfoResponse;
import io.volrep.testkit.LifecycleModel.Action;
import io.volrep.testkit.LifecycleModel.Expectation;
import io.volrep.testkit.LifecycleModel.History;
import io.volrep.testkit.LifecycleModel.State;
import io.volrep.testkit.LifecycleModel.Variant;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/**
 * The lifecycle exploration of one run: a deterministic tour, generated from the {@link LifecycleModel}, of every
 * (state, action) edge for each source kind, where the actions are every RPC plainly, with force and with wrong
 * and missing secrets, refused ones included; each state is reached by every {@link LifecycleModel#histories()
 * history} (the shortest path, after a failover round trip, after a resync, after disable and re-enable). After
 * every call, refused or not, the source is observed with every probe of the model (Info, destination, resync:
 * the RPCs that change nothing), and repeated destination answers are compared while replication stays enabled.
 *
 * <p>The named checks (one per RPC, kind and state; per RPC, kind and state with force; per RPC and kind with wrong
 * or missing secrets; destinations consistent per kind) report what the tour found on their edges. A failure is
 * shrunk before it is reported: the failing call after the shortest path, then after each history, then the tour's
 * own sequence with single calls left out, replayed on the same fixture; the shortest sequence that still fails is
 * printed first. The tour is spread over the fixtures of each kind and runs beside the other checks: with
 * {@value #FULL_TOUR_FIXTURES} fixtures of a kind or more every history takes every edge; with fewer, every history
 * is still taken and observed, and the edges are dealt out among them in turn (rotated by the run's seed).
 *
 * <p>Why not a property-testing library (jqwik's stateful tests): the tour must cover every edge (a random walk
 * does not guarantee it in a bounded run), each replay costs real calls on real storage (250 ms and more), so the
 * shrinker replays a few model-chosen candidates instead of hundreds, and the kit runs inside JUnit dynamic tests and
 * the CLI rather than in jqwik's own engine.
 */
final class Exploration {
    /** With this many fixtures of a kind or more, every history takes every edge of every state. */
    static final int FULL_TOUR_FIXTURES = 6;
    /** At most this many replays to shrink one failure. */
    private static final int MAX_REPLAYS = 8;

    /** One visit of the tour: reach {@code state} by {@code history}, then take {@code actions} there. */
    record Visit(History history, State state, List<Action> actions) {
    }

    /** A failure of a named check's edge, with the calls that led to it (shortest found). */
    record Failure(String message, List<String> calls, String history, int tourCalls) {
    }

    /** What the tour found for one named check. */
    static final class Result {
        int taken;
        final List<Failure> failures = new ArrayList<>();
        Rpc notImplemented;
        String unreachable;
        Duration waited = Duration.ZERO;
    }

    private final ConformanceSession session;
    private final ConformanceConfig config;
    private final LifecycleModel model;
    private final ErrorScheme scheme;
    private final Map<Kind, CompletableFuture<Void>> done = new EnumMap<>(Kind.class);
    private final Map<String, Result> results = new ConcurrentHashMap<>();
    private final AtomicLong edgesTaken = new AtomicLong();
    private volatile boolean started;
    private String summary = "";

    Exploration(ConformanceSession session) {
        this.session = session;
        this.config = session.config();
        this.model = LifecycleModel.forDialect(config.dialect());
        this.scheme = config.dialect().errorScheme();
    }

    // ---------------------------------------------------------------- ids

    /** The named check of {@code action} in {@code state} for {@code kind}. */
    static String checkId(Action action, Kind kind, State state) {
        String walk = LifecycleChecks.walkId(action.rpc(), kind, state);
        return switch (action.variant()) {
            case PLAIN -> walk;
            case FORCE -> walk + "/force";
            case WRONG_SECRETS -> action.rpc().methodName() + "/" + LifecycleChecks.kindId(kind) + "/auth-wrong";
            case MISSING_SECRETS -> action.rpc().methodName() + "/" + LifecycleChecks.kindId(kind) + "/auth-missing";
        };
    }

    /** The named check that repeated destination answers of {@code kind} agree. */
    static String consistentId(Kind kind) {
        return Rpc.GET_REPLICATION_DESTINATION_INFO.methodName() + "/" + LifecycleChecks.kindId(kind) + "/consistent";
    }

    // ---------------------------------------------------------------- planning

    /** Starts the tour (once): its visits, spread over the fixtures of each kind, on the run's scheduler. */
    synchronized void start() {
        if (started) {
            return;
        }
        started = true;
        boolean secrets = !config.secrets().isEmpty();
        List<Action> actions = model.actions(secrets);
        long edges = 0;
        for (Kind kind : LifecycleChecks.KINDS) {
            List<String> fixtures = kind == Kind.VOLUME ? config.volumes()
                    : config.dialect().supports(Kind.VOLUME_GROUP) ? config.volumeGroups() : List.of();
            if (fixtures.isEmpty() || everyEdgeSkipped(kind, actions)) {
                // Nothing to explore for this kind (none of its checks runs): no call names its fixtures.
                done.put(kind, CompletableFuture.completedFuture(null));
                continue;
            }
            List<Visit> visits = plan(kind, actions, fixtures.size() >= FULL_TOUR_FIXTURES);
            edges += visits.stream().mapToLong(v -> v.actions().size()).sum();
            int tasks = Math.max(1, Math.min(fixtures.size(), visits.size()));
            List<List<Visit>> shares = new ArrayList<>();
            long[] load = new long[tasks];
            for (int i = 0; i < tasks; i++) {
                shares.add(new ArrayList<>());
            }
            // Heaviest visits first, each to the lightest share: the tour ends with its busiest fixture.
            List<Visit> heavyFirst = new ArrayList<>(visits);
            heavyFirst.sort(Comparator.comparingInt(this::cost).reversed());
            for (Visit v : heavyFirst) {
                int lightest = 0;
                for (int i = 1; i < tasks; i++) {
                    if (load[i] < load[lightest]) {
                        lightest = i;
                    }
                }
                shares.get(lightest).add(v);
                load[lightest] += cost(v);
            }
            List<CompletableFuture<Void>> runs = new ArrayList<>();
            for (int i = 0; i < tasks; i++) {
                List<Visit> share = shares.get(i);
                if (share.isEmpty()) {
                    continue;
                }
                Needs needs = kind == Kind.VOLUME ? Needs.volume() : Needs.group();
                runs.add(session.schedule(needs, (int) load[i], lease -> walk(kind, lease, share)));
            }
            done.put(kind, CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new)));
        }
        summary = model.reachable().size() + " states x " + actions.size() + " actions x " + done.entrySet().stream()
                .filter(e -> kindExplored(e.getKey())).count() + " source kinds, " + model.histories().size()
                + " histories, " + edges + " edges planned, seed " + config.seed();
    }

    /** True when every check of {@code kind}'s edges (the probes' and the consistency check's too) is skipped. */
    private boolean everyEdgeSkipped(Kind kind, List<Action> actions) {
        if (model.rpcs().contains(Rpc.GET_REPLICATION_DESTINATION_INFO) && !config.skipped(consistentId(kind))) {
            return false;
        }
        for (State state : model.reachable()) {
            for (Action a : actions) {
                if (!config.skipped(checkId(a, kind, state))) {
                    return false;
                }
            }
        }
        return true;
    }

    private boolean kindExplored(Kind kind) {
        return kind == Kind.VOLUME || (config.dialect().supports(Kind.VOLUME_GROUP) && !config.volumeGroups().isEmpty());
    }

    /** What the statement says the exploration covered. */
    String summary() {
        return summary.isEmpty() ? "" : summary + ", " + edgesTaken.get() + " taken";
    }

    /** The visits of {@code kind}: every history to every state, each with its share of that state's actions. */
    private List<Visit> plan(Kind kind, List<Action> actions, boolean full) {
        List<Visit> visits = new ArrayList<>();
        Random random = new Random(config.seed() * 31 + kind.ordinal());
        for (State state : model.reachable()) {
            // The probes' own edges are taken by every observation (each visit observes with every probe on
            // arrival, and after every call): they need no turn of their own.
            List<Action> here = new ArrayList<>(actions.stream()
                    .filter(a -> !(a.variant() == Variant.PLAIN && model.probes().contains(a.rpc())))
                    .filter(a -> !config.skipped(checkId(a, kind, state))).toList());
            if (config.seed() != 0) {
                java.util.Collections.shuffle(here, random);
            }
            List<History> histories = model.histories();
            int rotation = config.seed() == 0 ? 0 : random.nextInt(histories.size());
            for (int h = 0; h < histories.size(); h++) {
                List<Action> share = new ArrayList<>();
                for (int i = 0; i < here.size(); i++) {
                    if (full || (i + rotation) % histories.size() == h) {
                        share.add(here.get(i));
                    }
                }
                // Calls that keep the state first, then those that leave it (each needs the state reached again).
                share.sort(Comparator.comparing(a -> leaves(a, state)));
                visits.add(new Visit(histories.get(h), state, List.copyOf(share)));
            }
        }
        return visits;
    }

    private boolean leaves(Action a, State state) {
        return model.expect(a, state).after() != state;
    }

    /** About how many calls a visit makes. */
    private int cost(Visit v) {
        int probes = model.probes().size();
        int reach = model.pathTo(v.state(), v.history()).size() + probes + 2;
        int cost = reach;
        for (Action a : v.actions()) {
            cost += 1 + probes + (leaves(a, v.state()) ? reach : 0);
        }
        return cost;
    }

    // ---------------------------------------------------------------- walking

    /** Walks {@code visits} on the fixture of {@code kind} that {@code lease} holds. */
    private void walk(Kind kind, CheckScheduler.Lease lease, List<Visit> visits) {
        ConformanceContext ctx = session.context(lease);
        ctx.sequential();
        Addressing target = kind == Kind.VOLUME ? Addressing.volume(lease.volumes().get(0))
                : Addressing.volumeGroup(lease.groups().get(0));
        Walker walker = new Walker(ctx, kind, target);
        try {
            for (Visit v : visits) {
                walker.visit(v);
            }
        } catch (RuntimeException | AssertionError e) {
            for (Visit v : visits) {
                for (Action a : v.actions()) {
                    Result r = result(checkId(a, kind, v.state()));
                    synchronized (r) {
                        if (r.taken == 0 && r.failures.isEmpty() && r.unreachable == null) {
                            r.unreachable = "the exploration stopped on " + target + ": " + e.getMessage();
                        }
                    }
                }
            }
        } finally {
            try {
                ctx.restore();
            } catch (RuntimeException | AssertionError e) {
                // reported by the fixtures-restored check
            }
        }
    }

    private Result result(String checkId) {
        return results.computeIfAbsent(checkId, id -> new Result());
    }

    /** One call of a sequence and its answer. */
    private record Call(Action action, Outcome outcome) {
        String describe() {
            return action.label() + " -> " + outcome.code().display();
        }
    }

    /** Why a step of the tour went wrong, and whose check it is. */
    private record Problem(String checkId, String message) {
    }

    /** Takes the visits of one fixture, keeping the calls since the fixture was last replication disabled. */
    private final class Walker {
        private final ConformanceContext ctx;
        private final Kind kind;
        private final Addressing target;
        private final List<Call> sequence = new ArrayList<>();
        /** Where the source is, as the model and the observations agree; null when unknown (reset first). */
        private State believed;
        /** The history and state last reached, while the source is still there. */
        private Visit at;
        /** The first destination answer since replication was enabled, to compare the others with. */
        private GetReplicationDestinationInfoResponse destination;
        /** True while replaying a candidate: nothing is recorded. */
        private boolean replaying;

        Walker(ConformanceContext ctx, Kind kind, Addressing target) {
            this.ctx = ctx;
            this.kind = kind;
            this.target = target;
        }

        void visit(Visit v) {
            for (Action a : v.actions()) {
                if (at != v || believed != v.state()) {
                    String why = arrive(v);
                    if (why != null) {
                        List<Action> rests = new ArrayList<>(v.actions().subList(v.actions().indexOf(a),
                                v.actions().size()));
                        model.probes().forEach(p -> rests.add(new Action(p, Variant.PLAIN)));
                        for (Action rest : rests) {
                            Result r = result(checkId(rest, kind, v.state()));
                            synchronized (r) {
                                if (r.unreachable == null) {
                                    r.unreachable = why;
                                }
                            }
                        }
                        return;
                    }
                }
                take(a, v);
            }
            if (v.actions().isEmpty()) {
                String why = arrive(v);
                if (why != null) {
                    for (Rpc p : model.probes()) {
                        Result r = result(checkId(new Action(p, Variant.PLAIN), kind, v.state()));
                        synchronized (r) {
                            if (r.unreachable == null) {
                                r.unreachable = why;
                            }
                        }
                    }
                }
            }
        }

        /** Resets the source, reaches the visit's state by its history and observes it; returns why not, or null. */
        private String arrive(Visit v) {
            reset();
            Action lastStep = null;
            State stepBefore = null;
            Outcome lastAnswer = null;
            for (Rpc step : model.pathTo(v.state(), v.history())) {
                Action a = new Action(step, Variant.PLAIN);
                State before = believed;
                Expectation e = model.expect(a, before);
                Outcome o = call(a, before);
                lastStep = a;
                stepBefore = before;
                lastAnswer = o;
                if (o.code() == StatusCode.UNIMPLEMENTED && scheme.lists(step, StatusCode.UNIMPLEMENTED)) {
                    believed = null;
                    return ConformanceContext.NOT_IMPLEMENTED_PREFIX + step.methodName() + " answered 12 UNIMPLEMENTED"
                            + " (the spec allows it; not a pass): " + v.state().label() + " cannot be reached "
                            + v.history().name();
                }
                Problem p = judgeAnswer(a, before, e, o);
                if (p != null) {
                    fail(p, v);
                    believed = null;
                    return "could not reach " + v.state().label() + " " + v.history().name() + ": " + p.message();
                }
                believed = e.after();
            }
            if (!observe(lastStep, stepBefore, lastAnswer, v, true)) {
                believed = null;
                return "could not reach " + v.state().label() + " " + v.history().name()
                        + ": the source did not answer as in that state (see the failure of the probes' checks)";
            }
            at = v;
            return null;
        }

        /** Takes one action where the source is, judges its answer and observes the state after it. */
        private void take(Action a, Visit v) {
            State before = believed;
            String id = checkId(a, kind, before);
            Expectation e = model.expect(a, before);
            Outcome o = call(a, before);
            if (o.code() == StatusCode.UNIMPLEMENTED && scheme.lists(a.rpc(), StatusCode.UNIMPLEMENTED)) {
                Result r = result(id);
                synchronized (r) {
                    r.notImplemented = a.rpc();
                }
                return;
            }
            Problem p = judgeAnswer(a, before, e, o);
            if (p != null) {
                fail(p, v);
                believed = null;
                return;
            }
            believed = e.after();
            boolean refusedForSecrets = a.variant() == Variant.WRONG_SECRETS || a.variant() == Variant.MISSING_SECRETS;
            if (!observe(a, before, o, v, !refusedForSecrets)) {
                believed = null;
                return;
            }
            taken(id);
        }

        /** The problem with {@code o} as the answer to {@code a} in {@code before}, or null. */
        private Problem judgeAnswer(Action a, State before, Expectation e, Outcome o) {
            String id = checkId(a, kind, before);
            String what = a.label() + " on " + target + " (" + before.label() + ")";
            if (o.code() != e.code()) {
                return new Problem(id, what + ": expected " + e.code().display() + ", got " + o.describe()
                        + ctx.note(o));
            }
            if (o.ok()) {
                try {
                    ResponseRules.requireValid(ctx, o, target);
                } catch (AssertionFailedError broken) {
                    return new Problem(id, what + ": " + broken.getMessage());
                }
                return compareDestination(o);
            }
            return null;
        }

        /**
         * Observes the source with every probe; true when the answers are those of the state the model expects.
         * An answer set that fits another state of the model is the action's failure (it changed what it must not,
         * or did not change what it must); one that fits no state is each disagreeing probe's failure.
         */
        private boolean observe(Action cause, State causeBefore, Outcome causeAnswer, Visit v, boolean every) {
            State expected = believed;
            String causeId = cause == null ? null : checkId(cause, kind, causeBefore);
            Map<Rpc, Outcome> answers = new LinkedHashMap<>();
            List<Problem> probeProblems = new ArrayList<>();
            // After a call refused for its secrets (refused before any state is looked at), the probes answer
            // one at a time, the most telling first, until only one state fits: the one that tells this state from
            // every other is enough to see any change. After any other call, every probe answers.
            List<Rpc> probes = new ArrayList<>(model.probes());
            if (!every) {
                probes.sort(Comparator.comparingLong(p -> model.reachable().stream()
                        .filter(st -> model.expect(p, st).code() == model.expect(p, expected).code()).count()));
            }
            for (Rpc probe : probes) {
                if (!every && !answers.isEmpty() && fitting(answers).equals(List.of(expected))) {
                    break;
                }
                Action pa = new Action(probe, Variant.PLAIN);
                Outcome o = call(pa, expected);
                if (o.code() == StatusCode.UNIMPLEMENTED && scheme.lists(probe, StatusCode.UNIMPLEMENTED)) {
                    if (!replaying) {
                        Result r = result(checkId(pa, kind, expected));
                        synchronized (r) {
                            r.notImplemented = probe;
                        }
                    }
                    continue;       // this probe cannot tell; the others still can
                }
                answers.put(probe, o);
                Expectation e = model.expect(probe, expected);
                if (o.code() == e.code()) {
                    Problem p = judgeAnswer(pa, expected, e, o);
                    if (p != null) {
                        probeProblems.add(p);
                    } else {
                        taken(checkId(pa, kind, expected));
                    }
                }
            }
            List<State> fits = fitting(answers);
            String after = cause == null ? "reaching it " + v.history().name()
                    : "after " + cause.label() + " answered " + causeAnswer.code().display() + " in "
                            + causeBefore.label();
            if (!fits.contains(expected)) {
                StringBuilder said = new StringBuilder();
                answers.values().forEach(o -> said.append(said.isEmpty() ? "" : ", ").append(o.rpc().methodName())
                        .append(" -> ").append(o.describe()).append(ctx.note(o)));
                String message = after + ", " + target + " must be " + expected.label() + ", but it answers " + said
                        + (fits.isEmpty() ? ", as in no state of the model" : ", as if it were "
                        + String.join(" or ", fits.stream().map(State::label).toList()));
                boolean leftPending = answers.values().stream().anyMatch(o -> o.code() == StatusCode.ABORTED);
                String changedBy = fits.isEmpty() ? probeThatChangedTheState(answers, expected) : null;
                if (changedBy != null) {
                    // Either a probe changed the state, or a later probe answers wrongly: asked again, the probes
                    // tell (the first probe answers as in the new state if it changed it).
                    Map<Rpc, Outcome> again = new LinkedHashMap<>();
                    for (Rpc probe : answers.keySet()) {
                        again.put(probe, call(new Action(probe, Variant.PLAIN), null));
                    }
                    List<State> nowFits = fitting(again);
                    if (nowFits.isEmpty() || nowFits.contains(expected)) {
                        changedBy = null;
                    }
                }
                if (changedBy != null) {
                    // The first probes answer as in the expected state, the later ones as in another: a probe (a
                    // call that must change nothing) changed it.
                    fail(new Problem(changedBy, message + " (the answers before and after " + changedBy.substring(0,
                            changedBy.indexOf('/')) + " are those of two different states: it changed the state)"), v);
                } else if (causeId != null && (!fits.isEmpty() || leftPending)) {
                    // Another state: the call changed what it must not (or not what it must). 10 ABORTED on every
                    // later call, one at a time: the call left an operation pending.
                    fail(new Problem(causeId, message + (leftPending && fits.isEmpty()
                            ? " (" + cause.label() + " left an operation pending on it)" : "")), v);
                } else {
                    List<Problem> problems = new ArrayList<>();
                    for (Map.Entry<Rpc, Outcome> a : answers.entrySet()) {
                        if (model.expect(a.getKey(), expected).code() != a.getValue().code()) {
                            problems.add(new Problem(checkId(new Action(a.getKey(), Variant.PLAIN), kind, expected),
                                    message));
                        }
                    }
                    fail(problems, v);
                }
                return false;
            }
            fail(probeProblems, v);
            return probeProblems.isEmpty();
        }

        /**
         * The check of the probe after which the answers change state: the answers up to it fit {@code expected},
         * those after it fit one other state. Null when there is no such probe.
         */
        private String probeThatChangedTheState(Map<Rpc, Outcome> answers, State expected) {
            List<Map.Entry<Rpc, Outcome>> list = new ArrayList<>(answers.entrySet());
            for (int k = 0; k < list.size() - 1; k++) {
                Map<Rpc, Outcome> before = new LinkedHashMap<>();
                Map<Rpc, Outcome> after = new LinkedHashMap<>();
                for (int i = 0; i < list.size(); i++) {
                    (i <= k ? before : after).put(list.get(i).getKey(), list.get(i).getValue());
                }
                List<State> afterFits = fitting(after);
                if (fitting(before).contains(expected) && !afterFits.isEmpty() && !afterFits.contains(expected)) {
                    return checkId(new Action(list.get(k).getKey(), Variant.PLAIN), kind, expected);
                }
            }
            return null;
        }

        /** The states whose probe answers are {@code answers}. */
        private List<State> fitting(Map<Rpc, Outcome> answers) {
            return model.reachable().stream().filter(st -> answers.entrySet().stream()
                    .allMatch(p -> model.expect(p.getKey(), st).code() == p.getValue().code())).toList();
        }

        /** The state each call of the sequence was made in. */
        private final Map<Call, State> lastBefore = new java.util.IdentityHashMap<>();

        /** Compares a destination answer with the first since replication was enabled: they must agree. */
        private Problem compareDestination(Outcome o) {
            if (!(o.response() instanceof GetReplicationDestinationInfoResponse d)) {
                return null;
            }
            if (destination == null) {
                destination = d;
                return null;
            }
            if (destination.equals(d)) {
                return null;
            }
            var first = destination.getReplicationDestination();
            var now = d.getReplicationDestination();
            String how = first.hasVolumegroup() && now.hasVolumegroup()
                    && first.getVolumegroup().getVolumeIdsCount() != now.getVolumegroup().getVolumeIdsCount()
                    ? "a member map of " + first.getVolumegroup().getVolumeIdsCount() + " members, then of "
                    + now.getVolumegroup().getVolumeIdsCount() + ": one of them is partial, and the spec says a"
                    + " group's map MUST be complete for its current members (else an error, never a partial map);"
                    + " the suite never changed the group's members"
                    : "first " + com.google.protobuf.TextFormat.shortDebugString(first) + ", then "
                    + com.google.protobuf.TextFormat.shortDebugString(now)
                    + ": the destination is one fact of the replication, not a different answer per call";
            return new Problem(consistentId(kind), "GetReplicationDestinationInfo on " + target + " answered two"
                    + " different destinations while replication stayed enabled: " + how);
        }

        /** Sends {@code a} in {@code before} (the model's state, or null when unknown) and records the call. */
        private Outcome call(Action a, State before) {
            Duration waitedBefore = ctx.waited();
            Outcome o = switch (a.variant()) {
                case PLAIN -> ctx.call(a.rpc(), target);
                case FORCE -> ctx.callForce(a.rpc(), target);
                case WRONG_SECRETS -> ctx.call(a.rpc(), target, wrongSecrets());
                case MISSING_SECRETS -> ctx.call(a.rpc(), target, Map.of());
            };
            Call c = new Call(a, o);
            sequence.add(c);
            lastBefore.put(c, before);
            Duration waited = ctx.waited().minus(waitedBefore);
            if (!replaying && !waited.isZero() && before != null) {
                Result r = result(checkId(a, kind, before));
                synchronized (r) {
                    r.waited = r.waited.plus(waited);
                }
            }
            if (o.ok() && a.rpc() == Rpc.DISABLE_VOLUME_REPLICATION) {
                destination = null;
            }
            return o;
        }

        private Map<String, String> wrongSecrets() {
            Map<String, String> bad = new LinkedHashMap<>();
            config.secrets().keys().forEach(k -> bad.put(k, "volrep-conformance-wrong-secret"));
            return bad;
        }

        /** Back to replication disabled, primary (promote with force what may be demoted, then disable). */
        private void reset() {
            if (believed != State.DISABLED) {
                ctx.restore();
            }
            sequence.clear();
            lastBefore.clear();
            believed = State.DISABLED;
            at = null;
            destination = null;
        }

        private void taken(String checkId) {
            if (replaying) {
                return;
            }
            edgesTaken.incrementAndGet();
            Result r = result(checkId);
            synchronized (r) {
                r.taken++;
            }
        }

        /** Records a failure of {@code p}'s check, shrunk to the shortest sequence that still shows it. */
        private void fail(Problem p, Visit v) {
            fail(List.of(p), v);
        }

        /** Records failures found at the same point of the tour (each shrunk on its own). */
        private void fail(List<Problem> problems, Visit v) {
            if (replaying) {
                problems.forEach(p -> failedInReplay.add(p.checkId()));
                return;
            }
            List<Call> tour = List.copyOf(sequence);
            Map<Call, State> tourBefore = new java.util.IdentityHashMap<>(lastBefore);
            for (Problem p : problems) {
                failOne(p, v, tour, tourBefore);
            }
        }

        private void failOne(Problem p, Visit v, List<Call> tour, Map<Call, State> tourBefore) {
            Result r = result(p.checkId());
            synchronized (r) {
                if (!r.failures.isEmpty() && r.failures.stream().anyMatch(f -> f.history().equals(v.history().name()))) {
                    return;         // one per history is enough
                }
            }
            List<String> calls = tour.stream().map(Call::describe).toList();
            boolean first;
            synchronized (r) {
                first = r.failures.isEmpty();
            }
            if (first) {
                List<String> shorter = shrink(p.checkId(), tour, tourBefore);
                if (shorter != null) {
                    calls = shorter;
                }
            }
            synchronized (r) {
                r.failures.add(new Failure(p.message(), calls, v.history().name(), tour.size()));
            }
        }

        private final java.util.Set<String> failedInReplay = new java.util.HashSet<>();

        /**
         * The shortest replayed sequence (from replication disabled) that fails {@code checkId} again: the failing
         * call after the shortest path to its state, after each history, then the tour with single calls left out.
         */
        private List<String> shrink(String checkId, List<Call> tour, Map<Call, State> tourBefore) {
            replaying = true;
            try {
                int failing = lastActionIndex(tour);
                Action last = tour.get(failing).action();
                State lastState = tourBefore.get(tour.get(failing));
                List<List<Action>> candidates = new ArrayList<>();
                if (lastState != null) {
                    List<History> byLength = new ArrayList<>(model.histories());
                    byLength.sort(Comparator.comparingInt(h -> model.pathTo(lastState, h).size()));
                    for (History h : byLength) {
                        List<Action> c = new ArrayList<>(model.pathTo(lastState, h).stream()
                                .map(rpc -> new Action(rpc, Variant.PLAIN)).toList());
                        c.add(last);
                        if (!candidates.contains(c)) {
                            candidates.add(c);
                        }
                    }
                }
                List<Action> original = tour.subList(0, failing + 1).stream().map(Call::action).toList();
                List<Call> best = null;
                int replays = 0;
                for (List<Action> c : candidates) {
                    if (replays++ >= MAX_REPLAYS || c.size() >= original.size()) {
                        break;
                    }
                    List<Call> replayed = replay(c, checkId);
                    if (replayed != null) {
                        best = replayed;
                        break;
                    }
                }
                if (best == null) {
                    // Leave single calls out of the tour's own sequence, latest first, keeping each that is not needed.
                    List<Action> current = new ArrayList<>(original);
                    for (int i = current.size() - 2; i >= 0 && replays < MAX_REPLAYS; i--) {
                        List<Action> c = new ArrayList<>(current);
                        c.remove(i);
                        replays++;
                        List<Call> replayed = replay(c, checkId);
                        if (replayed != null) {
                            current = c;
                            best = replayed;
                        }
                    }
                }
                if (best == null) {
                    return null;
                }
                List<String> calls = new ArrayList<>(best.stream().map(Call::describe).toList());
                calls.add("(shrunk from the tour's " + tour.size() + " calls since replication was disabled, "
                        + replays + " replays)");
                return calls;
            } finally {
                replaying = false;
                // The source is wherever the replays left it: the tour resets it before it goes on.
                believed = null;
                at = null;
            }
        }

        /** The index of the last call of {@code tour} that is not an observation of the state after it. */
        private int lastActionIndex(List<Call> tour) {
            int i = tour.size() - 1;
            int probes = model.probes().size();
            // A failure found by observing: the probes after the failing call are not part of what caused it.
            while (i > 0 && tour.size() - i <= probes && model.probes().contains(tour.get(i).action().rpc())
                    && tour.get(i).action().variant() == Variant.PLAIN && i - 1 >= 0) {
                i--;
            }
            return i;
        }

        /** Replays {@code actions} from replication disabled; the calls made when {@code checkId} failed again, else null. */
        private List<Call> replay(List<Action> actions, String checkId) {
            failedInReplay.clear();
            reset();
            for (int i = 0; i < actions.size(); i++) {
                Action a = actions.get(i);
                State before = believed;
                if (before == null) {
                    return null;
                }
                Expectation e = model.expect(a, before);
                Outcome o = call(a, before);
                Problem p = judgeAnswer(a, before, e, o);
                if (p != null) {
                    return p.checkId().equals(checkId) && i == actions.size() - 1 ? List.copyOf(sequence) : null;
                }
                believed = e.after();
                if (i == actions.size() - 1) {
                    observe(a, before, o, new Visit(model.histories().get(0), before, List.of()), true);
                    return failedInReplay.contains(checkId) ? List.copyOf(sequence) : null;
                }
            }
            return null;
        }
    }

    // ---------------------------------------------------------------- reporting

    /**
     * Reports the tour's findings for the named check {@code checkId} (of {@code kind}): fails with the shortest
     * sequence first, reports "not implemented" where the table allows 12, passes when every edge taken held.
     */
    void report(ConformanceContext ctx, Kind kind, String checkId, String name) {
        ctx.source(kind);          // skips where the run has no fixture of this kind
        start();
        try {
            done.get(kind).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("the exploration failed", e.getCause());
        }
        Result r = results.get(checkId);
        if (r == null) {
            if (checkId.endsWith("/consistent")) {
                return;             // no destination disagreed
            }
            ctx.fail("the exploration took no call of this check (" + checkId + "): nothing to judge");
            return;
        }
        synchronized (r) {
            session.waited(name, r.waited);
            if (!r.failures.isEmpty()) {
                List<Failure> failures = new ArrayList<>(r.failures);
                failures.sort(Comparator.comparingInt(f -> f.calls().size()));
                Failure first = failures.get(0);
                StringBuilder m = new StringBuilder(first.message());
                m.append("\n    found ").append(first.history()).append("; the calls that show it, from replication"
                        + " disabled: ").append(String.join("; ", first.calls()));
                for (Failure other : failures.subList(1, failures.size())) {
                    m.append("\n    also ").append(other.history()).append(" (").append(other.calls().size())
                            .append(" calls): ").append(other.message());
                }
                ctx.fail(m.toString());
            }
            if (r.notImplemented != null && r.taken == 0) {
                ctx.notImplemented(r.notImplemented);
            }
            if (r.unreachable != null && r.taken == 0) {
                if (r.unreachable.startsWith(ConformanceContext.NOT_IMPLEMENTED_PREFIX)) {
                    throw new TestAbortedException(r.unreachable);
                }
                ctx.fail(r.unreachable);
            }
            if (r.taken == 0) {
                ctx.fail("the exploration took no call of this check (" + checkId + "): nothing to judge");
            }
        }
    }
}
