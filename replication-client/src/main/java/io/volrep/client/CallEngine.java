package io.volrep.client;

import com.google.protobuf.Message;
import io.grpc.ManagedChannel;
import io.volrep.api.ReplicationException;
import io.volrep.api.ReplicationSource;
import io.volrep.api.VolumeGroupCapability;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Where every typed call enters: validated before anything is sent, offered only when the plugin advertises the
 * capability it needs ({@link CapabilityGate}), then run single-flight per source (a call without a source, such as
 * an Identity call, starts at once) as a {@link RetryLoop}, which makes the attempts ({@link AttemptRunner}),
 * decides after each ({@link RetryDecisions}), words a failure ({@link CallFailures}) and reports the call. The
 * {@link ConnectionWatch} keeps a connection coming while calls wait for one. Unless the policy fails fast, attempts
 * wait for a plugin that is down (wait-for-ready) and such waits do not spend the attempt budget. See
 * docs/call-path.md.
 */
final class CallEngine {
    private final CallSettings settings;
    private final ManagedChannel channel;
    private final SingleFlight singleFlight;
    private final ConnectionWatch connections;
    private final AttemptRunner runner;
    private final CallFailures failures;
    private final CapabilityGate capabilities;
    /** Calls without a single-flight slot (no source) that are in flight: the {@link ConnectionWatch} counts them. */
    private final AtomicInteger callsWithoutSlot = new AtomicInteger();

    CallEngine(ManagedChannel channel, CallSettings settings) {
        this.settings = settings;
        this.channel = channel;
        this.singleFlight = new SingleFlight(settings.maxQueuedPerSource());
        this.connections = new ConnectionWatch(channel, settings, this::activeCalls);
        this.runner = new AttemptRunner(channel, settings, connections);
        this.failures = new CallFailures(
                settings.target(),
                settings.maxInboundMessageSize(),
                settings.wire().dialect().errorScheme());
        this.capabilities = new CapabilityGate(this, settings.target());
    }

    /** What the client was built with: the spec revision's codec, the default policy, executor and scheduler. */
    CallSettings settings() {
        return settings;
    }

    AttemptRunner runner() {
        return runner;
    }

    CallFailures failures() {
        return failures;
    }

    ConnectionWatch connections() {
        return connections;
    }

    /** The client was closed: nothing more is retried. */
    boolean closed() {
        return channel.isShutdown();
    }

    int activeSources() {
        return singleFlight.activeSources();
    }

    /** Calls running or waiting: those of every active source and those without a source. */
    private int activeCalls() {
        return singleFlight.activeSources() + callsWithoutSlot.get();
    }

    /**
     * Sends {@code spec} with retries; the future completes with what {@code answer} makes of the response, or
     * fails with a {@link CompletionException} around a {@link ReplicationException} (as {@code thenApply} would
     * give: the caller's future is this one, not a stage after it). Cancelling it cancels the RPC in flight and
     * every later attempt. With a {@code queue} (a caller that waits), gRPC's callbacks and the retries run on the
     * thread that drains it ({@link CallingThreadQueue#drainUntil}); without one (null), on the client's executor.
     */
    <R> CompletableFuture<R> execute(CallSpec spec, CallingThreadQueue queue, Answer<R> answer) {
        long accepted = System.nanoTime();
        try {
            spec.validate(settings.wire());
        } catch (ReplicationException e) {
            // InvalidArgumentException or UnsupportedByDialectException: nothing was sent.
            observeRefusal(spec, e);
            return CompletableFuture.failedFuture(new CompletionException(e));
        }
        Optional<VolumeGroupCapability> needed = spec.requiredCapability();
        if (needed.isEmpty()) {
            return dispatch(spec, queue, accepted, answer);
        }
        // Offered only when advertised: asked once per client, before anything of this call is sent.
        CompletableFuture<R> visible = new CompletableFuture<>();
        AtomicReference<CompletableFuture<R>> dispatched = new AtomicReference<>();
        capabilities.require(spec.rpc(), needed.get()).whenComplete((offered, refused) -> {
            if (refused != null) {
                Throwable cause = unwrap(refused);
                if (cause instanceof ReplicationException e) {
                    observeRefusal(spec, e);
                }
                visible.completeExceptionally(new CompletionException(cause));
                return;
            }
            if (visible.isDone()) {
                return; // cancelled while the capabilities were asked
            }
            CompletableFuture<R> call = dispatch(spec, queue, accepted, answer);
            dispatched.set(call);
            call.whenComplete((r, t) -> {
                if (t == null) {
                    visible.complete(r);
                } else {
                    visible.completeExceptionally(t instanceof CompletionException ? t : new CompletionException(t));
                }
            });
            if (visible.isCancelled()) {
                call.cancel(true);
            }
        });
        onCancel(visible, () -> {
            CompletableFuture<R> call = dispatched.get();
            if (call != null) {
                call.cancel(true);
            }
        });
        return visible;
    }

    /** Runs {@code spec} as a {@link RetryLoop}, once its source's single-flight slot is free. */
    private <R> CompletableFuture<R> dispatch(
            CallSpec spec, CallingThreadQueue queue, long accepted, Answer<R> answer) {
        RetryLoop<R> call = new RetryLoop<>(this, spec, queue, answer, accepted);
        Optional<Object> key = spec.flightKey();
        if (key.isEmpty()) {
            callsWithoutSlot.incrementAndGet();
            call.start();
        } else if (!singleFlight.acquire(key.get(), call::start)) {
            // Keyed calls concern a source: it names the source in the exception.
            call.refuse(new CallQueueFullException(
                    spec.rpc(), spec.concerns().orElseThrow(), settings.maxQueuedPerSource()));
        }
        return call.future();
    }

    /**
     * Frees the single-flight slot a finished call held under {@code key} (none: a call without a source); returns
     * the start of the call it was handed to, for the finished call to run once it is reported, or null.
     */
    Runnable release(Optional<Object> key) {
        if (key.isEmpty()) {
            callsWithoutSlot.decrementAndGet();
            return null;
        }
        return singleFlight.release(key.get());
    }

    /** A call refused before sending is observed too, when its source can be named at all. */
    private void observeRefusal(CallSpec spec, ReplicationException e) {
        if (settings.observer() == CallObservers.NONE) {
            return;
        }
        Optional<ReplicationSource> source;
        try {
            source = spec.concerns();
        } catch (RuntimeException invalidSource) {
            return;
        }
        settings.observer().onCall(spec.rpc(), source).onFinished(e.code(), 0);
    }

    /** Runs {@code action} once {@code future} is cancelled: how a caller's cancel travels down a layer. */
    static void onCancel(CompletableFuture<?> future, Runnable action) {
        future.whenComplete((v, t) -> {
            if (future.isCancelled()) {
                action.run();
            }
        });
    }

    /** Runs {@code task} on {@code executor}; inline when it no longer takes work (the client is closing). */
    static void executeOrRun(Executor executor, Runnable task) {
        try {
            executor.execute(task);
        } catch (RejectedExecutionException closing) {
            task.run();
        }
    }

    static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /**
     * What a typed call makes of a successful attempt's response ({@code attempts} so far, for its exception): the
     * answer rules are applied here, so a response that breaks them throws (a
     * {@link io.volrep.api.ProtocolViolationException} naming the field) and the attempt counts as a violation.
     */
    @FunctionalInterface
    interface Answer<R> {
        R of(Message response, int attempts);
    }
}
