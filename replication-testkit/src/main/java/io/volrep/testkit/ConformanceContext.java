package io.volrep.testkit;

import com.google.protobuf.Message;
import io.grpc.Channel;
import io.volrep.api.ErrorScheme;
import io.volrep.api.ReplicationSource;
import io.volrep.api.ReplicationSource.Kind;
import io.volrep.api.Rpc;
import io.volrep.api.Secrets;
import io.volrep.api.SpecDialect;
import io.volrep.api.StatusCode;
import io.volrep.api.WireLevel;
import io.volrep.proto.healer.HealerNodeGrpc;
import io.volrep.proto.healer.NodeHealerRequest;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a check body works with: the configuration, raw calls to the plugin, expectations read from the
 * {@link ErrorScheme}, and the bookkeeping that returns every source to "replication disabled" afterwards.
 *
 * <pre>{@code
 * Check.required("GetVolumeReplicationInfo: last_sync_time is REQUIRED", ctx -> {
 *     Addressing vol = ctx.volume();
 *     ctx.step(Rpc.ENABLE_VOLUME_REPLICATION, vol);
 *     ctx.step(Rpc.PROMOTE_VOLUME, vol);
 *     Outcome info = ctx.step(Rpc.GET_VOLUME_REPLICATION_INFO, vol);
 *     ...
 * });
 * }</pre>
 */
public final class ConformanceContext {
    /** Prefix of the abort message for 12 UNIMPLEMENTED where the spec allows it; reports key on it. */
    public static final String NOT_IMPLEMENTED_PREFIX = "NOT IMPLEMENTED: ";
    /** Prefix of the abort message for checks whose fixtures are missing. */
    public static final String SKIPPED_PREFIX = "SKIPPED: ";
    /**
     * Prefix of the abort message for checks that did not run: they need what the run does not have (a peer site), or
     * another check's failure is the cause of theirs ({@link #BECAUSE_OF}).
     */
    public static final String NOT_RUN_PREFIX = "NOT RUN: ";
    /** Prefix of the abort message for checks of a service the plugin's Identity does not advertise. */
    public static final String NOT_APPLICABLE_PREFIX = "NOT APPLICABLE: ";
    /** How a NOT RUN reason names the failed check that is the cause: {@code "NOT RUN: because of check ID, ..."}. */
    public static final String BECAUSE_OF = "because of check ";
    /** Why a two-site check does not run without a peer. */
    static final String NEEDS_PEER = "needs the peer site (--peer-endpoint, ConformanceConfig.peerEndpoint):"
            + " replication is between two sites, and this check drives the source's replica there";
    /**
     * Prefix of the failure of a MUST that an optional check found (a code outside the table, a refusal with a side
     * effect): reports count it as a required failure ({@link #failMust}).
     */
    public static final String MUST_PREFIX = "MUST: ";
    /** Prefix of the abort message of a warning ({@link #warn}); reports key on it. */
    public static final String WARNING_PREFIX = "WARNING: ";

    private static final Logger LOG = LoggerFactory.getLogger(ConformanceContext.class);

    private final ConformanceSession session;
    private final Channel channel;
    private final Channel healerChannel;
    private final ConformanceConfig config;
    private final SpecDialect dialect;
    private final ErrorScheme scheme;
    private final CheckScheduler.Lease lease;
    /** What this check did to its sources (and their replicas on the peer), for its restore. */
    private final SourceBookkeeping sources = new SourceBookkeeping();
    /** What to undo once the sources are restored, last registered first: e.g. delete a group the check created. */
    private final Deque<Runnable> atEnd = new ArrayDeque<>();
    /** Every call this run sent, for the statement. */
    private final LongAdder calls;
    /** How long this check polled transient answers, in nanoseconds. */
    private final AtomicLong waitedNanos = new AtomicLong();
    /** True inside checks that send one call at a time: a 10 ABORTED that outlives the settle window had nothing pending. */
    private volatile boolean sequential;

    /** The check this context runs, or null for work that is not a check (the exploration's walks). */
    private final Check check;
    /**
     * The checks that left a fixture of this context's lease broken before it started (an operation left pending, a
     * restore that failed): a failure here is their consequence when they failed.
     */
    private final List<String> inherited;

    /**
     * The fixtures of this lease that the check before left enabled and primary instead of disabling them, by the id
     * of that check ({@link #restore(boolean)}). A setup step enabling one of them ({@link #step}) takes it as it is:
     * enabled and primary is where that step leads. Any other call first disables every one still here, so that the
     * check meets what it expects: replication disabled. Guarded by itself.
     */
    private final Map<ReplicationSource, String> carried = new LinkedHashMap<>();

    @SuppressWarnings("ThreadLocalUsage") // each context's own: true while a step enables a carried fixture
    private final ThreadLocal<Boolean> enablingCarried = ThreadLocal.withInitial(() -> false);

    /** True once a call enabled a source with other parameters than the configured ones: not carried on. */
    private volatile boolean enabledOtherwise;

    ConformanceContext(ConformanceSession session, CheckScheduler.Lease lease, Check check) {
        this.check = check;
        this.inherited = session.poison(lease);
        this.carried.putAll(session.claimCarried(lease));
        this.session = session;
        this.calls = session.callCounter();
        this.channel = session.channel();
        this.healerChannel = session.healerChannel();
        this.config = session.config();
        this.dialect = config.dialect();
        this.scheme = ErrorScheme.forDialect(dialect);
        this.lease = lease;
    }

    /** The run's configuration. */
    public ConformanceConfig config() {
        return config;
    }

    /**
     * The channel to the plugin under test (replication.Controller). The check's fixtures are in the state it expects
     * before it gets the channel (replication disabled).
     */
    public Channel channel() {
        disableCarried();
        return channel;
    }

    /** The channel to the node plugin's {@code healer.HealerNode} (the target itself unless configured apart). */
    public Channel healerChannel() {
        disableCarried();
        return healerChannel;
    }

    /** The revision of the replication spec the plugin speaks. */
    public SpecDialect dialect() {
        return dialect;
    }

    /** The error tables of the plugin's spec revision. */
    public ErrorScheme scheme() {
        return scheme;
    }

    /** The fixture volume this check holds (its first, when it holds several), in {@code replication_source} form. */
    public Addressing volume() {
        return Addressing.volume(
                lease.volumes().isEmpty()
                        ? config.volumes().get(0)
                        : lease.volumes().get(0));
    }

    /** The second fixture volume this check holds; skips the check when only one volume is configured. */
    public Addressing secondVolume() {
        if (config.volumes().size() < 2) {
            skip("needs a second fixture volume (--volume)");
        }
        return Addressing.volume(
                lease.volumes().size() > 1
                        ? lease.volumes().get(1)
                        : config.volumes().get(1));
    }

    /** The fixture volume group this check holds; skips the check when none is configured. */
    public Addressing volumeGroup() {
        if (!dialect.supports(Kind.VOLUME_GROUP)) {
            skip("spec " + dialect + " has no volume groups");
        }
        if (config.volumeGroups().isEmpty()) {
            skip("no volume groups configured (--volume-group)");
        }
        return Addressing.volumeGroup(
                lease.groups().isEmpty()
                        ? config.volumeGroups().get(0)
                        : lease.groups().get(0));
    }

    /** The first fixture of {@code kind}: {@link #volume()} or {@link #volumeGroup()} (which may skip). */
    public Addressing source(Kind kind) {
        return kind == Kind.VOLUME ? volume() : volumeGroup();
    }

    /**
     * This check sends one call at a time: a 10 ABORTED is still polled within the settle timeout (the plugin may be
     * finishing work of its own, as real mirroring does after a demote), but one that outlives it is reported as
     * "nothing was pending" from the suite.
     */
    public ConformanceContext sequential() {
        sequential = true;
        return this;
    }

    /** True when a peer site is configured. */
    public boolean hasPeer() {
        return session.peerChannel() != null;
    }

    /** Reports the check as NOT RUN unless a peer site is configured: never a failure, never a pass. */
    public void requirePeer() {
        if (!hasPeer()) {
            throw new TestAbortedException(NOT_RUN_PREFIX + NEEDS_PEER);
        }
    }

    /**
     * The replica of {@code target} on the peer site, verified there before any check acts on it: the destination
     * site A's GetReplicationDestinationInfo answers (or the same id where A does not implement it), claimed by no
     * other fixture, and observed on site B with read-only calls as a secondary that, where B can tell, replicates
     * {@code target}. Call it while {@code target} is enabled and primary on site A. A replica that is not so fails the
     * check and is left alone: the kit changes nothing on either site that it has not first observed in the state the
     * check expects.
     */
    public Addressing replicaOf(Addressing target) {
        requirePeer();
        PeerReplicas.Named named =
                session.peerReplicas().name(target, dialect, this, t -> call(Rpc.GET_REPLICATION_DESTINATION_INFO, t));
        PeerSite.verify(this, target, named);
        session.peerReplicas().verified(target);
        return named.replica();
    }

    /**
     * The replica site A named for {@code target} earlier in the run, without asking A again (its replication may be
     * disabled by now), for read-only observations; empty when no check of the run named one.
     */
    Optional<Addressing> knownReplicaOf(Addressing target) {
        return knownNaming(target).map(PeerReplicas.Named::replica);
    }

    /** How site A named {@code target}'s destination earlier in the run, if site B verified it. */
    Optional<PeerReplicas.Named> knownNaming(Addressing target) {
        return session.peerReplicas().known(target);
    }

    /** How site A named {@code target}'s destination, verified on site B or not (yet). */
    Optional<PeerReplicas.Named> namingOf(Addressing target) {
        return session.peerReplicas().named(target);
    }

    /** Calls {@code rpc} on the peer site (with the configured secrets), with the same settling as {@link #call}. */
    public Outcome callPeer(Rpc rpc, Addressing replica) {
        return callPeer(rpc, replica, false);
    }

    /** Calls {@code rpc} with {@code force} on the peer site. */
    public Outcome callPeerForce(Rpc rpc, Addressing replica) {
        return callPeer(rpc, replica, true);
    }

    private Outcome callPeer(Rpc rpc, Addressing replica, boolean force) {
        requirePeer();
        Set<LifecycleModel.State> before = sources.observedOnPeer(replica);
        LifecycleModel peerModel = LifecycleModel.forDialect(dialect());
        // A revision's probes change no state (v0.1.0 observes with ResyncVolume alone): they are how the kit looks.
        if (SourceBookkeeping.mutating(rpc) && !peerModel.probes().contains(rpc)) {
            LifecycleModel.State needed = PeerSite.stateBefore(rpc);
            if (!PeerSite.mayAct(peerModel, rpc, before)) {
                fail("the kit was about to send " + rpc.methodName() + " to site B's " + replica + " without having"
                        + " observed it " + (needed == null ? "at all" : needed.label()) + " since its last change ("
                        + (before.isEmpty()
                                ? "not observed"
                                : "observed as if "
                                        + String.join(
                                                " or ",
                                                before.stream()
                                                        .map(LifecycleModel.State::label)
                                                        .sorted()
                                                        .toList()))
                        + "): it was left alone (the kit changes nothing it has not first observed in the state the"
                        + " call expects)");
            }
        }
        boolean promotedHere = sources.promotedOnPeer(replica);
        Supplier<Outcome> once = () -> call(
                session.peerChannel(),
                rpc,
                replica,
                config.secrets().asMap(),
                config.enableParameters(),
                force,
                false,
                false);
        // Info of a replica this check promoted: 5 is "details not available at the moment" there too.
        Outcome o = rpc == Rpc.GET_VOLUME_REPLICATION_INFO && promotedHere
                ? settle(once, r -> r.code() == StatusCode.NOT_FOUND)
                : once.get();
        sources.trackPeer(replica, o, before);
        return o;
    }

    /** Notes that {@code replica} on site B answered its read-only probes as in each of {@code fits} (empty: none). */
    void observedOnPeer(Addressing replica, Set<LifecycleModel.State> fits) {
        sources.observedOnPeer(replica, fits);
    }

    /** The states {@code replica} on site B was last observed in, since the last call that may have changed it. */
    Set<LifecycleModel.State> observedOnPeer(Addressing replica) {
        return sources.observedOnPeer(replica);
    }

    /**
     * Calls {@code call} again while {@code transientHere} holds for its answer, within the settle timeout, counting
     * the wait; returns the last answer. For windows the two-site checks wait out (a promote refused until the
     * peer's demotion has arrived; a replica the storage removes a while after the disable).
     */
    <T> T settle(Supplier<T> call, Predicate<T> transientHere) {
        return settle(call.get(), call, transientHere).last();
    }

    /**
     * Like {@link #settle(Supplier, Predicate)} from an answer already had, telling how many polls the wait took (for
     * the check's message when the answer never settled).
     */
    <T> SettlePolling.Settled<T> settle(T first, Supplier<T> again, Predicate<T> transientHere) {
        SettlePolling.Settled<T> settled = SettlePolling.poll(config.settleTimeout(), first, again, transientHere);
        waitedNanos.addAndGet(settled.waited().toNanos());
        return settled;
    }

    /** How a wait that did not settle is told in a check's message: {@code "after waiting 1.0 s (7 polls; ...)"}. */
    String unsettled(SettlePolling.Settled<?> settled) {
        return "after waiting " + Durations.describe(settled.waited()) + " (" + settled.polls()
                + " polls; --settle-timeout " + Durations.describe(config.settleTimeout()) + ")";
    }

    /** How long this check has polled transient answers. */
    public Duration waited() {
        return Duration.ofNanos(waitedNanos.get());
    }

    /** The configured secrets; skips the check when none are configured. */
    public Secrets requireSecrets() {
        if (config.secrets().isEmpty()) {
            skip("no secrets configured (--secret K=V): the plugin's authentication cannot be checked");
        }
        return config.secrets();
    }

    /** Calls {@code rpc} with the configured secrets; retries ABORTED briefly, since checks run one at a time. */
    public Outcome call(Rpc rpc, Addressing target) {
        return call(rpc, target, config.secrets().asMap(), false);
    }

    /** Calls {@code rpc} with {@code secrets} instead of the configured ones. */
    public Outcome call(Rpc rpc, Addressing target, Map<String, String> secrets) {
        return call(rpc, target, secrets, false);
    }

    /**
     * Calls {@code rpc} as {@link #call(Rpc, Addressing)} does, running {@code onAborted} for every 10 ABORTED answer
     * it meets while it settles (the concurrent isolation check counts them).
     */
    Outcome callCounting(Rpc rpc, Addressing target, Runnable onAborted) {
        abortedListener.set(onAborted);
        try {
            return call(rpc, target);
        } finally {
            abortedListener.remove();
        }
    }

    @SuppressWarnings("ThreadLocalUsage") // each context's own: the thread running one of its checks sees its listener
    private final ThreadLocal<Runnable> abortedListener = new ThreadLocal<>();

    /** Calls {@code rpc} with {@code force} set (promote, demote, resync). */
    public Outcome callForce(Rpc rpc, Addressing target) {
        return call(rpc, target, config.secrets().asMap(), true);
    }

    /**
     * Calls {@code rpc} addressing {@code target} exactly as given: under a legacy dialect {@code volume_id} is not
     * filled in from the source (to check that a plugin requires it).
     */
    public Outcome callExact(Rpc rpc, Addressing target) {
        return call(rpc, target, config.secrets().asMap(), false, true);
    }

    /**
     * Calls {@code rpc} with {@code secrets} and, where the request has a {@code parameters} map, {@code parameters}
     * instead of the configured ones (for the CSI size-limit checks).
     */
    public Outcome call(Rpc rpc, Addressing target, Map<String, String> secrets, Map<String, String> parameters) {
        Outcome o = call(rpc, target, secrets, parameters, false, false);
        if (o.ok() && rpc == Rpc.ENABLE_VOLUME_REPLICATION && !parameters.equals(config.enableParameters())) {
            enabledOtherwise = true;
        }
        return o;
    }

    private Outcome call(Rpc rpc, Addressing target, Map<String, String> secrets, boolean force) {
        return call(rpc, target, secrets, force, false);
    }

    private Outcome call(Rpc rpc, Addressing target, Map<String, String> secrets, boolean force, boolean exact) {
        return call(rpc, target, secrets, config.enableParameters(), force, exact);
    }

    private Outcome call(
            Rpc rpc,
            Addressing target,
            Map<String, String> secrets,
            Map<String, String> parameters,
            boolean force,
            boolean exact) {
        return call(channel, rpc, target, secrets, parameters, force, exact, true);
    }

    /**
     * One call, settled: a transient answer that a table allows is polled within the settle timeout before the
     * caller judges the last answer. Transient are 10 ABORTED (an operation pending: the plugin's own, after a demote
     * or a disable), 14 UNAVAILABLE (where listed "not known yet", else gRPC's transient code), 4 DEADLINE_EXCEEDED (an
     * answer slower than the call's deadline: a loaded machine), and
     * GetVolumeReplicationInfo's 5 NOT_FOUND on a source this check made primary ("details not available at the
     * moment"). Nothing else is ever waited for: a wrong code, a broken answer, a refusal are judged at once.
     */
    private Outcome call(
            Channel target0,
            Rpc rpc,
            Addressing target,
            Map<String, String> secrets,
            Map<String, String> parameters,
            boolean force,
            boolean exact,
            boolean track) {
        if (!dialect.supports(rpc)) {
            skip("spec " + dialect + " has no " + rpc.methodName());
        }
        if (!enablingCarried.get()) {
            disableCarried();
        }
        Message request =
                Wire.request(dialect, rpc, Wire.inDialect(dialect, target, exact), secrets, parameters, force);
        LifecycleModel.State before = sources.believed(target);
        Outcome outcome = Wire.invoke(target0, dialect, rpc, request, config.callTimeout());
        session.echoes().saw(request, outcome, session::safe);
        calls.increment();
        noteAborted(outcome);
        if (outcome.code() != StatusCode.UNAVAILABLE && outcome.code() != StatusCode.DEADLINE_EXCEEDED) {
            session.pluginAnswered(true);
        }
        SettlePolling.Settled<Outcome> settled = settle(
                outcome,
                () -> {
                    Outcome again = Wire.invoke(target0, dialect, rpc, request, config.callTimeout());
                    session.echoes().saw(request, again, session::safe);
                    calls.increment();
                    noteAborted(again);
                    return again;
                },
                o -> isTransient(o, target, track));
        outcome = settled.last();
        if (settled.polls() > 0 && isTransient(outcome, target, track)) {
            outcome = new Outcome(
                    rpc,
                    outcome.code(),
                    outcome.message() + " [still " + outcome.code().display() + " " + unsettled(settled) + "]",
                    null);
        }
        if (track) {
            sources.called(target, rpc, force, before);
            sources.track(target, outcome);
        }
        LOG.debug("{} {} -> {}", rpc, target, outcome.code());
        return outcome;
    }

    private void noteAborted(Outcome o) {
        Runnable listener = abortedListener.get();
        if (listener != null && o.code() == StatusCode.ABORTED) {
            listener.run();
        }
    }

    /** True for an answer the tables allow to be transient (see {@link #call(Channel, Rpc, Addressing, Map, Map, boolean, boolean, boolean)}). */
    private boolean isTransient(Outcome o, Addressing target, boolean track) {
        if (config.settleTimeout().isZero()) {
            return false;
        }
        return switch (o.code()) {
            case ABORTED -> true;
            // 14 from a plugin that has never answered anything else is no transient state: nobody is there.
            case UNAVAILABLE -> session.pluginAnswered();
            // An answer later than the call's deadline: a slow (loaded) machine, not a refusal; every call may be sent
            // again (the spec's methods are idempotent).
            case DEADLINE_EXCEEDED -> session.pluginAnswered();
            case NOT_FOUND -> o.rpc() == Rpc.GET_VOLUME_REPLICATION_INFO && track && sources.madePrimary(target);
            default -> false;
        };
    }

    /**
     * Sends {@code count} identical calls at once (without ABORTED retries) and returns every answer:
     * for the "simultaneous calls on one source" checks.
     */
    public List<Outcome> callSimultaneously(Rpc rpc, Addressing target, int count) {
        disableCarried();
        Message request = plainRequest(rpc, target);
        List<Outcome> outcomes = Wire.invokeAtOnce(channel, dialect, rpc, request, count, config.callTimeout());
        outcomes.forEach(o -> session.echoes().saw(request, o, session::safe));
        calls.add(count);
        outcomes.forEach(o -> sources.track(target, o));
        return outcomes;
    }

    /**
     * Sends {@code first}, and {@code second} right after it while the first may still be pending, both on
     * {@code target}, without polling a 10 ABORTED: for the checks of interleaved calls. Answers both, first first.
     */
    List<Outcome> callInterleaved(Rpc first, Rpc second, Addressing target) throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "volrep-conformance-interleaved");
            t.setDaemon(true);
            return t;
        });
        try {
            Future<Outcome> a = pool.submit(() -> callOnce(first, target));
            // Favours the first reaching the plugin first; the judgement does not depend on it (it reads the answers).
            Thread.sleep(2);
            Outcome b = callOnce(second, target);
            return List.of(a.get(), b);
        } finally {
            pool.shutdownNow();
        }
    }

    /** {@code rpc} on {@code target} with the configured secrets and parameters, without force. */
    private Message plainRequest(Rpc rpc, Addressing target) {
        return Wire.request(
                dialect,
                rpc,
                Wire.inDialect(dialect, target, false),
                config.secrets().asMap(),
                config.enableParameters(),
                false);
    }

    /** One call, its answer as it is (no transient answer polled), tracked. */
    private Outcome callOnce(Rpc rpc, Addressing target) {
        disableCarried();
        Message request = plainRequest(rpc, target);
        LifecycleModel.State before = sources.believed(target);
        Outcome o = Wire.invoke(channel, dialect, rpc, request, config.callTimeout());
        session.echoes().saw(request, o, session::safe);
        calls.increment();
        sources.called(target, rpc, false, before);
        sources.track(target, o);
        return o;
    }

    /**
     * A step that must succeed for the check to go on: returns the OK outcome; reports "not implemented"
     * when the spec allows 12 UNIMPLEMENTED for {@code rpc}; fails otherwise.
     */
    public Outcome step(Rpc rpc, Addressing target) {
        boolean takesCarried = rpc == Rpc.ENABLE_VOLUME_REPLICATION && takeCarried(target);
        LifecycleModel.State before = sources.believed(target);
        List<String> previous = sources.calls(target);
        Outcome outcome;
        enablingCarried.set(takesCarried);
        try {
            outcome = call(rpc, target);
        } finally {
            enablingCarried.remove();
        }
        if (outcome.code() != StatusCode.OK
                && !(outcome.code() == StatusCode.UNIMPLEMENTED && scheme.lists(rpc, StatusCode.UNIMPLEMENTED))
                && target.fixture().isPresent()
                && rpc.isReplication()) {
            // A step the check needs but does not judge: the exploration judges this very call in this state, so a
            // refusal here is the failure of that check (this one did not run because of it), or else this one's.
            // The call before it may have answered OK without its effect: its check is a cause too.
            List<String> causes =
                    new ArrayList<>(List.of(LifecycleChecks.walkId(rpc, ResponseRules.kindOf(target), before)));
            causes.addAll(previous);
            failBecause(
                    causes,
                    rpc.methodName() + " on " + target + " (" + before.label() + "): expected 0 OK, got "
                            + outcome.describe() + note(outcome));
        }
        expect(outcome, StatusCode.OK, rpc.methodName() + " on " + target);
        return outcome;
    }

    /**
     * Fails unless {@code outcome} has {@code expected}; 12 UNIMPLEMENTED where the spec's table lists it
     * becomes "not implemented" instead.
     */
    public void expect(Outcome outcome, StatusCode expected, String what) {
        if (outcome.code() == expected) {
            return;
        }
        if (outcome.code() == StatusCode.UNIMPLEMENTED && scheme.lists(outcome.rpc(), StatusCode.UNIMPLEMENTED)) {
            notImplemented(outcome.rpc());
        }
        String message = what + ": expected " + expected.display() + ", got " + outcome.describe() + note(outcome);
        String basic = LifecycleChecks.walkId(outcome.rpc(), Kind.VOLUME, LifecycleModel.State.DISABLED);
        if (outcome.code() == StatusCode.UNIMPLEMENTED
                && outcome.rpc().isReplication()
                && checkId().filter(basic::equals).isEmpty()) {
            // An RPC the spec does not let be unimplemented: its first walk check names it, once.
            failBecause(List.of(basic), message);
        }
        fail(message);
    }

    /** Why an unexpected code is wrong beyond "not the expected one": outside the table, or ABORTED with nothing pending. */
    String note(Outcome outcome) {
        return TableNotes.note(scheme, outcome, sequential);
    }

    /** Same as {@link #expect(Outcome, StatusCode, String)}, describing the call by its RPC. */
    public void expect(Outcome outcome, StatusCode expected) {
        expect(outcome, expected, outcome.rpc().methodName());
    }

    /** Reports the check as "not implemented": the plugin answered 12 UNIMPLEMENTED where the spec allows it. */
    public void notImplemented(Rpc rpc) {
        throw new TestAbortedException(NOT_IMPLEMENTED_PREFIX + rpc.methodName()
                + " answered 12 UNIMPLEMENTED (the spec allows it; not a pass)");
    }

    /** Reports the check as "not implemented": the plugin does not serve {@code what} (e.g. identity.Identity). */
    public void notImplemented(String what) {
        // The checks of an optional service are tagged required (they bind a plugin that serves it): say so, rather
        // than call a check "optional" that the report lists as required.
        throw new TestAbortedException(NOT_IMPLEMENTED_PREFIX + what + " answered 12 UNIMPLEMENTED (the spec allows it:"
                + " the service is optional, its checks are required only when the service is served; not a pass)");
    }

    /**
     * Sends one unary request of {@code rpc} as it is (no retries; the check judges every answer) and returns the
     * answer: for the services whose requests the checks build themselves ({@code volumegroup.Controller}), and any
     * request a polite client would refuse to send.
     *
     * <pre>{@code
     * Outcome o = ctx.send(Rpc.LIST_VOLUME_GROUPS, ListVolumeGroupsRequest.newBuilder().setMaxEntries(-1).build());
     * }</pre>
     */
    @WireLevel
    public Outcome send(Rpc rpc, Message request) {
        disableCarried();
        Outcome outcome = Wire.sendOnce(channel, Wire.method(dialect, rpc), rpc, request, config.callTimeout());
        session.echoes().saw(request, outcome, session::safe);
        calls.increment();
        LOG.debug("{} -> {}", rpc, outcome.code());
        return outcome;
    }

    /**
     * Runs {@code undo} after the check, once its sources are restored (replication disabled), later registrations
     * first; what it throws is a restore problem, which fails an otherwise passing check. For what a check creates:
     * the suite leaves nothing behind.
     *
     * <pre>{@code
     * String id = created.getVolumeGroup().getVolumeGroupId();
     * ctx.atEnd(() -> ctx.send(Rpc.DELETE_VOLUME_GROUP, DeleteVolumeGroupRequest.newBuilder().setVolumeGroupId(id).build()));
     * }</pre>
     */
    public void atEnd(Runnable undo) {
        atEnd.push(Objects.requireNonNull(undo, "undo"));
    }

    /**
     * Sends a NodeHealer request to {@link #healerChannel()} (no ABORTED retries: the suite sends one call at a time)
     * and returns the answer.
     */
    @WireLevel
    public Outcome heal(NodeHealerRequest request) {
        disableCarried();
        Outcome o = Wire.sendOnce(
                healerChannel, HealerNodeGrpc.getNodeHealerMethod(), Rpc.NODE_HEALER, request, config.callTimeout());
        session.echoes().saw(request, o, session::safe);
        return o;
    }

    /**
     * Ends the check with a warning: the plugin did what the spec demands, but something clients rely on is off
     * (reported as {@link CheckOutcome#WARNING}: neither passed nor failed, never breaking compliance).
     */
    public void warn(String message) {
        throw new TestAbortedException(WARNING_PREFIX + message);
    }

    /** Skips the check: its fixtures are not configured. */
    public void skip(String reason) {
        throw new TestAbortedException(SKIPPED_PREFIX + reason);
    }

    /** Fails the check. */
    public void fail(String message) {
        throw new AssertionFailedError(message);
    }

    /**
     * Fails the check, unless one of the checks {@code causes} (by id) failed: then this failure is that check's
     * consequence, and the check is reported NOT RUN because of it (one defect, one FAIL). For a step that a check
     * needs but does not check itself: {@code ctx.failBecause(List.of("EnableVolumeReplication/volume/disabled"),
     * "EnableVolumeReplication on volume pvc-1 -> 2 UNKNOWN")}.
     */
    public void failBecause(List<String> causes, String message) {
        throw new Consequence(causes, message);
    }

    /**
     * A failure that other checks' failures may explain; the session resolves it when it reports the check. A strong
     * cause explains it when it failed; a weak one (a guess: another source's call, the peer site) only when it
     * failed on its own, for no strong cause of its own.
     */
    static final class Consequence extends AssertionFailedError {
        private static final long serialVersionUID = 1L;
        private final List<String> causes;
        private final List<String> weak;

        Consequence(List<String> causes, String message) {
            this(causes, List.of(), message);
        }

        Consequence(List<String> causes, List<String> weak, String message) {
            super(message);
            this.causes = List.copyOf(causes);
            this.weak = List.copyOf(weak);
        }

        /** The ids of the checks whose failure explains this one. */
        List<String> causes() {
            return causes;
        }

        /** The ids of the checks whose failure on its own explains this one. */
        List<String> weak() {
            return weak;
        }
    }

    /**
     * Fails the check as a required one, whatever its level: what an optional check (a SHOULD, a MAY) found of a MUST
     * on its way, such as a code that is no row of the table or a refused call that changed something. The report
     * counts it among the required failures, so the plugin is not compliant.
     */
    public void failMust(String message) {
        throw new AssertionFailedError(MUST_PREFIX + message);
    }

    /**
     * Runs {@code part} of this check that another check, {@code checkId}, judges on its own (the failover of the
     * two-site checks, a resync until ready): a failure in it is that check's consequence, unless this check is it.
     */
    void partOf(String checkId, Runnable part) {
        try {
            part.run();
        } catch (Consequence c) {
            if (checkId().filter(checkId::equals).isPresent()) {
                throw c;
            }
            List<String> causes = new ArrayList<>(c.causes());
            causes.add(checkId);
            throw new Consequence(causes, c.weak(), c.getMessage());
        } catch (AssertionFailedError e) {
            if (checkId().filter(checkId::equals).isPresent()) {
                throw e;
            }
            throw new Consequence(List.of(checkId), e.getMessage());
        }
    }

    /** Runs {@code observation}; its failure is a failure of a MUST ({@link #failMust}), introduced by {@code what}. */
    void mustHold(Runnable observation, String what) {
        try {
            observation.run();
        } catch (Consequence c) {
            throw new Consequence(c.causes(), c.weak(), MUST_PREFIX + what + ": " + c.getMessage());
        } catch (AssertionFailedError e) {
            failMust(what + ": " + e.getMessage());
        }
    }

    /** Waits, for polling loops (resync until ready). */
    public void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /**
     * Returns every source this check enabled to "replication disabled, primary": on the peer site demotes what the
     * check promoted there, promotes (force) what may be demoted, then disables. Returns the problems, empty when all
     * is restored.
     */
    List<String> restore() {
        return restore(false);
    }

    /**
     * As {@link #restore()}; with {@code mayCarry} (the check passed, and holds fixtures it was leased as any), a
     * fixture the check only enabled (it stays primary), with nothing else to undo (nothing changed on the peer site,
     * no other parameters, nothing registered with {@link #atEnd}), stays so for the next check on it, which disables it
     * first unless its first call is the step that enables it: each enable and disable on real storage waits for the
     * replication it starts or stops (seconds each), and most checks begin by enabling.
     */
    List<String> restore(boolean mayCarry) {
        // changedOnPeer also covers a replica the check promoted there (restored by demoting it).
        boolean carries = mayCarry && check != null && atEnd.isEmpty() && !enabledOtherwise && !sources.changedOnPeer();
        List<String> problems = CheckRestore.restore(this, sources, atEnd, carries ? this::carryOn : t -> false);
        // Fixtures carried to this check that it never called on are as the check before left them.
        synchronized (carried) {
            carried.forEach(session::carry);
            carried.clear();
        }
        return problems;
    }

    /** Leaves {@code target} enabled and primary for the next check, when this check made it so; true if it did. */
    private boolean carryOn(Addressing target) {
        Optional<ReplicationSource> fixture = target.fixture();
        if (fixture.isEmpty()
                || !sources.madePrimary(target)
                || !sources.onlyEnabled(target)
                || !lease.holds(fixture.get())) {
            return false;
        }
        session.carry(fixture.get(), check.id());
        sources.forget(target);
        return true;
    }

    /** Takes {@code target} as the check before left it (enabled, primary) if it was carried to this check. */
    private boolean takeCarried(Addressing target) {
        Optional<ReplicationSource> fixture = target.fixture();
        synchronized (carried) {
            if (fixture.isEmpty() || carried.remove(fixture.get()) == null) {
                return false;
            }
            sources.carriedIn(fixture.get());
            return true;
        }
    }

    /**
     * Disables every fixture carried to this check that it has not taken as it is, before the call that needs them as
     * every check begins: replication disabled. A disable that fails is the failure of the check that carried it.
     */
    void disableCarried() {
        synchronized (carried) {
            if (carried.isEmpty()) {
                return;
            }
            List<Map.Entry<ReplicationSource, String>> carriedIn = List.copyOf(carried.entrySet());
            carried.clear();
            // Every one is disabled before any failure is told: a fixture left out here would stay enabled.
            List<String> carriers = new ArrayList<>();
            List<String> problems = new ArrayList<>();
            for (Map.Entry<ReplicationSource, String> c : carriedIn) {
                Outcome disable = call(
                        channel,
                        Rpc.DISABLE_VOLUME_REPLICATION,
                        Addressing.of(c.getKey()),
                        config.secrets().asMap(),
                        config.enableParameters(),
                        false,
                        false,
                        false);
                if (!disable.ok()) {
                    session.poisoned(c.getKey(), c.getValue());
                    carriers.add(c.getValue());
                    problems.add("could not disable " + Addressing.of(c.getKey()) + ", which check " + c.getValue()
                            + " left enabled and primary for the next check: DisableVolumeReplication -> "
                            + disable.describe());
                }
            }
            if (!problems.isEmpty()) {
                failBecause(carriers, String.join("; ", problems));
            }
        }
    }

    /**
     * The walk checks of the mutating calls this check made on {@code target}, the latest first: the exploration judges
     * each of those calls in its state, so a state this check finds wrong is the failure of the first that failed.
     */
    List<String> calls(Addressing target) {
        return sources.calls(target);
    }

    /** Where this check believes {@code target} of site A is, from its OK answers (replication disabled at first). */
    LifecycleModel.State believed(Addressing target) {
        return sources.believed(target);
    }

    /** The sources this check enabled and has not disabled since, in {@code replication_source} form. */
    List<Addressing> enabledSources() {
        return sources.enabled();
    }

    /** Forgets that this check enabled {@code target} (it restored it itself). */
    void forget(Addressing target) {
        sources.forget(target);
    }

    /** The run's isolation engine (shared by the isolation checks). */
    Bystanders bystanders() {
        return session.bystanders();
    }

    /** True when the run judges replication.Controller ({@link ReplicationScope}). */
    boolean replicationInScope() {
        return session.scope().replication();
    }

    /** Every answer of the run, watched for the secrets of its request. */
    EchoWatch echoes() {
        return session.echoes();
    }

    /** The checks that left a fixture this context holds broken before it started: the causes of its failures. */
    List<String> inherited() {
        return inherited;
    }

    /** Notes that {@code culprit} left {@code target} broken: later checks on it fail as its consequences. */
    void poisoned(Addressing target, String culprit) {
        target.fixture().ifPresent(f -> session.poisoned(f, culprit));
    }

    /** The id of the check this context runs; empty for the exploration's walks. */
    Optional<String> checkId() {
        return Optional.ofNullable(check).map(Check::id);
    }

    /** The run's lifecycle exploration (shared by every check of the run). */
    Exploration exploration() {
        return session.exploration();
    }

    /** The fixtures this check holds. */
    CheckScheduler.Lease lease() {
        return lease;
    }

    Duration resyncTimeout() {
        return config.resyncTimeout();
    }
}
