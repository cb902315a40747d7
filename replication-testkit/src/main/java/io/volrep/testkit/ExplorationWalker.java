package io.volrep.testkit;

import static io.volrep.testkit.Exploration.checkId;
import static io.volrep.testkit.Exploration.consistentId;

import io.volrep.api.ErrorScheme;
import io.volrep.api.ReplicationSource.Kind;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.proto.replication.GetReplicationDestinationInfoResponse;
import io.volrep.testkit.Exploration.Failure;
import io.volrep.testkit.Exploration.Result;
import io.volrep.testkit.Exploration.Visit;
import io.volrep.testkit.LifecycleModel.Action;
import io.volrep.testkit.LifecycleModel.Expectation;
import io.volrep.testkit.LifecycleModel.State;
import io.volrep.testkit.LifecycleModel.Variant;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.opentest4j.AssertionFailedError;

/**
 * The exploration's walk on one fixture: takes the visits of the tour given to it ({@link Exploration}), keeping the
 * calls since the fixture was last replication disabled; judges every answer with {@link ResponseRules}, observes the
 * source with every probe after every call, compares repeated destination answers, and records what each named check
 * found in the exploration's results (a failure shrunk by {@link TourShrinker} first).
 */
final class ExplorationWalker {
    /** One call of a sequence and its answer. */
    record Call(Action action, Outcome outcome) {
        String describe() {
            return action.label() + " -> " + outcome.code().display();
        }
    }

    /** Why a step of the tour went wrong, and whose check it is. */
    record Problem(String checkId, String message) {}

    private final Exploration exploration;
    private final LifecycleModel model;
    private final ErrorScheme scheme;
    private final ConformanceConfig config;
    private final TourShrinker shrinker;
    private final ConformanceContext ctx;
    private final Kind kind;
    private final Addressing target;
    final List<Call> sequence = new ArrayList<>();
    /** Where the source is, as the model and the observations agree; null when unknown (reset first). */
    State believed;
    /** The history and state last reached, while the source is still there. */
    Visit at;
    /** The first destination answer since replication was enabled, to compare the others with. */
    private GetReplicationDestinationInfoResponse destination;
    /** True while replaying a candidate: nothing is recorded. */
    boolean replaying;

    ExplorationWalker(Exploration exploration, ConformanceContext ctx, Kind kind, Addressing target) {
        this.exploration = exploration;
        this.model = exploration.model();
        this.scheme = exploration.scheme();
        this.config = exploration.config();
        this.shrinker = new TourShrinker(this, model);
        this.ctx = ctx;
        this.kind = kind;
        this.target = target;
    }

    void visit(Visit v) {
        for (Action a : v.actions()) {
            if (at != v || believed != v.state()) {
                String why = arrive(v);
                if (why != null) {
                    List<Action> rests = new ArrayList<>(v.actions()
                            .subList(v.actions().indexOf(a), v.actions().size()));
                    model.probes().forEach(p -> rests.add(new Action(p, Variant.PLAIN)));
                    for (Action rest : rests) {
                        Result r = exploration.result(checkId(rest, kind, v.state()));
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
                    Result r = exploration.result(checkId(new Action(p, Variant.PLAIN), kind, v.state()));
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
                return "could not reach " + v.state().label() + " "
                        + v.history().name() + ": " + p.message();
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
            Result r = exploration.result(id);
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
    Problem judgeAnswer(Action a, State before, Expectation e, Outcome o) {
        String id = checkId(a, kind, before);
        String what = a.label() + " on " + target + " (" + before.label() + ")";
        if (o.code() != e.code()) {
            return new Problem(id, what + ": expected " + e.code().display() + ", got " + o.describe() + ctx.note(o));
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
    boolean observe(Action cause, State causeBefore, Outcome causeAnswer, Visit v, boolean every) {
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
                    .filter(st -> model.expect(p, st).code()
                            == model.expect(p, expected).code())
                    .count()));
        }
        for (Rpc probe : probes) {
            if (!every && !answers.isEmpty() && fitting(answers).equals(List.of(expected))) {
                break;
            }
            Action pa = new Action(probe, Variant.PLAIN);
            Outcome o = call(pa, expected);
            if (o.code() == StatusCode.UNIMPLEMENTED && scheme.lists(probe, StatusCode.UNIMPLEMENTED)) {
                if (!replaying) {
                    Result r = exploration.result(checkId(pa, kind, expected));
                    synchronized (r) {
                        r.notImplemented = probe;
                    }
                }
                continue; // this probe cannot tell; the others still can
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
        String after = cause == null
                ? "reaching it " + v.history().name()
                : "after " + cause.label() + " answered " + causeAnswer.code().display() + " in " + causeBefore.label();
        if (!fits.contains(expected)) {
            StringBuilder said = new StringBuilder();
            answers.values()
                    .forEach(o -> said.append(said.isEmpty() ? "" : ", ")
                            .append(o.rpc().methodName())
                            .append(" -> ")
                            .append(o.describe())
                            .append(ctx.note(o)));
            String message = after + ", " + target + " must be " + expected.label() + ", but it answers " + said
                    + (fits.isEmpty()
                            ? ", as in no state of the model"
                            : ", as if it were "
                                    + String.join(
                                            " or ",
                                            fits.stream().map(State::label).toList()));
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
                fail(
                        new Problem(
                                changedBy,
                                message + " (the answers before and after "
                                        + changedBy.substring(0, changedBy.indexOf('/'))
                                        + " are those of two different states: it changed the state)"),
                        v);
            } else if (causeId != null && (!fits.isEmpty() || leftPending)) {
                // Another state: the call changed what it must not (or not what it must). 10 ABORTED on every
                // later call, one at a time: the call left an operation pending.
                fail(
                        new Problem(
                                causeId,
                                message
                                        + (leftPending && fits.isEmpty()
                                                ? " (" + cause.label() + " left an operation pending on it)"
                                                : "")),
                        v);
            } else {
                List<Problem> problems = new ArrayList<>();
                for (Map.Entry<Rpc, Outcome> a : answers.entrySet()) {
                    if (model.expect(a.getKey(), expected).code()
                            != a.getValue().code()) {
                        problems.add(
                                new Problem(checkId(new Action(a.getKey(), Variant.PLAIN), kind, expected), message));
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
        return model.reachable().stream()
                .filter(st -> answers.entrySet().stream()
                        .allMatch(p -> model.expect(p.getKey(), st).code()
                                == p.getValue().code()))
                .toList();
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
        String how = first.hasVolumegroup()
                        && now.hasVolumegroup()
                        && first.getVolumegroup().getVolumeIdsCount()
                                != now.getVolumegroup().getVolumeIdsCount()
                ? "a member map of " + first.getVolumegroup().getVolumeIdsCount() + " members, then of "
                        + now.getVolumegroup().getVolumeIdsCount() + ": one of them is partial, and the spec says a"
                        + " group's map MUST be complete for its current members (else an error, never a partial map);"
                        + " the suite never changed the group's members"
                : "first " + com.google.protobuf.TextFormat.shortDebugString(first) + ", then "
                        + com.google.protobuf.TextFormat.shortDebugString(now)
                        + ": the destination is one fact of the replication, not a different answer per call";
        return new Problem(
                consistentId(kind),
                "GetReplicationDestinationInfo on " + target + " answered two"
                        + " different destinations while replication stayed enabled: " + how);
    }

    /** Sends {@code a} in {@code before} (the model's state, or null when unknown) and records the call. */
    Outcome call(Action a, State before) {
        Duration waitedBefore = ctx.waited();
        long start = System.nanoTime();
        Outcome o = switch (a.variant()) {
            case PLAIN -> ctx.call(a.rpc(), target);
            case FORCE -> ctx.callForce(a.rpc(), target);
            case WRONG_SECRETS -> ctx.call(a.rpc(), target, wrongSecrets());
            case MISSING_SECRETS -> ctx.call(a.rpc(), target, Map.of());
        };
        Call c = new Call(a, o);
        sequence.add(c);
        lastBefore.put(c, before);
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        Duration waited = ctx.waited().minus(waitedBefore);
        if (!replaying && before != null) {
            // The call's time is the time of the check its edge reports (the reporting check makes no call).
            Result r = exploration.result(checkId(a, kind, before));
            synchronized (r) {
                r.ran = r.ran.plus(took);
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
    void reset() {
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
        exploration.edgeTaken();
        Result r = exploration.result(checkId);
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
            problems.forEach(p -> shrinker.failedAgain(p.checkId()));
            return;
        }
        List<Call> tour = List.copyOf(sequence);
        Map<Call, State> tourBefore = new java.util.IdentityHashMap<>(lastBefore);
        for (Problem p : problems) {
            failOne(p, v, tour, tourBefore);
        }
    }

    private void failOne(Problem p, Visit v, List<Call> tour, Map<Call, State> tourBefore) {
        Result r = exploration.result(p.checkId());
        synchronized (r) {
            if (!r.failures.isEmpty()
                    && r.failures.stream()
                            .anyMatch(f -> f.history().equals(v.history().name()))) {
                return; // one per history is enough
            }
        }
        List<String> calls = tour.stream().map(Call::describe).toList();
        boolean first;
        synchronized (r) {
            first = r.failures.isEmpty();
        }
        if (first) {
            List<String> shorter = shrinker.shrink(p.checkId(), tour, tourBefore);
            if (shorter != null) {
                calls = shorter;
            }
        }
        synchronized (r) {
            r.failures.add(new Failure(p.message(), calls, v.history().name(), tour.size()));
        }
    }
}
