package io.volrep.testkit;

import static io.volrep.testkit.Exploration.checkId;
import static io.volrep.testkit.Exploration.consistentId;

import com.google.protobuf.TextFormat;
import io.volrep.api.ErrorScheme;
import io.volrep.api.ReplicationSource.Kind;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.proto.replication.GetReplicationDestinationInfoResponse;
import io.volrep.testkit.Exploration.Visit;
import io.volrep.testkit.Finding.Failure;
import io.volrep.testkit.Finding.Unreachable;
import io.volrep.testkit.LifecycleModel.Action;
import io.volrep.testkit.LifecycleModel.Expectation;
import io.volrep.testkit.LifecycleModel.State;
import io.volrep.testkit.LifecycleModel.Variant;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.opentest4j.AssertionFailedError;

/**
 * The exploration's walk on one fixture: takes the visits of the tour given to it ({@link Exploration}), keeping the
 * calls since the fixture was last replication disabled; judges every answer with {@link ResponseRules}, observes the
 * source with every probe after every call, compares repeated answers (the destination, the last sync time), and
 * returns what each named check found ({@link Finding}s), each failure shrunk by {@link TourShrinker} first. Its state
 * is its own: the shrinker replays through {@link #replay} and reads only what that answers.
 */
final class ExplorationWalker implements TourShrinker.Replayer {
    /** One call of a sequence and its answer. */
    record Call(Action action, Outcome outcome) {
        String describe() {
            return action.label() + " -> " + outcome.code().display();
        }
    }

    /**
     * Why a step of the tour went wrong, and whose check it is.
     *
     * @param checkId the check whose edge it is
     * @param message what was wrong
     * @param broke true when it left the fixture broken (an operation left pending on it)
     * @param causes the checks whose failure explains it
     * @param wrongCode true when the call answered another code than the model's for the state the source was
     *     believed in: the source may not have been there (an earlier call answered OK without its effect)
     */
    record Problem(String checkId, String message, boolean broke, List<String> causes, boolean wrongCode) {
        Problem {
            causes = List.copyOf(causes);
        }

        Problem(String checkId, String message, boolean broke, List<String> causes) {
            this(checkId, message, broke, causes, false);
        }

        Problem(String checkId, String message, boolean broke) {
            this(checkId, message, broke, List.of(), false);
        }

        Problem(String checkId, String message) {
            this(checkId, message, false, List.of(), false);
        }
    }

    /**
     * What an observation found: the problems, and whether the source is in the state the model expects (its probes'
     * codes fit it, whatever the rules say of their answers).
     */
    record Observed(List<Problem> problems, boolean held) {}

    private final Exploration exploration;
    private final LifecycleModel model;
    private final ErrorScheme scheme;
    private final ConformanceConfig config;
    private final ConformanceContext ctx;
    private final Kind kind;
    private final Addressing target;
    private final AnswerHistory history;
    /** What each named check found on this fixture so far. */
    private final Map<String, Finding> found = new LinkedHashMap<>();

    private final List<Call> sequence = new ArrayList<>();
    /** The state each call of the sequence was made in. */
    private final IdentityHashMap<Call, State> lastBefore = new IdentityHashMap<>();
    /** Where the source is, as the model and the observations agree; null when unknown (reset first). */
    private State believed;
    /** The history and state last reached, while the source is still there. */
    private Visit at;
    /** The first destination answer since replication was enabled, to compare the others with. */
    private GetReplicationDestinationInfoResponse destination;
    /** True while replaying for the shrinker: nothing is recorded, failures are only noted. */
    private boolean replaying;
    /** The checks that failed during the replay under way. */
    private final Set<String> failedInReplay = new HashSet<>();
    /**
     * The checks that left this fixture broken (before this walk, or on the way): every later failure on it is theirs,
     * recorded as the consequence it is.
     */
    private final List<String> brokenBy = new ArrayList<>();
    /** The check of the last failure recorded on this fixture: where it left the source is not known. */
    private Optional<String> lastFailure = Optional.empty();
    /** The check of the disable the last reset sent (the exploration judges that call): the arrival's cause. */
    private Optional<String> resetBy = Optional.empty();

    ExplorationWalker(Exploration exploration, ConformanceContext ctx, Kind kind, Addressing target) {
        this.exploration = exploration;
        this.model = exploration.model();
        this.scheme = exploration.scheme();
        this.config = exploration.config();
        this.ctx = ctx;
        this.kind = kind;
        this.target = target;
        this.history = new AnswerHistory(kind);
        this.brokenBy.addAll(ctx.inherited());
    }

    /** Walks {@code visits} and answers what each named check found on this fixture. */
    Map<String, Finding> walk(List<Visit> visits) {
        try {
            for (Visit v : visits) {
                visit(v);
            }
        } catch (RuntimeException | AssertionError e) {
            Unreachable stopped =
                    new Unreachable("the exploration stopped on " + target + ": " + e.getMessage(), List.of());
            for (Visit v : visits) {
                for (Action a : v.actions()) {
                    String id = checkId(a, kind, v.state());
                    Finding f = found.getOrDefault(id, Finding.NONE);
                    if (f.taken() == 0
                            && f.failures().isEmpty()
                            && f.unreachable().isEmpty()) {
                        add(id, Finding.unreachable(stopped));
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
        return Map.copyOf(found);
    }

    private void add(String checkId, Finding f) {
        found.merge(checkId, f, Finding::merge);
    }

    @SuppressWarnings("ReferenceEquality") // the walker is at this very visit of the plan, not an equal one
    private void visit(Visit v) {
        for (Action a : v.actions()) {
            Optional<Unreachable> why = Optional.empty();
            if (at == v && believed != null && believed != v.state()) {
                // A call of the visit left the state: back by the shortest way from where it left the source (the
                // history was taken on arrival; the calls since have moved on from it anyway).
                returnTo(v);
            }
            // Twice at most: a failure shrunk on the way (its replays move the source) needs the state reached again.
            for (int attempt = 0; attempt < 2 && why.isEmpty() && (at != v || believed != v.state()); attempt++) {
                why = arrive(v);
            }
            if (why.isEmpty() && believed != v.state()) {
                why = Optional.of(new Unreachable(
                        "could not keep " + target + " in " + v.state().label() + " "
                                + v.history().name(),
                        lastFailure.map(List::of).orElse(List.of())));
            }
            if (why.isPresent()) {
                List<Action> rests = new ArrayList<>(
                        v.actions().subList(v.actions().indexOf(a), v.actions().size()));
                model.probes().forEach(p -> rests.add(new Action(p, Variant.PLAIN)));
                for (Action rest : rests) {
                    add(checkId(rest, kind, v.state()), Finding.unreachable(why.get()));
                }
                return;
            }
            take(a, v);
        }
        if (v.actions().isEmpty()) {
            arrive(v)
                    .ifPresent(why -> model.probes()
                            .forEach(p -> add(
                                    checkId(new Action(p, Variant.PLAIN), kind, v.state()), Finding.unreachable(why))));
        }
    }

    /** Resets the source, reaches the visit's state by its history and observes it; answers why not, if not. */
    @SuppressWarnings("ReferenceEquality") // the last step is this very call of the path
    private Optional<Unreachable> arrive(Visit v) {
        reset();
        Action lastStep = null;
        State stepBefore = null;
        Outcome lastAnswer = null;
        List<Action> path = new ArrayList<>();
        for (Rpc step : model.pathTo(v.state(), v.history())) {
            Action a = new Action(step, Variant.PLAIN);
            path.add(a);
            State before = believed;
            Expectation e = model.expect(a, before);
            Outcome o = call(a, before);
            lastStep = a;
            stepBefore = before;
            lastAnswer = o;
            if (o.code() == StatusCode.UNIMPLEMENTED && scheme.lists(step, StatusCode.UNIMPLEMENTED)) {
                believed = null;
                return Optional.of(new Unreachable(
                        ConformanceContext.NOT_IMPLEMENTED_PREFIX + step.methodName() + " answered 12 UNIMPLEMENTED"
                                + " (the spec allows it; not a pass): "
                                + v.state().label() + " cannot be reached "
                                + v.history().name(),
                        List.of()));
            }
            Problem p = judgeAnswer(a, before, e, o);
            if (p != null && overTime(p)) {
                fail(p, v);
                p = null;
            }
            if (p != null) {
                // An answer the model did not expect may be the sign of an earlier call whose effect is missing:
                // the path is replayed with an observation after each call, and the earliest such call is blamed.
                Problem blamed = (lastStep != path.get(path.size() - 1)
                                ? Optional.<Problem>empty()
                                : previousStepMissing(path, stepBefore, v))
                        .or(() -> earliestMissingEffect(path, v))
                        .orElse(p);
                fail(blamed, v);
                believed = null;
                List<String> causes = new ArrayList<>(brokenBy);
                lastFailure.ifPresent(causes::add);
                causes.add(blamed.checkId());
                return Optional.of(new Unreachable(
                        "could not reach " + v.state().label() + " "
                                + v.history().name() + ": " + blamed.message(),
                        causes));
            }
            believed = e.after();
        }
        Observed seen = observe(lastStep, stepBefore, lastAnswer, v, true);
        if (!seen.held()) {
            believed = null;
            List<String> causes = new ArrayList<>(brokenBy);
            lastFailure.ifPresent(causes::add);
            seen.problems().stream().map(Problem::checkId).distinct().forEach(causes::add);
            return Optional.of(new Unreachable(
                    "could not reach " + v.state().label() + " " + v.history().name()
                            + ": the source did not answer as in that state",
                    causes));
        }
        at = v;
        lastFailure = Optional.empty();
        return Optional.empty();
    }

    /**
     * Brings the source back to the visit's state along the model's shortest path from where it is, observing it on
     * arrival; on any answer the model does not expect the source is left to a full arrival (reset, then the history).
     */
    private void returnTo(Visit v) {
        for (Rpc step : model.path(believed, v.state())) {
            Action a = new Action(step, Variant.PLAIN);
            State before = believed;
            Expectation e = model.expect(a, before);
            Outcome o = call(a, before);
            Problem p = judgeAnswer(a, before, e, o);
            if (p != null && !overTime(p)) {
                fail(p, v);
                believed = null;
                at = null;
                return;
            }
            if (p != null) {
                fail(p, v);
            }
            believed = e.after();
            if (believed == v.state() && !observe(a, before, o, v, true).held()) {
                believed = null;
                at = null;
                return;
            }
        }
    }

    /** Takes one action where the source is, judges its answer and observes the state after it. */
    private void take(Action a, Visit v) {
        State before = believed;
        String id = checkId(a, kind, before);
        Expectation e = model.expect(a, before);
        Outcome o = call(a, before);
        if (o.code() == StatusCode.UNIMPLEMENTED && scheme.lists(a.rpc(), StatusCode.UNIMPLEMENTED)) {
            add(id, Finding.notImplemented(a.rpc()));
            return;
        }
        Problem p = judgeAnswer(a, before, e, o);
        if (p != null) {
            fail(p, v);
            if (!overTime(p)) {
                believed = null;
                return;
            }
        }
        believed = e.after();
        // After a call that keeps the state (a refusal, for its secrets or its state; the same call again) nothing may
        // have changed: the probes that tell this state from every other are enough to see any change. After a call
        // that moves the source, every probe answers.
        boolean keeps = e.after() == before;
        Observed seen = observe(a, before, o, v, !keeps);
        if (seen.held()) {
            taken(id); // the state is the model's: what the probes answered wrongly is their checks' failure
            return;
        }
        believed = null;
        if (seen.problems().stream().noneMatch(q -> q.checkId().equals(id))) {
            // The probes could not show the state after the call: the call is judged by nothing, because of them.
            add(
                    id,
                    Finding.unreachable(new Unreachable(
                            "after " + a.label() + " on " + target + " the probes did not show the state it left",
                            seen.problems().stream()
                                    .map(Problem::checkId)
                                    .distinct()
                                    .toList())));
        }
    }

    /**
     * The problem with {@code o} as the answer to {@code a} in {@code before}, or null: its code against the model's,
     * an OK answer against the answer rules, then against the answers before it (the last sync time, the destination),
     * which are problems of checks of their own.
     */
    Problem judgeAnswer(Action a, State before, Expectation e, Outcome o) {
        String id = checkId(a, kind, before);
        String what = a.label() + " on " + target + " (" + before.label() + ")";
        if (o.code() != e.code()) {
            // 10 ABORTED that outlived the settle timeout while the kit sends one call at a time: the fixture is stuck.
            return new Problem(
                    id,
                    what + ": expected " + e.code().display() + ", got " + o.describe() + ctx.note(o),
                    o.code() == StatusCode.ABORTED,
                    List.of(),
                    true);
        }
        if (o.ok()) {
            try {
                ResponseRules.requireValid(ctx, o, target);
            } catch (AssertionFailedError broken) {
                // A rule a named response-validity check judges: that check names the defect, when it failed.
                return new Problem(
                        id,
                        what + ": " + broken.getMessage(),
                        false,
                        ResponseRules.namedChecksOfBrokenRules(ctx, o, target));
            }
            Problem overTime = history.judge(a, o, target);
            if (overTime == null && AnswerHistory.lastSyncTime(o) != null && !replaying) {
                add(AnswerHistory.checkId(kind), Finding.took());
            }
            return overTime != null ? overTime : compareDestination(o);
        }
        return null;
    }

    /** True for the problems of the checks that compare answers over time: the walk goes on after them. */
    private boolean overTime(Problem p) {
        return p.checkId().equals(AnswerHistory.checkId(kind)) || p.checkId().equals(consistentId(kind));
    }

    /**
     * Observes the source with every probe; answers the problems found (none when the answers are those of the state
     * the model expects). An answer set that fits another state of the model is the action's failure (it changed what
     * it must not, or did not change what it must); one that fits no state is each disagreeing probe's failure.
     */
    Observed observe(Action cause, State causeBefore, Outcome causeAnswer, Visit v, boolean every) {
        State expected = believed;
        String causeId = cause == null ? null : checkId(cause, kind, causeBefore);
        Map<Rpc, Outcome> answers = new LinkedHashMap<>();
        List<Problem> probeProblems = new ArrayList<>();
        // After a refused call, the probes answer one at a time, the most telling first, until only one state fits:
        // the one that tells this state from every other is enough to see any change. After any other call, every
        // probe answers.
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
                    add(checkId(pa, kind, expected), Finding.notImplemented(probe));
                    if (probe == Rpc.GET_VOLUME_REPLICATION_INFO) {
                        add(AnswerHistory.checkId(kind), Finding.notImplemented(probe));
                    }
                }
                continue; // this probe cannot tell; the others still can
            }
            answers.put(probe, o);
            Expectation e = model.expect(probe, expected);
            if (o.code() == e.code()) {
                Problem p = judgeAnswer(pa, expected, e, o);
                if (p != null && overTime(p)) {
                    fail(p, v);
                    p = null;
                }
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
            Optional<Rpc> changedBy = fits.isEmpty() ? probeThatChangedTheState(answers, expected) : Optional.empty();
            if (changedBy.isPresent()) {
                // Either a probe changed the state, or a later probe answers wrongly: asked again, the probes
                // tell (the first probe answers as in the new state if it changed it).
                Map<Rpc, Outcome> again = new LinkedHashMap<>();
                for (Rpc probe : answers.keySet()) {
                    again.put(probe, call(new Action(probe, Variant.PLAIN), null));
                }
                List<State> nowFits = fitting(again);
                if (nowFits.isEmpty() || nowFits.contains(expected)) {
                    changedBy = Optional.empty();
                }
            }
            List<Problem> problems = new ArrayList<>();
            if (changedBy.isPresent()) {
                // The first probes answer as in the expected state, the later ones as in another: a probe (a
                // call that must change nothing) changed it.
                problems.add(new Problem(
                        checkId(new Action(changedBy.get(), Variant.PLAIN), kind, expected),
                        message + " (the answers before and after "
                                + changedBy.get().methodName()
                                + " are those of two different states: it changed the state)"));
            } else if (causeId != null && (!fits.isEmpty() || leftPending)) {
                // Another state: the call changed what it must not (or not what it must). 10 ABORTED on every
                // later call, one at a time: the call left an operation pending.
                problems.add(new Problem(
                        causeId,
                        message
                                + (leftPending && fits.isEmpty()
                                        ? " (" + cause.label() + " left an operation pending on it)"
                                        : ""),
                        leftPending && fits.isEmpty()));
            } else {
                // Arriving (no call of the visit before it): the disable that reset the source is judged by its own
                // check, whose failure explains a source still enabled.
                List<String> arrivalCauses =
                        cause == null ? resetBy.map(List::of).orElse(List.of()) : List.of();
                for (Map.Entry<Rpc, Outcome> a : answers.entrySet()) {
                    if (model.expect(a.getKey(), expected).code()
                            != a.getValue().code()) {
                        problems.add(new Problem(
                                checkId(new Action(a.getKey(), Variant.PLAIN), kind, expected),
                                message,
                                false,
                                arrivalCauses));
                    }
                }
            }
            fail(problems, v);
            return new Observed(problems, false);
        }
        fail(probeProblems, v);
        return new Observed(probeProblems, true);
    }

    /**
     * The probe after which the answers change state: the answers up to it fit {@code expected}, those after it fit
     * one other state. Empty when there is no such probe.
     */
    private Optional<Rpc> probeThatChangedTheState(Map<Rpc, Outcome> answers, State expected) {
        List<Map.Entry<Rpc, Outcome>> list = new ArrayList<>(answers.entrySet());
        for (int k = 0; k < list.size() - 1; k++) {
            Map<Rpc, Outcome> before = new LinkedHashMap<>();
            Map<Rpc, Outcome> after = new LinkedHashMap<>();
            for (int i = 0; i < list.size(); i++) {
                (i <= k ? before : after).put(list.get(i).getKey(), list.get(i).getValue());
            }
            List<State> afterFits = fitting(after);
            if (fitting(before).contains(expected) && !afterFits.isEmpty() && !afterFits.contains(expected)) {
                return Optional.of(list.get(k).getKey());
            }
        }
        return Optional.empty();
    }

    /** The states whose probe answers are {@code answers}. */
    private List<State> fitting(Map<Rpc, Outcome> answers) {
        return model.reachable().stream()
                .filter(st -> answers.entrySet().stream()
                        .allMatch(p -> model.expect(p.getKey(), st).code()
                                == p.getValue().code()))
                .toList();
    }

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
                : "first " + TextFormat.shortDebugString(first) + ", then "
                        + TextFormat.shortDebugString(now)
                        + ": the destination is one fact of the replication, not a different answer per call";
        return new Problem(
                consistentId(kind),
                "GetReplicationDestinationInfo on " + target + " answered two"
                        + " different destinations while replication stayed enabled: " + how);
    }

    /** Sends {@code a} in {@code before} (the model's state, or null when unknown) and records the call. */
    private Outcome call(Action a, State before) {
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
        if (!replaying && before != null) {
            // The call's time is the time of the check its edge reports (the reporting check makes no call).
            add(
                    checkId(a, kind, before),
                    Finding.timed(
                            Duration.ofNanos(System.nanoTime() - start),
                            ctx.waited().minus(waitedBefore)));
        }
        if (o.ok() && a.rpc() == Rpc.DISABLE_VOLUME_REPLICATION) {
            destination = null;
        }
        history.after(a, o);
        return o;
    }

    private Map<String, String> wrongSecrets() {
        Map<String, String> bad = new LinkedHashMap<>();
        config.secrets().keys().forEach(k -> bad.put(k, LifecycleChecks.WRONG_SECRET));
        return bad;
    }

    /** Back to replication disabled, primary (promote with force what may be demoted, then disable). */
    private void reset() {
        if (believed != State.DISABLED) {
            ctx.restore();
        }
        resetBy = believed == State.DISABLED || believed == null
                ? Optional.empty()
                : Optional.of(checkId(new Action(Rpc.DISABLE_VOLUME_REPLICATION, Variant.PLAIN), kind, believed));
        if (believed == null) {
            // Where a failure left it, the check's books may not say (a refused call that enabled it): disabled
            // explicitly, so the next visit starts where the model says.
            ctx.call(Rpc.DISABLE_VOLUME_REPLICATION, target);
        }
        sequence.clear();
        lastBefore.clear();
        believed = State.DISABLED;
        at = null;
        destination = null;
        history.reset();
    }

    /** The checks whose failure followed from an earlier call's missing effect, and that call's check. */
    private final Map<String, String> missingEffectOf = new LinkedHashMap<>();

    private void taken(String checkId) {
        if (replaying) {
            return;
        }
        exploration.edgeTaken();
        add(checkId, Finding.took());
    }

    /** Records a failure of {@code p}'s check, shrunk to the shortest sequence that still shows it. */
    private void fail(Problem p, Visit v) {
        fail(List.of(p), v);
    }

    /** Records failures found at the same point of the tour (each shrunk on its own). */
    private void fail(List<Problem> problems, Visit v) {
        if (problems.isEmpty()) {
            return;
        }
        if (replaying) {
            problems.forEach(p -> failedInReplay.add(p.checkId()));
            return;
        }
        List<Call> tour = List.copyOf(sequence);
        IdentityHashMap<Call, State> tourBefore = new IdentityHashMap<>(lastBefore);
        for (Problem p : problems) {
            failOne(p, v, tour, tourBefore);
        }
        if (problems.stream().anyMatch(p -> !overTime(p))) {
            lastFailure = Optional.of(problems.get(0).checkId());
        }
    }

    private void failOne(Problem p, Visit v, List<Call> tour, IdentityHashMap<Call, State> tourBefore) {
        if (!brokenBy.isEmpty() && !brokenBy.contains(p.checkId())) {
            // The fixture was broken by another check's edge first: this is that failure's consequence.
            add(p.checkId(), Finding.unreachable(new Unreachable(p.message(), brokenBy)));
            return;
        }
        String blamed = missingEffectOf.get(p.checkId());
        if (blamed != null) {
            // Shown before to follow from an earlier call whose effect was missing: that call's failure, again.
            add(p.checkId(), Finding.unreachable(new Unreachable(p.message(), List.of(blamed))));
            return;
        }
        Finding so = found.getOrDefault(p.checkId(), Finding.NONE);
        if (so.failures().stream().anyMatch(f -> f.history().equals(v.history().name()))) {
            return; // one per history is enough
        }
        List<String> calls = tour.stream().map(Call::describe).toList();
        boolean reproduced = true;
        // An answer judged over time is its own evidence (with the answers before it, in the tour): no replays,
        // which would move the source under the call being judged.
        if (so.failures().isEmpty() && !overTime(p)) {
            TourShrinker.Shrunk shrunk = new TourShrinker(model).shrink(p.checkId(), tour, tourBefore, this);
            calls = shrunk.calls().orElse(calls);
            // A call that left the fixture stuck cannot be replayed on it: unless a replay ran clean, it stands.
            reproduced = shrunk.ending() == TourShrinker.Ending.REPRODUCED
                    || (p.broke() && shrunk.ending() != TourShrinker.Ending.CLEAN);
            // The source is wherever the replays left it: the tour resets it before it goes on.
            believed = null;
            at = null;
            if (p.wrongCode() && reproduced && shrunk.reproduction().size() > 1) {
                // An answer the model gives in another state: the shortest reproduction, replayed with an
                // observation after each call, may show an earlier call that answered 0 OK without its effect.
                Optional<Problem> earlier = earliestMissingEffect(shrunk.reproduction(), v);
                if (earlier.isPresent()) {
                    Problem e = earlier.get();
                    missingEffectOf.put(p.checkId(), e.checkId());
                    if (found.getOrDefault(e.checkId(), Finding.NONE).failures().isEmpty()) {
                        add(
                                e.checkId(),
                                Finding.failed(new Failure(
                                        e.message(), calls, v.history().name(), tour.size(), true, List.of())));
                    }
                    add(
                            p.checkId(),
                            Finding.unreachable(new Unreachable(
                                    p.message() + " (it followed from " + e.checkId() + ")", List.of(e.checkId()))));
                    return;
                }
            }
        }
        if (p.broke() && reproduced) {
            // Stuck for good (the replays could not even start): every later failure on it is this one's.
            brokenBy.add(p.checkId());
            ctx.poisoned(target, p.checkId());
        }
        add(
                p.checkId(),
                Finding.failed(
                        new Failure(p.message(), calls, v.history().name(), tour.size(), reproduced, p.causes())));
    }

    /**
     * Replays {@code actions} from replication disabled, observing after the last; answers the calls made when
     * {@code checkId} failed again at the last action, else nothing. Records nothing.
     */
    @Override
    public TourShrinker.Replay replay(List<Action> actions, String checkId) {
        replaying = true;
        failedInReplay.clear();
        try {
            reset();
            for (int i = 0; i < actions.size(); i++) {
                Action a = actions.get(i);
                State before = believed;
                if (before == null) {
                    return new TourShrinker.Replay(TourShrinker.Ending.INCONCLUSIVE, sequence);
                }
                Expectation e = model.expect(a, before);
                Outcome o = call(a, before);
                Problem p = judgeAnswer(a, before, e, o);
                if (p != null && p.checkId().equals(checkId) && i == actions.size() - 1) {
                    return new TourShrinker.Replay(TourShrinker.Ending.REPRODUCED, sequence);
                }
                if (p != null && !overTime(p)) {
                    return new TourShrinker.Replay(TourShrinker.Ending.INCONCLUSIVE, sequence);
                }
                believed = e.after();
                if (i == actions.size() - 1) {
                    observe(a, before, o, new Visit(model.histories().get(0), before, List.of()), true);
                    return new TourShrinker.Replay(
                            failedInReplay.contains(checkId)
                                    ? TourShrinker.Ending.REPRODUCED
                                    : failedInReplay.isEmpty()
                                            ? TourShrinker.Ending.CLEAN
                                            : TourShrinker.Ending.INCONCLUSIVE,
                            sequence);
                }
            }
            return new TourShrinker.Replay(TourShrinker.Ending.INCONCLUSIVE, sequence);
        } catch (RuntimeException | AssertionError e) {
            return new TourShrinker.Replay(TourShrinker.Ending.INCONCLUSIVE, sequence);
        } finally {
            replaying = false;
            failedInReplay.clear();
        }
    }

    /**
     * When a step of a path answers what the model does not expect in {@code before}, an observation right then tells
     * whether the source is in {@code before} at all: if not, the step before it answered OK without its effect, and
     * is blamed; empty when the source is where the model says (the step's own answer is then wrong).
     */
    private Optional<Problem> previousStepMissing(List<Action> path, State before, Visit v) {
        if (path.size() < 2 || before == null) {
            return Optional.empty();
        }
        Action previous = path.get(path.size() - 2);
        State previousBefore = lastBefore.get(sequence.get(sequence.size() - 2));
        replaying = true;
        Observed seen;
        try {
            State kept = believed;
            believed = before;
            seen = observe(
                    previous, previousBefore, sequence.get(sequence.size() - 2).outcome(), v, true);
            believed = kept;
        } finally {
            replaying = false;
            failedInReplay.clear();
        }
        if (seen.held() || previousBefore == null) {
            return Optional.empty();
        }
        return Optional.of(new Problem(
                checkId(previous, kind, previousBefore),
                previous.label() + " on " + target + " answered 0 OK in " + previousBefore.label() + " but "
                        + before.label() + " was not reached: "
                        + seen.problems().get(0).message()
                        + " (observed when the next call, "
                        + path.get(path.size() - 1).label()
                        + ", answered what it would answer there)"));
    }

    /**
     * Replays {@code path} from replication disabled with an observation after every call: the earliest call that
     * answered as the model says but left the source in another state than the model's, as the problem of that
     * call's check; empty when every call up to the last had its effect.
     */
    private Optional<Problem> earliestMissingEffect(List<Action> path, Visit v) {
        if (path.size() < 2) {
            return Optional.empty();
        }
        replaying = true;
        try {
            reset();
            for (Action a : path.subList(0, path.size() - 1)) {
                State before = believed;
                if (before == null) {
                    return Optional.empty();
                }
                Expectation e = model.expect(a, before);
                Outcome o = call(a, before);
                if (judgeAnswer(a, before, e, o) != null) {
                    return Optional.empty();
                }
                believed = e.after();
                failedInReplay.clear();
                Observed seen = observe(a, before, o, v, true);
                if (!seen.held()) {
                    String id = checkId(a, kind, before);
                    return Optional.of(new Problem(
                            id,
                            a.label() + " on " + target + " answered "
                                    + o.code().display() + " in " + before.label()
                                    + " but " + e.after().label() + " was not reached: "
                                    + seen.problems().get(0).message() + " (the earliest call of the path whose"
                                    + " effect is missing, found by replaying the path with an observation after each"
                                    + " call; the next call's answer followed from it)"));
                }
            }
            return Optional.empty();
        } finally {
            replaying = false;
            failedInReplay.clear();
            believed = null;
            at = null;
        }
    }
}
