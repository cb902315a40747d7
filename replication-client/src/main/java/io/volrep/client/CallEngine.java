package io.volrep.client;

import com.google.protobuf.Message;
import io.grpc.ManagedChannel;
import io.volrep.api.ReplicationException;
import io.volrep.api.ReplicationSource;
import io.volrep.api.StatusCode;
import io.volrep.api.VolumeGroupCapability;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * Where every typed call enters: validated before anything is sent, offered only when the plugin advertises the
 * capability it needs ({@link CapabilityGate}), observed from acceptance to its final outcome, then dispatched
 * single-flight per source (a call without a source, such as an Identity call, starts at
 * once) to its {@link RetryLoop}. The layers below: the loop decides with {@link RetryDecisions} after each attempt,
 * the {@link AttemptRunner} makes each attempt on the channel and reports it as facts, {@link CallFailures} words
 * a failure, and the {@link ConnectionWatch} keeps a connection coming while calls wait for one. Unless the policy
 * fails fast, attempts wait for a plugin that is down (wait-for-ready) and such waits do not spend the attempt
 * budget.
 */
final class CallEngine {
    private final CallSettings settings;
    private final SingleFlight singleFlight;
    private final RetryLoop loop;
    private final CapabilityGate capabilities;
    /** Calls without a single-flight slot (no source) that are in flight: the {@link ConnectionWatch} counts them. */
    private final AtomicInteger callsWithoutSlot = new AtomicInteger();

    CallEngine(ManagedChannel channel, CallSettings settings) {
        this.settings = settings;
        this.singleFlight = new SingleFlight(settings.maxQueuedPerSource(), settings.executor());
        ConnectionWatch connections = new ConnectionWatch(channel, settings, this::activeCalls);
        this.loop = new RetryLoop(
                settings, new AttemptRunner(channel, settings, connections), connections, channel::isShutdown);
        this.capabilities = new CapabilityGate(this, settings.target());
    }

    /** What the client was built with: the spec revision's codec, the default policy, executor and scheduler. */
    CallSettings settings() {
        return settings;
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
     * every later attempt. With a {@code queue} (a caller that waits), gRPC's callbacks and the scheduled retries
     * run on the thread that drains it ({@link CallingThreadQueue#drainUntil}); without one (null), on the client's
     * executor.
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
        Cancellation.propagate(visible, dispatched::get);
        return visible;
    }

    /** Observes, then runs {@code spec} single-flight per its key: the call's whole life after its checks. */
    private <R> CompletableFuture<R> dispatch(
            CallSpec spec, CallingThreadQueue queue, long accepted, Answer<R> answer) {
        // The retry loop hooks its cancellation to it (Cancellation.onCancel).
        CompletableFuture<Response> result = new Cancellation.Hooked<>();
        CallObservation observation = settings.observer().onCall(spec.rpc(), spec.concerns());
        // The caller's future completes only after the single-flight slot is free, so a caller that saw its call
        // finish never finds the source still active (and a next call never queues behind a finished one).
        CompletableFuture<R> visible = new Cancellation.Hooked<>();
        Cancellation.propagate(visible, result);
        Supplier<CompletableFuture<?>> start = () -> {
            observation.onStarted(Duration.ofNanos(System.nanoTime() - accepted));
            return loop.run(spec, queue, result, observation);
        };
        BiConsumer<Response, Throwable> report = (v, t) -> {
            if (t == null) {
                observation.onFinished(StatusCode.OK, v.attempts());
                R answered;
                try {
                    answered = answer.of(v.message(), v.attempts());
                } catch (Throwable mapping) {
                    visible.completeExceptionally(new CompletionException(mapping));
                    return;
                }
                visible.complete(answered);
            } else {
                Throwable failure = unwrap(t);
                finished(observation, failure);
                visible.completeExceptionally(new CompletionException(failure));
            }
        };
        Optional<Object> flightKey = spec.flightKey();
        if (flightKey.isPresent()) {
            // Keyed calls concern a source: it names the source in a CallQueueFullException. The slot is released
            // only once the call's future is done, so the report needs no stage of its own.
            singleFlight.submit(
                    flightKey.get(),
                    spec.concerns().orElseThrow(),
                    spec.rpc(),
                    result,
                    start,
                    () -> reportDone(result, report));
        } else {
            // No source, no slot to wait for.
            callsWithoutSlot.incrementAndGet();
            result.whenComplete((v, t) -> callsWithoutSlot.decrementAndGet());
            try {
                start.get();
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
            reportDone(result, report);
        }
        return visible;
    }

    /**
     * Hands the outcome of {@code future} to {@code report}: at once when it is done (no stage, as for a keyed call
     * whose slot was released), else when it completes.
     */
    private static <T> void reportDone(CompletableFuture<T> future, BiConsumer<T, Throwable> report) {
        if (!future.isDone()) {
            future.whenComplete(report);
            return;
        }
        T value;
        try {
            value = future.getNow(null);
        } catch (CancellationException | CompletionException failure) {
            report.accept(null, failure);
            return;
        }
        report.accept(value, null);
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

    private static void finished(CallObservation observation, Throwable failure) {
        if (failure instanceof ReplicationException e) {
            observation.onFinished(e.code(), e.attempts());
        } else if (failure instanceof CancellationException) {
            observation.onFinished(StatusCode.CANCELLED, 0);
        } else {
            observation.onFinished(StatusCode.UNKNOWN, 0);
        }
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

    /** A successful call's response and how many attempts it took. */
    record Response(Message message, int attempts) {}

    /** What a typed call makes of a successful call's response and how many attempts it took. */
    @FunctionalInterface
    interface Answer<R> {
        R of(Message response, int attempts);
    }
}
