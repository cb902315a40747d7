package io.volrep.testkit;

import io.volrep.api.ErrorScheme;
import io.volrep.api.ReplicationSource.Kind;
import io.volrep.api.Rpc;
import io.volrep.testkit.LifecycleModel.Action;
import io.volrep.testkit.LifecycleModel.History;
import io.volrep.testkit.LifecycleModel.State;
import io.volrep.testkit.LifecycleModel.Variant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
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
 * printed first ({@link TourShrinker}). Each fixture's share of the tour is walked by an {@link ExplorationWalker}.
 * The tour is spread over the fixtures of each kind and runs beside the other checks: with
 * {@value #FULL_TOUR_FIXTURES} fixtures of a kind or more every history takes every plain edge (those with force or
 * with wrong or missing secrets are dealt out among the histories); with fewer, every history
 * is still taken and observed, and the edges are dealt out among them in turn (rotated by the run's seed).
 *
 * <p>Why not a property-testing library (jqwik's stateful tests): the tour must cover every edge (a random walk
 * does not guarantee it in a bounded run), each replay costs real calls on real storage (250 ms and more), so the
 * shrinker replays a few model-chosen candidates instead of hundreds, and the kit runs inside JUnit dynamic tests and
 * the CLI rather than in jqwik's own engine.
 */
final class Exploration {
    /** With this many fixtures of a kind or more, every history takes every plain edge of every state. */
    static final int FULL_TOUR_FIXTURES = 6;

    /** One visit of the tour: reach {@code state} by {@code history}, then take {@code actions} there. */
    record Visit(History history, State state, List<Action> actions) {
        Visit {
            actions = List.copyOf(actions);
        }
    }

    private final ConformanceSession session;
    private final ConformanceConfig config;
    private final LifecycleModel model;
    private final ErrorScheme scheme;
    /** Per kind, what every walker of the kind found, merged once they all ended. */
    private final Map<Kind, CompletableFuture<Map<String, Finding>>> done = new ConcurrentHashMap<>();

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
            List<String> fixtures = kind == Kind.VOLUME
                    ? config.volumes()
                    : config.dialect().supports(Kind.VOLUME_GROUP) ? config.volumeGroups() : List.of();
            if (fixtures.isEmpty() || everyEdgeSkipped(kind, actions)) {
                // Nothing to explore for this kind (none of its checks runs): no call names its fixtures.
                done.put(kind, CompletableFuture.completedFuture(Map.of()));
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
            List<CompletableFuture<Map<String, Finding>>> runs = new ArrayList<>();
            for (int i = 0; i < tasks; i++) {
                List<Visit> share = List.copyOf(shares.get(i));
                if (share.isEmpty()) {
                    continue;
                }
                Needs needs = kind == Kind.VOLUME ? Needs.volume() : Needs.group();
                runs.add(session.schedule(needs, (int) load[i], lease -> walk(kind, lease, share)));
            }
            done.put(kind, merged(runs));
        }
        summary = model.reachable().size() + " states x " + actions.size() + " actions x "
                + done.entrySet().stream().filter(e -> kindExplored(e.getKey())).count() + " source kinds, "
                + model.histories().size()
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
        return kind == Kind.VOLUME
                || (config.dialect().supports(Kind.VOLUME_GROUP)
                        && !config.volumeGroups().isEmpty());
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
                    .filter(a ->
                            !(a.variant() == Variant.PLAIN && model.probes().contains(a.rpc())))
                    .filter(a -> !config.skipped(checkId(a, kind, state)))
                    .toList());
            if (config.seed() != 0) {
                Collections.shuffle(here, random);
            }
            List<History> histories = model.histories();
            int rotation = config.seed() == 0 ? 0 : random.nextInt(histories.size());
            for (int h = 0; h < histories.size(); h++) {
                List<Action> share = new ArrayList<>();
                for (int i = 0; i < here.size(); i++) {
                    // With fixtures enough, every history takes every plain edge; the edges with force or with wrong
                    // or missing secrets (refusals, mostly, that depend on the state, not on how it was reached) are
                    // dealt out among the histories, as they all are with fewer fixtures.
                    boolean everyHistory = full && here.get(i).variant() == Variant.PLAIN;
                    if (everyHistory || (i + rotation) % histories.size() == h) {
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

    /** Walks {@code visits} on the fixture of {@code kind} that {@code lease} holds: what each named check found. */
    private Map<String, Finding> walk(Kind kind, CheckScheduler.Lease lease, List<Visit> visits) {
        ConformanceContext ctx = session.context(lease);
        ctx.sequential();
        Addressing target = kind == Kind.VOLUME
                ? Addressing.volume(lease.volumes().get(0))
                : Addressing.volumeGroup(lease.groups().get(0));
        return new ExplorationWalker(this, ctx, kind, target).walk(visits);
    }

    /** Every walker's findings, once they all ended, merged per named check. */
    private static CompletableFuture<Map<String, Finding>> merged(List<CompletableFuture<Map<String, Finding>>> runs) {
        return CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new)).thenApply(ignored -> {
            Map<String, Finding> all = new LinkedHashMap<>();
            runs.forEach(r -> r.join().forEach((id, f) -> all.merge(id, f, Finding::merge)));
            return Map.copyOf(all);
        });
    }

    /** Counts one edge taken (for the statement's summary). */
    void edgeTaken() {
        edgesTaken.incrementAndGet();
    }

    LifecycleModel model() {
        return model;
    }

    ErrorScheme scheme() {
        return scheme;
    }

    ConformanceConfig config() {
        return config;
    }

    // ---------------------------------------------------------------- reporting

    /** True when the tour of {@code kind} runs in this session (it has fixtures and checks of its own). */
    boolean explores(Kind kind) {
        start();
        return kindExplored(kind);
    }

    /** What the tour found for the named check {@code checkId} of {@code kind}, once the tour of that kind ended. */
    Finding finding(Kind kind, String checkId) {
        start();
        try {
            return done.get(kind).get().getOrDefault(checkId, Finding.NONE);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("the exploration failed", e.getCause());
        }
    }

    /** The kind of source an exploration check id names ({@code <Rpc>/<volume|group>/...}); empty for other ids. */
    static Optional<Kind> kindOf(String checkId) {
        if (!ComplianceReport.WALK_ID.matcher(checkId).matches() && !isOverTime(checkId)) {
            return Optional.empty();
        }
        return Optional.of(checkId.contains("/group/") ? Kind.VOLUME_GROUP : Kind.VOLUME);
    }

    private static boolean isOverTime(String checkId) {
        return checkId.equals(AnswerHistory.checkId(Kind.VOLUME))
                || checkId.equals(AnswerHistory.checkId(Kind.VOLUME_GROUP));
    }

    /** True for the checks whose finding is judged from answers compared over time: no edge of their own. */
    private static boolean comparesOverTime(String checkId) {
        return checkId.endsWith("/consistent") || isOverTime(checkId);
    }

    /**
     * What the tour's findings say of the named check {@code checkId}, as its report says it.
     *
     * @param outcome passed, failed or not implemented
     * @param message why (empty when passed)
     * @param causes for a failure, the checks whose failure explains it (it is then their consequence)
     * @param weak for a failure, the checks whose failure on its own would explain it: a guess
     * @param speculative true for a failure the fixture's own calls never showed again: it counts as a cause of
     *                    nothing else
     */
    record Verdict(CheckOutcome outcome, String message, List<String> causes, List<String> weak, boolean speculative) {
        static final Verdict PASSED = new Verdict(CheckOutcome.PASSED, "", List.of(), List.of(), false);

        Verdict {
            causes = List.copyOf(causes);
            weak = List.copyOf(weak);
        }

        static Verdict failed(String message, List<String> causes, List<String> weak) {
            return new Verdict(CheckOutcome.FAILED, message, causes, weak, false);
        }
    }

    /**
     * The verdict on the named check {@code checkId} of {@code kind}: a failure with the shortest sequence first,
     * "not implemented" where the table allows 12, a pass when every edge taken held. A failure the fixture's own
     * calls did not show again alone is the isolation checks' to name; one that only breaks answer rules a named check
     * judges is that check's; an edge the tour could not reach is the consequence of what made it unreachable.
     */
    Verdict verdict(Kind kind, String checkId) {
        Finding r = finding(kind, checkId);
        if (!r.failures().isEmpty()) {
            List<Finding.Failure> failures = new ArrayList<>(r.failures());
            failures.sort(Comparator.comparingInt(f -> f.calls().size()));
            Finding.Failure first = failures.get(0);
            StringBuilder m = new StringBuilder(first.message());
            m.append("; found ")
                    .append(first.history())
                    .append("; the calls that show it, from replication disabled: ")
                    .append(String.join("; ", first.calls()));
            for (Finding.Failure other : failures.subList(1, failures.size())) {
                m.append("; also ")
                        .append(other.history())
                        .append(" (")
                        .append(other.calls().size())
                        .append(" calls): ")
                        .append(other.message());
            }
            List<String> weak = new ArrayList<>();
            if (config.hasPeer()) {
                // Site A's answers also follow what the peer site does: a defect there, the two-site check names.
                weak.add("two-sites/" + LifecycleChecks.kindId(kind) + "/round-trip");
            }
            if (failures.stream().noneMatch(Finding.Failure::reproduced)) {
                // Seen on the fixture, never again when its own calls were replayed alone: another source's call
                // may have changed it meanwhile, or a lock spanning sources refused it, which the isolation checks
                // name.
                m.append(" (seen once, not again when the fixture's own calls were replayed alone)");
                weak.addAll(0, LifecycleChecks.ISOLATION_CHECKS);
                return new Verdict(CheckOutcome.FAILED, m.toString(), List.of(), weak, true);
            }
            List<String> causes = new ArrayList<>();
            if (failures.stream().allMatch(f -> !f.causes().isEmpty())) {
                failures.forEach(f ->
                        f.causes().stream().filter(c -> !causes.contains(c)).forEach(causes::add));
            }
            return Verdict.failed(m.toString(), causes, weak);
        }
        if (r.notImplemented().isPresent() && r.taken() == 0) {
            return new Verdict(
                    CheckOutcome.NOT_IMPLEMENTED,
                    ConformanceContext.NOT_IMPLEMENTED_PREFIX
                            + r.notImplemented().get().methodName()
                            + " answered 12 UNIMPLEMENTED (the spec allows it; not a pass)",
                    List.of(),
                    List.of(),
                    false);
        }
        if (r.unreachable().isPresent() && r.taken() == 0) {
            Finding.Unreachable why = r.unreachable().get();
            return why.message().startsWith(ConformanceContext.NOT_IMPLEMENTED_PREFIX)
                    ? new Verdict(CheckOutcome.NOT_IMPLEMENTED, why.message(), List.of(), List.of(), false)
                    : Verdict.failed(why.message(), why.causes(), List.of());
        }
        if (r.taken() == 0 && !comparesOverTime(checkId)) {
            return Verdict.failed(
                    "the exploration took no call of this check (" + checkId + "): nothing to judge",
                    List.of(),
                    List.of());
        }
        return Verdict.PASSED;
    }

    /**
     * Reports the answer rules the tour's answers on sources of {@code kind} broke, in any state and by any history:
     * each breach the consequence of the named response-validity check of its rule, when that failed.
     */
    void reportRules(ConformanceContext ctx, Kind kind) {
        ctx.source(kind);
        start();
        Map<String, Finding> all;
        try {
            all = done.get(kind).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("the exploration failed", e.getCause());
        }
        List<String> breaches = new ArrayList<>();
        List<String> causes = new ArrayList<>();
        all.forEach((id, f) -> f.failures().stream()
                .filter(failure -> failure.causes().stream().anyMatch(c -> c.startsWith("response-validity/")))
                .findFirst()
                .ifPresent(failure -> {
                    breaches.add(failure.message());
                    failure.causes().stream()
                            .filter(c -> c.startsWith("response-validity/") && !causes.contains(c))
                            .forEach(causes::add);
                }));
        if (!breaches.isEmpty()) {
            ctx.failBecause(causes, String.join("; ", breaches));
        }
    }

    /** Reports the tour's findings for the named check {@code checkId} (of {@code kind}): see {@link #verdict}. */
    void report(ConformanceContext ctx, Kind kind, String checkId, String name) {
        ctx.source(kind); // skips where the run has no fixture of this kind
        Finding r = finding(kind, checkId);
        session.waited(name, r.waited());
        session.ran(name, r.ran());
        Verdict v = verdict(kind, checkId);
        switch (v.outcome()) {
            case NOT_IMPLEMENTED -> throw new TestAbortedException(v.message());
            case FAILED -> throw new ConformanceContext.Consequence(v.causes(), v.weak(), v.message());
            default -> {}
        }
    }
}
