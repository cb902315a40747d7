package io.volrep.testkit;

import com.google.protobuf.Message;
import io.grpc.Channel;
import io.grpc.stub.ClientCalls;
import io.volrep.api.ErrorScheme;
import io.volrep.api.Rpc;
import io.volrep.api.internal.SafeText;
import io.volrep.api.Secrets;
import io.volrep.api.SpecDialect;
import io.volrep.proto.healer.HealerNodeGrpc;
import io.volrep.proto.healer.NodeHealerRequest;
import io.volrep.api.StatusCode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import io.grpc.StatusRuntimeException;
import io.grpc.Status;
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
    /** Prefix of the abort message of a warning ({@link #warn}); reports key on it. */
    public static final String WARNING_PREFIX = "WARNING: ";

    private static final Logger LOG = LoggerFactory.getLogger(ConformanceContext.class);
    private static final int ABORTED_RETRIES = 4;
    private static final long ABORTED_FIRST_BACKOFF_MILLIS = 10;
    /** Retries of a listed 14 UNAVAILABLE, doubling from the first back-off: about 3 s in all. */
    private static final int UNAVAILABLE_RETRIES = 6;
    private static final long UNAVAILABLE_FIRST_BACKOFF_MILLIS = 50;
    /** Marks an outcome that stayed 14 UNAVAILABLE through every retry (appended to the plugin's message). */
    private static final String STILL_UNAVAILABLE = " [still 14 UNAVAILABLE after " + UNAVAILABLE_RETRIES
            + " retries with back-off over about 3 s]";

    private final Channel channel;
    private final Channel healerChannel;
    private final ConformanceConfig config;
    private final SpecDialect dialect;
    private final ErrorScheme scheme;
    /** Sources this check enabled, keyed by kind and id, in replication_source form. */
    private final Map<String, Addressing> enabled = new LinkedHashMap<>();
    /** Sources this check may have left demoted. */
    private final Set<String> demoted = new LinkedHashSet<>();
    /** What to undo once the sources are restored, last registered first: e.g. delete a group the check created. */
    private final java.util.Deque<Runnable> atEnd = new java.util.ArrayDeque<>();
    /** Every call this run sent, for the statement's walk size. */
    private final java.util.concurrent.atomic.LongAdder calls;
    /** False inside checks that judge ABORTED themselves (a call after the previous one was answered). */
    private volatile boolean retryAborted = true;

    ConformanceContext(Channel channel, Channel healerChannel, ConformanceConfig config) {
        this(channel, healerChannel, config, new java.util.concurrent.atomic.LongAdder());
    }

    ConformanceContext(Channel channel, Channel healerChannel, ConformanceConfig config,
                       java.util.concurrent.atomic.LongAdder calls) {
        this.calls = calls;
        this.channel = channel;
        this.healerChannel = healerChannel;
        this.config = config;
        this.dialect = config.dialect();
        this.scheme = ErrorScheme.forDialect(dialect);
    }

    /** The run's configuration. */
    public ConformanceConfig config() {
        return config;
    }

    /** The channel to the plugin under test (replication.Controller). */
    public Channel channel() {
        return channel;
    }

    /** The channel to the node plugin's {@code healer.HealerNode} (the target itself unless configured apart). */
    public Channel healerChannel() {
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

    /** The main fixture volume, in {@code replication_source} form. */
    public Addressing volume() {
        return Addressing.volume(config.volumes().get(0));
    }

    /** The first fixture volume group; skips the check when none is configured. */
    public Addressing volumeGroup() {
        if (!dialect.supports(io.volrep.api.ReplicationSource.Kind.VOLUME_GROUP)) {
            skip("spec " + dialect + " has no volume groups");
        }
        if (config.volumeGroups().isEmpty()) {
            skip("no volume groups configured (--volume-group)");
        }
        return Addressing.volumeGroup(config.volumeGroups().get(0));
    }

    /** The first fixture of {@code kind}: {@link #volume()} or {@link #volumeGroup()} (which may skip). */
    public Addressing source(io.volrep.api.ReplicationSource.Kind kind) {
        return kind == io.volrep.api.ReplicationSource.Kind.VOLUME ? volume() : volumeGroup();
    }

    /**
     * From now on this check's calls are not retried on 10 ABORTED: the suite sends one call at a time, so a call
     * made after the previous one was answered has nothing pending and must never draw ABORTED.
     */
    public ConformanceContext sequential() {
        retryAborted = false;
        return this;
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
        return call(rpc, target, secrets, parameters, false, false);
    }

    private Outcome call(Rpc rpc, Addressing target, Map<String, String> secrets, boolean force) {
        return call(rpc, target, secrets, force, false);
    }

    private Outcome call(Rpc rpc, Addressing target, Map<String, String> secrets, boolean force, boolean exact) {
        return call(rpc, target, secrets, config.enableParameters(), force, exact);
    }

    private Outcome call(Rpc rpc, Addressing target, Map<String, String> secrets, Map<String, String> parameters,
                         boolean force, boolean exact) {
        if (!dialect.supports(rpc)) {
            skip("spec " + dialect + " has no " + rpc.methodName());
        }
        Message request = Wire.request(dialect, rpc, Wire.inDialect(dialect, target, exact), secrets,
                parameters, force);
        Outcome outcome = Wire.invoke(channel, dialect, rpc, request, config.callTimeout());
        calls.increment();
        // ABORTED means "another call is pending" (perhaps the plugin's own background work): back off.
        if (retryAborted) {
            outcome = retryWhile(StatusCode.ABORTED, ABORTED_RETRIES, ABORTED_FIRST_BACKOFF_MILLIS, outcome, request);
        }
        // 14 UNAVAILABLE where the table lists it ("not known yet") is transient: retried with back-off, and a plugin
        // that never gets past it is judged on its last answer (note() says why that is a failure).
        if (outcome.code() == StatusCode.UNAVAILABLE && scheme.lists(rpc, StatusCode.UNAVAILABLE)) {
            outcome = retryWhile(StatusCode.UNAVAILABLE, UNAVAILABLE_RETRIES, UNAVAILABLE_FIRST_BACKOFF_MILLIS,
                    outcome, request);
            if (outcome.code() == StatusCode.UNAVAILABLE) {
                outcome = new Outcome(rpc, outcome.code(), outcome.message() + STILL_UNAVAILABLE, null);
            }
        }
        track(target, outcome);
        LOG.debug("{} {} -> {}", rpc, target, outcome.code());
        return outcome;
    }

    /** Sends {@code request} again while it answers {@code code}, at most {@code retries} times, doubling the pause. */
    private Outcome retryWhile(StatusCode code, int retries, long firstBackoffMillis, Outcome first, Message request) {
        Outcome outcome = first;
        long backoffMillis = firstBackoffMillis;
        for (int retry = 0; retry < retries && outcome.code() == code; retry++) {
            sleep(backoffMillis);
            backoffMillis *= 2;
            outcome = Wire.invoke(channel, dialect, outcome.rpc(), request, config.callTimeout());
            calls.increment();
        }
        return outcome;
    }

    /**
     * Sends {@code count} identical calls at once (without ABORTED retries) and returns every answer:
     * for the "simultaneous calls on one source" checks.
     */
    public List<Outcome> callSimultaneously(Rpc rpc, Addressing target, int count) {
        Message request = Wire.request(dialect, rpc, Wire.inDialect(dialect, target, false),
                config.secrets().asMap(), config.enableParameters(), false);
        List<Future<Message>> futures = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            futures.add(ClientCalls.futureUnaryCall(channel.newCall(Wire.method(dialect, rpc),
                    Wire.options(config.callTimeout())), request));
            calls.increment();
        }
        List<Outcome> outcomes = new ArrayList<>();
        for (Future<Message> f : futures) {
            Outcome o;
            try {
                o = new Outcome(rpc, StatusCode.OK, "", f.get(config.callTimeout().toMillis() + 1000,
                        TimeUnit.MILLISECONDS));
            } catch (ExecutionException e) {
                o = Wire.outcome(rpc, e.getCause() instanceof StatusRuntimeException s ? s.getStatus()
                        : Status.fromThrowable(e.getCause()));
            } catch (TimeoutException e) {
                o = new Outcome(rpc, StatusCode.DEADLINE_EXCEEDED, "no answer", null);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            track(target, o);
            outcomes.add(o);
        }
        return outcomes;
    }

    private synchronized void track(Addressing target, Outcome outcome) {
        String key = key(target);
        if (key == null || !outcome.ok()) {
            return;
        }
        switch (outcome.rpc()) {
            case ENABLE_VOLUME_REPLICATION -> enabled.put(key, normalized(target));
            case DEMOTE_VOLUME, RESYNC_VOLUME -> demoted.add(key);
            case PROMOTE_VOLUME -> demoted.remove(key);
            case DISABLE_VOLUME_REPLICATION -> {
                enabled.remove(key);
                demoted.remove(key);
            }
            default -> { }
        }
    }

    private static String key(Addressing target) {
        if (target.source() != null && target.source().hasVolume()
                && !target.source().getVolume().getVolumeId().isEmpty()) {
            return "volume/" + target.source().getVolume().getVolumeId();
        }
        if (target.source() != null && target.source().hasVolumegroup()
                && !target.source().getVolumegroup().getVolumeGroupId().isEmpty()) {
            return "group/" + target.source().getVolumegroup().getVolumeGroupId();
        }
        if (target.source() == null && !target.volumeId().isEmpty()) {
            return "volume/" + target.volumeId();
        }
        return null;
    }

    private static Addressing normalized(Addressing target) {
        return target.source() == null ? Addressing.volume(target.volumeId()) : target;
    }

    /**
     * A step that must succeed for the check to go on: returns the OK outcome; reports "not implemented"
     * when the spec allows 12 UNIMPLEMENTED for {@code rpc}; fails otherwise.
     */
    public Outcome step(Rpc rpc, Addressing target) {
        Outcome outcome = call(rpc, target);
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
        fail(what + ": expected " + expected.display() + ", got " + outcome.describe() + note(outcome));
    }

    /** Why an unexpected code is wrong beyond "not the expected one": outside the table, or ABORTED with nothing pending. */
    String note(Outcome outcome) {
        if (outcome.code() == StatusCode.UNIMPLEMENTED && !scheme.lists(outcome.rpc(), StatusCode.UNIMPLEMENTED)) {
            return " (the spec does not allow " + outcome.rpc().methodName() + " to be unimplemented)";
        }
        if (outcome.code() != StatusCode.OK && !scheme.lists(outcome.rpc(), outcome.code())
                && !ErrorScheme.TRANSPORT_BACKOFF_CODES.contains(outcome.code())) {
            return " (" + outcome.code().display() + " is not a row of " + outcome.rpc().methodName() + "'s table)";
        }
        if (outcome.code() == StatusCode.UNAVAILABLE && scheme.lists(outcome.rpc(), StatusCode.UNAVAILABLE)) {
            return " (14 UNAVAILABLE says the answer is not known yet, which is transient: the plugin must answer once"
                    + " it knows, and it kept answering 14 to every retry)";
        }
        if (outcome.code() == StatusCode.ABORTED && !retryAborted) {
            return " (10 ABORTED means an operation is pending, but the previous call on it had been answered:"
                    + " nothing was pending)";
        }
        return "";
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
    @io.volrep.api.WireLevel
    public Outcome send(Rpc rpc, Message request) {
        io.grpc.MethodDescriptor<Message, Message> method = Wire.method(dialect, rpc);
        Outcome outcome;
        try {
            Message response = ClientCalls.blockingUnaryCall(channel, method, Wire.options(config.callTimeout()), request);
            outcome = new Outcome(rpc, StatusCode.OK, "", response);
        } catch (StatusRuntimeException e) {
            outcome = Wire.outcome(rpc, e.getStatus());
        }
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
        atEnd.push(java.util.Objects.requireNonNull(undo, "undo"));
    }

    /**
     * Sends a NodeHealer request to {@link #healerChannel()} (no ABORTED retries: the suite sends one call at a time)
     * and returns the answer.
     */
    @io.volrep.api.WireLevel
    public Outcome heal(NodeHealerRequest request) {
        try {
            Message response = ClientCalls.blockingUnaryCall(healerChannel, HealerNodeGrpc.getNodeHealerMethod(),
                    Wire.options(config.callTimeout()), request);
            return new Outcome(Rpc.NODE_HEALER, StatusCode.OK, "", response);
        } catch (StatusRuntimeException e) {
            return Wire.outcome(Rpc.NODE_HEALER, e.getStatus());
        }
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
     * Returns every source this check enabled to "replication disabled, primary": promote (force) what may
     * be demoted, then disable. Returns the problems, empty when all is restored.
     */
    List<String> restore() {
        retryAborted = true;
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, Addressing> e : new ArrayList<>(enabled.entrySet())) {
            Addressing target = e.getValue();
            if (demoted.contains(e.getKey())) {
                // Leave the source primary, as it was before replication was enabled.
                Outcome promote = callForce(Rpc.PROMOTE_VOLUME, target);
                if (!promote.ok() && promote.code() != StatusCode.UNIMPLEMENTED) {
                    LOG.warn("restoring {}: PromoteVolume(force) -> {}", target,
                            SafeText.escape(config.secrets().scrub(promote.describe())));
                }
            }
            Outcome disable = call(Rpc.DISABLE_VOLUME_REPLICATION, target);
            if (!disable.ok()) {
                problems.add("could not restore " + target + " (replication may stay enabled): DisableVolumeReplication -> "
                        + disable.describe());
            }
        }
        while (!atEnd.isEmpty()) {
            try {
                atEnd.pop().run();
            } catch (RuntimeException | AssertionError e) {
                problems.add(String.valueOf(e.getMessage()));
            }
        }
        return problems;
    }

    Duration resyncTimeout() {
        return config.resyncTimeout();
    }
}
