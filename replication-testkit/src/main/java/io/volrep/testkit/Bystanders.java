package io.volrep.testkit;

import io.volrep.api.ReplicationSource.Kind;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;

/**
 * The isolation checks' engine, deterministic: after each call that changes a source, every other fixture is observed,
 * and a fixture that changed names the call that changed it. Holding every fixture, it runs rounds: in each, some
 * fixtures (the actors) run a failover round trip at the same time, step by step, while the others (the bystanders)
 * follow the same trajectory one step behind, so that each actor step meets every bystander in the state that step
 * would show a leak in: an enable meets them replication disabled, a demote primary, a promote and a disable
 * secondary. After each actor step every bystander is observed (all at once, the probes that tell its state); one that
 * left its state is confirmed by replaying, with that bystander alone, each actor's calls up to that step: the first
 * that changes it again is the call named. The actors of each round are chosen so that every fixture acts in some round
 * where every other fixture is a bystander (each fixture is given a distinct set of rounds of one size: no set holds
 * another), so every ordered pair of fixtures is observed, in {@code r} rounds where {@code r} grows with the
 * logarithm of the fixtures (6 rounds for 18 fixtures) rather than with their number.
 *
 * <p>It is one task of the run, started with the first isolation check that reports on it; the checks report what it
 * found for their kinds of actor and bystander ({@link #verdict}).
 */
final class Bystanders {
    /** The check of every fixture: what the pair checks do not report, and the engine's own failed steps. */
    static final String ALL = "isolation/all-fixtures/bystanders";

    static final String VOLUME_VOLUME = "isolation/volume/round-trip-spares-volume";
    static final String GROUP_VOLUME = "isolation/group/round-trip-spares-volume";
    static final String VOLUME_GROUP = "isolation/group/spared-by-volume-round-trip";
    /** The checks that report on the engine. */
    static final List<String> CHECKS = List.of(ALL, VOLUME_VOLUME, GROUP_VOLUME, VOLUME_GROUP);

    /** At most this many bystanders that changed are confirmed by replays (each costs calls on real storage). */
    private static final int MAX_CONFIRMED = 4;

    /**
     * A bystander that left its state during an actor step.
     *
     * @param actor the actor whose call changed it, when a replay with the two alone showed it again; else empty
     * @param actors the round's actors, each of which made that call at the same time
     * @param call the actor step
     * @param actorBefore the actors' state before that step
     * @param bystander the fixture that changed
     * @param expected the state it was in
     * @param seen what it answered, and which state that fits
     */
    record Leak(
            Optional<Addressing> actor,
            List<Addressing> actors,
            Rpc call,
            State actorBefore,
            Addressing bystander,
            State expected,
            String seen) {
        String describe() {
            String by = actor.map(a -> call.methodName() + " on " + a + " (" + actorBefore.label() + ")")
                    .orElse(call.methodName() + " on one of " + actors + " (" + actorBefore.label() + ", all at once;"
                            + " none changed it again alone)");
            return by + " changed " + bystander + " (" + expected.label() + "): it then answers " + seen
                    + actor.map(a -> " (shown again with " + a + " and " + bystander + " alone)")
                            .orElse("");
        }
    }

    /**
     * What the engine found.
     *
     * @param leaks the bystanders changed by another source's call
     * @param problems the steps that failed on the way (the engine's own failure, by the walk checks' causes)
     * @param causes the walk checks of the failed steps
     * @param skipped why the engine did not run, when it did not
     */
    record Findings(List<Leak> leaks, List<String> problems, List<String> causes, Optional<String> skipped) {}

    private final ConformanceSession session;
    private final LifecycleModel model;
    private volatile CompletableFuture<Findings> done;

    Bystanders(ConformanceSession session) {
        this.session = session;
        this.model = LifecycleModel.forDialect(session.config().dialect());
    }

    /** Schedules the engine (once), holding every fixture. */
    synchronized void start() {
        if (done == null) {
            done = session.schedule(Needs.everyFixture(), 1, lease -> run(session.context(lease)));
        }
    }

    /** What the engine found, once it ended. */
    Findings findings() {
        start();
        try {
            return done.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("the isolation engine failed", e.getCause());
        }
    }

    /**
     * The verdict on the isolation check {@code checkId}: the leaks of its kinds of actor and bystander (the check of
     * every fixture: those no other check reports, and the engine's failed steps); empty when it passes.
     */
    Optional<ConformanceContext.Consequence> verdict(String checkId) {
        Findings f = findings();
        if (f.skipped().isPresent()) {
            return Optional.empty();
        }
        List<String> mine = new ArrayList<>();
        for (Leak leak : f.leaks()) {
            String owner = owner(leak);
            if (owner.equals(checkId)
                    || (checkId.equals(ALL) && session.config().skipped(owner))) {
                mine.add(leak.describe());
            }
        }
        if (checkId.equals(ALL) && !f.problems().isEmpty() && mine.isEmpty()) {
            return Optional.of(new ConformanceContext.Consequence(
                    f.causes(), "the isolation rounds could not go on: " + String.join("; ", f.problems())));
        }
        if (mine.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new ConformanceContext.Consequence(
                List.of(),
                "after each call of a failover round trip on some fixtures, every other fixture was" + " observed: "
                        + String.join("; ", mine)));
    }

    /** Reports the verdict on {@code checkId} (skips where the engine did not run). */
    void report(ConformanceContext ctx, String checkId) {
        if (checkId.contains("/group/")) {
            ctx.volumeGroup(); // skips where the run has no group
        }
        Findings f = findings();
        if (f.skipped().isPresent()) {
            ctx.skip(f.skipped().get());
        }
        Optional<ConformanceContext.Consequence> v = verdict(checkId);
        if (v.isPresent()) {
            throw v.get();
        }
    }

    /** The check that reports {@code leak}: by the kinds of its actor and bystander. */
    private static String owner(Leak leak) {
        boolean actorGroup = leak.actors().get(0).isGroup();
        boolean bystanderGroup = leak.bystander().isGroup();
        if (!actorGroup && !bystanderGroup) {
            return VOLUME_VOLUME;
        }
        if (actorGroup && !bystanderGroup) {
            return GROUP_VOLUME;
        }
        return !actorGroup ? VOLUME_GROUP : ALL;
    }

    // ---------------------------------------------------------------- the rounds

    /** The rounds: which fixtures act in each (the others watch). */
    static List<List<Integer>> rounds(int fixtures) {
        int r = 2;
        while (binomial(r, r / 2) < fixtures) {
            r++;
        }
        List<Set<Integer>> sets = new ArrayList<>();
        combinations(r, r / 2, 0, new ArrayList<>(), sets, fixtures);
        List<List<Integer>> rounds = new ArrayList<>();
        for (int j = 0; j < r; j++) {
            List<Integer> actors = new ArrayList<>();
            for (int i = 0; i < fixtures; i++) {
                if (sets.get(i).contains(j)) {
                    actors.add(i);
                }
            }
            if (!actors.isEmpty() && actors.size() < fixtures) {
                rounds.add(actors);
            }
        }
        return rounds;
    }

    private static long binomial(int n, int k) {
        long b = 1;
        for (int i = 1; i <= k; i++) {
            b = b * (n - k + i) / i;
        }
        return b;
    }

    private static void combinations(
            int n, int k, int from, List<Integer> current, List<Set<Integer>> out, int wanted) {
        if (out.size() >= wanted) {
            return;
        }
        if (current.size() == k) {
            out.add(new LinkedHashSet<>(current));
            return;
        }
        for (int i = from; i < n; i++) {
            current.add(i);
            combinations(n, k, i + 1, current, out, wanted);
            current.remove(current.size() - 1);
        }
    }

    private Findings run(ConformanceContext ctx) {
        ConformanceConfig config = session.config();
        List<Addressing> fixtures = new ArrayList<>();
        config.volumes().forEach(v -> fixtures.add(Addressing.volume(v)));
        // Groups take part unless every check that would report on them is skipped.
        boolean groups = config.dialect().supports(Kind.VOLUME_GROUP)
                && CHECKS.stream().filter(id -> !id.equals(VOLUME_VOLUME)).anyMatch(id -> !config.skipped(id));
        if (groups) {
            config.volumeGroups().forEach(g -> fixtures.add(Addressing.volumeGroup(g)));
        }
        if (fixtures.size() < 2) {
            return new Findings(
                    List.of(), List.of(), List.of(), Optional.of("needs two fixtures (--volume, --volume-group)"));
        }
        ctx.sequential();
        Round.Log log = new Round.Log();
        ExecutorService pool = Executors.newFixedThreadPool(fixtures.size() + 1, r -> {
            Thread t = new Thread(r, "volrep-conformance-isolation");
            t.setDaemon(true);
            return t;
        });
        try {
            for (List<Integer> round : rounds(fixtures.size())) {
                List<Addressing> actors = new ArrayList<>();
                List<Addressing> bystanders = new ArrayList<>();
                for (int i = 0; i < fixtures.size(); i++) {
                    (round.contains(i) ? actors : bystanders).add(fixtures.get(i));
                }
                new Round(ctx, model, pool, actors, bystanders, log).run();
                if (!log.problems.isEmpty()) {
                    break;
                }
            }
        } catch (RuntimeException | AssertionError e) {
            log.problems.add("the isolation rounds stopped: " + e.getMessage());
        } finally {
            pool.shutdownNow();
            try {
                ctx.restore();
            } catch (RuntimeException | AssertionError e) {
                // reported by the fixtures-restored checks
            }
        }
        return new Findings(
                List.copyOf(log.leaks), List.copyOf(log.problems), List.copyOf(log.causes), Optional.empty());
    }

    /** One round: actors and bystanders, step by step. */
    private static final class Round {
        /** What the rounds found. */
        static final class Log {
            final List<Leak> leaks = Collections.synchronizedList(new ArrayList<>());
            final List<String> problems = Collections.synchronizedList(new ArrayList<>());
            final List<String> causes = Collections.synchronizedList(new ArrayList<>());
        }

        private final ConformanceContext ctx;
        private final LifecycleModel model;
        private final ExecutorService pool;
        private final List<Addressing> actors;
        private final List<Addressing> bystanders;
        private final Log log;
        /** Fixtures out of this round: a step of theirs failed, or they changed (their state is not known). */
        private final Set<Addressing> out = Collections.synchronizedSet(new LinkedHashSet<>());
        /** Each fixture's last step that answered 0 OK, as the walk check of that call in the state it was made in. */
        private final Map<Addressing, String> lastStep = new ConcurrentHashMap<>();

        Round(
                ConformanceContext ctx,
                LifecycleModel model,
                ExecutorService pool,
                List<Addressing> actors,
                List<Addressing> bystanders,
                Log log) {
            this.ctx = ctx;
            this.model = model;
            this.pool = pool;
            this.actors = actors;
            this.bystanders = bystanders;
            this.log = log;
        }

        void run() {
            step(actors, Rpc.ENABLE_VOLUME_REPLICATION, State.DISABLED);
            watch(Rpc.ENABLE_VOLUME_REPLICATION, State.DISABLED, State.DISABLED);
            step(bystanders, Rpc.ENABLE_VOLUME_REPLICATION, State.DISABLED);
            ownStepTookEffect(State.PRIMARY);
            step(actors, Rpc.DEMOTE_VOLUME, State.PRIMARY);
            watch(Rpc.DEMOTE_VOLUME, State.PRIMARY, State.PRIMARY);
            both(() -> step(bystanders, Rpc.DEMOTE_VOLUME, State.PRIMARY), () -> {
                if (model.rpcs().contains(Rpc.RESYNC_VOLUME)) {
                    step(actors, Rpc.RESYNC_VOLUME, State.SECONDARY);
                }
            });
            step(actors, Rpc.PROMOTE_VOLUME, State.SECONDARY);
            watch(Rpc.PROMOTE_VOLUME, State.SECONDARY, State.SECONDARY);
            step(actors, Rpc.DISABLE_VOLUME_REPLICATION, State.PRIMARY);
            watch(Rpc.DISABLE_VOLUME_REPLICATION, State.PRIMARY, State.SECONDARY);
            Set<Addressing> everyone = new LinkedHashSet<>(bystanders);
            everyone.addAll(out);
            disableAll(new ArrayList<>(everyone));
        }

        /** {@code rpc} on each of {@code sources} still in the round, at once; a refusal takes it out of the round. */
        private void step(List<Addressing> sources, Rpc rpc, State before) {
            parallel(sources.stream().filter(s -> !out.contains(s)).toList(), s -> {
                Outcome o = ctx.call(rpc, s);
                if (o.code() == StatusCode.UNIMPLEMENTED && ctx.scheme().lists(rpc, StatusCode.UNIMPLEMENTED)) {
                    out.add(s);
                    return;
                }
                if (!o.ok()) {
                    out.add(s);
                    log.problems.add(rpc.methodName() + " on " + s + " (" + before.label() + ") -> " + o.describe()
                            + ctx.note(o));
                    log.causes.add(LifecycleChecks.walkId(rpc, ResponseRules.kindOf(s), before));
                    String previous = lastStep.get(s);
                    if (previous != null) {
                        // Refused as in another state: the step before may have answered 0 OK without its effect.
                        log.causes.add(previous);
                    }
                    return;
                }
                lastStep.put(s, LifecycleChecks.walkId(rpc, ResponseRules.kindOf(s), before));
            });
        }

        /**
         * Right after the bystanders' own step, before any actor calls again: a bystander not {@code expected} is out,
         * and the failure is its own step's (it answered 0 OK without its effect), not a leak of the next actor call.
         */
        private void ownStepTookEffect(State expected) {
            parallel(
                    bystanders.stream().filter(s -> !out.contains(s)).toList(),
                    s -> see(s, expected).ifPresent(seen -> {
                        out.add(s);
                        String own = lastStep.get(s);
                        log.problems.add(s + " was not " + expected.label() + " right after its own step, " + own
                                + ", answered 0 OK: it answers " + seen);
                        log.causes.add(own);
                    }));
        }

        /** After the actors' {@code call}: every bystander still in the round must be {@code expected}. */
        private void watch(Rpc call, State actorBefore, State expected) {
            Map<Addressing, String> changed = new LinkedHashMap<>();
            parallel(
                    bystanders.stream().filter(s -> !out.contains(s)).toList(),
                    s -> see(s, expected).ifPresent(seen -> {
                        synchronized (changed) {
                            changed.put(s, seen);
                        }
                    }));
            int confirmed = 0;
            for (Map.Entry<Addressing, String> c : changed.entrySet()) {
                out.add(c.getKey());
                Optional<String> ownStep = ownStepMissing(c.getKey(), expected);
                if (ownStep.isPresent()) {
                    // Not a leak: the bystander does not reach that state even alone, by its own step.
                    log.problems.add(c.getKey() + " was not " + expected.label() + " after its own step, "
                            + ownStep.get() + ", answered 0 OK: it answers " + c.getValue() + " (and again when"
                            + " brought there alone)");
                    log.causes.add(ownStep.get());
                    continue;
                }
                Optional<Addressing> actor = confirmed++ < MAX_CONFIRMED
                        ? confirm(call, actorBefore, c.getKey(), expected)
                        : Optional.empty();
                log.leaks.add(new Leak(actor, actors, call, actorBefore, c.getKey(), expected, c.getValue()));
            }
        }

        /**
         * The walk check of {@code bystander}'s own last step when, brought into {@code expected} alone (every other
         * fixture of the round still where it was), it is not there: its own step answered 0 OK without its effect,
         * whatever the actors did. Empty when it reaches {@code expected} alone (the change is then the actors'). It is
         * disabled after.
         */
        private Optional<String> ownStepMissing(Addressing bystander, State expected) {
            String own = lastStep.get(bystander);
            if (own == null || expected == State.DISABLED) {
                return Optional.empty();
            }
            try {
                ctx.call(Rpc.DISABLE_VOLUME_REPLICATION, bystander);
                LifecycleChecks.reach(ctx, model, bystander, expected);
                return see(bystander, expected).isPresent() ? Optional.of(own) : Optional.empty();
            } catch (AssertionError | RuntimeException e) {
                return Optional.of(own);
            } finally {
                ctx.call(Rpc.DISABLE_VOLUME_REPLICATION, bystander);
            }
        }

        /**
         * Replays each actor's round trip up to {@code call}, with the {@code bystander} alone in {@code expected}: the
         * first actor whose call changes it again. Both are disabled before and after.
         */
        private Optional<Addressing> confirm(Rpc call, State actorBefore, Addressing bystander, State expected) {
            for (Addressing actor : actors) {
                if (out.contains(actor)) {
                    continue;
                }
                ctx.call(Rpc.DISABLE_VOLUME_REPLICATION, bystander);
                try {
                    ctx.call(Rpc.DISABLE_VOLUME_REPLICATION, actor);
                    LifecycleChecks.reach(ctx, model, bystander, expected);
                    LifecycleChecks.reach(ctx, model, actor, actorBefore);
                    if (see(bystander, expected).isPresent()) {
                        continue; // it does not even stay there alone: nothing to tell
                    }
                    if (!ctx.call(call, actor).ok()) {
                        continue;
                    }
                    if (see(bystander, expected).isPresent()) {
                        return Optional.of(actor);
                    }
                } catch (AssertionError | RuntimeException e) {
                    // a step of the replay failed: this actor tells nothing
                } finally {
                    // The actor goes on with the round from where the round left it: back to its state after the call.
                    ctx.call(Rpc.DISABLE_VOLUME_REPLICATION, actor);
                    reachQuietly(actor, model.expect(call, actorBefore).after());
                    ctx.call(Rpc.DISABLE_VOLUME_REPLICATION, bystander);
                }
            }
            return Optional.empty();
        }

        private void reachQuietly(Addressing source, State state) {
            try {
                LifecycleChecks.reach(ctx, model, source, state);
            } catch (AssertionError | RuntimeException e) {
                out.add(source);
            }
        }

        /**
         * What {@code source} answers when it is not in {@code expected}, with the state that fits; empty when it is.
         * The probes that tell {@code expected} from every other state answer first, and no more are asked once only
         * it fits.
         */
        private Optional<String> see(Addressing source, State expected) {
            Map<Rpc, Outcome> seen = new LinkedHashMap<>();
            List<Rpc> probes = new ArrayList<>(model.probes());
            probes.sort(Comparator.comparingLong(p -> model.reachable().stream()
                    .filter(s -> model.expect(p, s).code()
                            == model.expect(p, expected).code())
                    .count()));
            for (Rpc probe : probes) {
                List<State> fits = fitting(seen);
                if (!seen.isEmpty() && fits.equals(List.of(expected))) {
                    return Optional.empty();
                }
                if (!seen.isEmpty() && !fits.contains(expected)) {
                    break;
                }
                Outcome o = ctx.call(probe, source);
                if (o.code() == StatusCode.UNIMPLEMENTED && ctx.scheme().lists(probe, StatusCode.UNIMPLEMENTED)) {
                    continue;
                }
                seen.put(probe, o);
            }
            List<State> fits = fitting(seen);
            if (fits.contains(expected)) {
                return Optional.empty();
            }
            List<String> said = new ArrayList<>();
            seen.values().forEach(o -> said.add(o.rpc().methodName() + " -> " + o.describe()));
            return Optional.of(String.join(", ", said)
                    + (fits.isEmpty()
                            ? ", as in no state of the model"
                            : ", as if it were "
                                    + String.join(
                                            " or ",
                                            fits.stream().map(State::label).toList())));
        }

        private List<State> fitting(Map<Rpc, Outcome> seen) {
            return model.reachable().stream()
                    .filter(s -> seen.entrySet().stream()
                            .allMatch(e -> model.expect(e.getKey(), s).code()
                                    == e.getValue().code()))
                    .toList();
        }

        private void disableAll(List<Addressing> sources) {
            parallel(sources, s -> ctx.call(Rpc.DISABLE_VOLUME_REPLICATION, s));
        }

        private void both(Runnable a, Runnable b) {
            Future<?> first = pool.submit(a);
            b.run();
            join(first);
        }

        private void parallel(List<Addressing> sources, Consumer<Addressing> each) {
            List<Future<?>> runs = new ArrayList<>();
            for (Addressing s : sources) {
                runs.add(pool.submit(() -> each.accept(s)));
            }
            runs.forEach(this::join);
        }

        private void join(Future<?> f) {
            try {
                f.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof RuntimeException r) {
                    throw r;
                }
                if (e.getCause() instanceof Error err) {
                    throw err;
                }
                throw new IllegalStateException(e.getCause());
            }
        }
    }
}
