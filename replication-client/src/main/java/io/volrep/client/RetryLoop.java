package io.volrep.client;

import com.google.protobuf.Message;
import io.github.resilience4j.core.IntervalBiFunction;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import io.grpc.ClientCall;
import io.volrep.api.CsiLimits;
import io.volrep.api.ErrorScheme;
import io.volrep.api.InvalidArgumentException;
import io.volrep.api.Recovery;
import io.volrep.api.ReplicationException;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Secrets;
import io.volrep.api.StatusCode;
import io.volrep.api.internal.SafeText;
import io.volrep.client.AttemptRunner.AttemptOutcome;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The retry sequence of one call: attempts made by the {@link AttemptRunner}, each failed one decided by
 * {@link RetryDecisions} (asking the {@link SourceVerifier} or {@link SecretsProvider} asynchronously where the
 * decision says so), every decision reported to the listener and the call's observation, and the last failure worded
 * by {@link CallFailures}. The first attempt runs directly; once one is to be retried, resilience4j runs the rest of
 * the sequence: it gets an {@link AttemptFailure} that says whether to retry and after how long, and schedules each
 * retry on the {@link ScheduledExecutorService}, so no thread waits during a back-off.
 */
final class RetryLoop {
    /** The documented logger of every attempt ({@code io.volrep.client.CallEngine}, see docs/orchestrator-authors.md). */
    private static final Logger LOG = LoggerFactory.getLogger(CallEngine.class);

    /**
     * Decisions live in {@link RetryDecisions} (carried by {@link AttemptFailure}), the attempt budget included:
     * attempts that never reached the plugin do not count, so resilience4j's own limit must never be what stops.
     */
    private static final Retry RETRY = Retry.of(
            "volrep",
            RetryConfig.<Message>custom()
                    .maxAttempts(Integer.MAX_VALUE)
                    .retryOnException(t -> CallEngine.unwrap(t) instanceof AttemptFailure f && f.retry)
                    .intervalBiFunction((IntervalBiFunction<Message>) (n, either) -> {
                        if (either.isLeft() && CallEngine.unwrap(either.getLeft()) instanceof AttemptFailure f) {
                            return f.delayMillis;
                        }
                        return 0L;
                    })
                    .build());

    private final CallSettings settings;
    private final AttemptRunner runner;
    private final CallFailures failures;
    private final ConnectionWatch connections;
    private final ErrorScheme scheme;
    private final BooleanSupplier closed;

    RetryLoop(CallSettings settings, AttemptRunner runner, ConnectionWatch connections, BooleanSupplier closed) {
        this.settings = settings;
        this.runner = runner;
        this.connections = connections;
        this.closed = closed;
        this.scheme = settings.wire().dialect().errorScheme();
        this.failures = new CallFailures(settings.target(), settings.maxInboundMessageSize(), scheme);
    }

    /** The whole retry sequence of one call; completes {@code result}, and returns it. */
    CompletableFuture<?> run(
            CallSpec spec,
            CallingThreadQueue queue,
            CompletableFuture<CallEngine.Response> result,
            CallObservation observation) {
        RetryPolicy policy = spec.policy() != null ? spec.policy() : settings.defaultPolicy();
        CallState state;
        try {
            Optional<ReplicationSource> source = spec.concerns();
            // A call without a source sends the plugin's secrets (CreateVolumeGroup, ListVolumeGroups) or none
            // (Identity).
            Secrets initial = spec.secretsOverride() != null
                    ? spec.secretsOverride()
                    : source.isPresent()
                            ? settings.secrets().secrets(source.get())
                            : spec.sendsSecrets() ? settings.secrets().pluginSecrets() : Secrets.empty();
            CsiLimits.requireMapWithinLimit("secrets", initial.asMap());
            state = new CallState(spec, policy, initial, policy.clock().instant(), queue, observation);
        } catch (InvalidArgumentException e) {
            result.completeExceptionally(e.withContext(spec.rpc(), 0));
            return result;
        } catch (RuntimeException e) {
            result.completeExceptionally(e);
            return result;
        }
        Cancellation.onCancel(result, state::cancel);
        ScheduledExecutorService retryScheduler =
                queue == null ? settings.scheduler() : queue.scheduling(settings.scheduler());
        // The first attempt runs here, handing its outcome straight on; resilience4j runs the sequence only once
        // one is to be retried. Most calls succeed at once, and a retry sequence per call (its context, its
        // promise, its stages) is a cost the raw gRPC call does not pay (docs/benchmarks.md).
        BiConsumer<Message, Throwable> afterFirst = (message, failure) -> {
            if (result.isDone()) {
                return; // cancelled, or failed by an attempt that could not start: nothing left to decide
            }
            if (failure != null && CallEngine.unwrap(failure) instanceof AttemptFailure f && f.retry) {
                // The first retry after its delay, as resilience4j schedules the later ones.
                Runnable retries = () -> RETRY.executeCompletionStage(retryScheduler, () -> attempt(state))
                        .whenComplete((retried, retryFailure) -> finish(result, state, retried, retryFailure));
                try {
                    retryScheduler.schedule(retries, f.delayMillis, TimeUnit.MILLISECONDS);
                } catch (RuntimeException e) {
                    result.completeExceptionally(e); // a scheduler that refuses: never a call left waiting
                }
            } else {
                finish(result, state, message, failure);
            }
        };
        try {
            attempt(state, afterFirst);
        } catch (RuntimeException e) {
            afterFirst.accept(null, e);
        }
        return result;
    }

    private static void finish(
            CompletableFuture<CallEngine.Response> result, CallState state, Message message, Throwable failure) {
        if (failure == null) {
            result.complete(new CallEngine.Response(message, state.attempts));
        } else {
            result.completeExceptionally(toResult(failure, state));
        }
    }

    /** One attempt as resilience4j runs it: a stage that completes with the attempt's judgement. */
    private CompletionStage<Message> attempt(CallState state) {
        CompletableFuture<Message> judged = new CompletableFuture<>();
        try {
            attempt(state, (message, failure) -> {
                if (failure != null) {
                    judged.completeExceptionally(failure);
                } else {
                    judged.complete(message);
                }
            });
        } catch (RuntimeException e) {
            judged.completeExceptionally(e);
        }
        return judged;
    }

    /**
     * Makes one attempt; {@code judged} gets its response, or an {@link AttemptFailure} saying what happens next,
     * once. Throws only when the attempt could not be started at all (its request could not be written).
     */
    private void attempt(CallState state, BiConsumer<Message, Throwable> judged) {
        if (state.cancelled) {
            judged.accept(null, new CancellationException("call cancelled"));
            return;
        }
        int attempt = CallState.ATTEMPTS.incrementAndGet(state);
        Duration remaining = Duration.between(state.policy.clock().instant(), state.deadline);
        Duration timeout = remaining.compareTo(state.policy.perAttemptTimeout()) < 0
                ? remaining
                : state.policy.perAttemptTimeout();
        if (timeout.isNegative() || timeout.isZero()) {
            timeout = Duration.ofMillis(1);
        }
        CallSpec spec = state.spec;
        ClientCall<Message, Message> call = runner.start(
                new AttemptRunner.Attempt(
                        spec.rpc(),
                        spec.method(settings.wire()),
                        spec.encode(settings.wire(), state.secrets),
                        timeout,
                        !state.policy.failFast(),
                        state.queue,
                        scheme,
                        state.observation),
                outcome -> judge(state, attempt, outcome, judged));
        state.current = call;
        if (state.cancelled) {
            call.cancel("call cancelled by the caller", null);
        }
    }

    /**
     * Hands {@code judged} the response, or an {@link AttemptFailure} saying what happens next. A success is passed
     * on at once, on the thread that delivered it.
     */
    private void judge(CallState state, int attempt, AttemptOutcome outcome, BiConsumer<Message, Throwable> judged) {
        if (outcome instanceof AttemptOutcome.Succeeded succeeded) {
            try {
                if (settings.listener() != null || state.observation != CallObservation.NONE || LOG.isDebugEnabled()) {
                    notify(state, attempt, StatusCode.OK, null, Optional.empty(), "succeeded");
                }
            } catch (RuntimeException e) {
                judged.accept(null, e);
                return;
            }
            judged.accept(succeeded.response(), null);
            return;
        }
        safely(() -> judgeFailure(state, attempt, outcome)).whenComplete(judged);
    }

    /** Fails with an {@link AttemptFailure} saying what happens after a failed attempt (run through safely()). */
    private CompletionStage<Message> judgeFailure(CallState state, int attempt, AttemptOutcome outcome) {
        if (outcome instanceof AttemptOutcome.Violated violated) {
            ReplicationException e = failures.violation(state.spec, violated.what(), attempt);
            notify(state, attempt, e.code(), e.recovery(), Optional.empty(), "not retried: protocol violation");
            return CompletableFuture.failedFuture(AttemptFailure.stop(e));
        }
        // A decision that throws fails the stage: judge runs this through safely().
        return decide(state, attempt, (AttemptOutcome.Failed) outcome);
    }

    /** Asks {@link RetryDecisions} what to do after a failed attempt, asking the verifier or the secrets first. */
    private CompletionStage<Message> decide(CallState state, int attempt, AttemptOutcome.Failed failed) {
        RetryDecisions.Outcome facts = failed.facts();
        if (facts.spendsBudget()) {
            CallState.COUNTED.incrementAndGet(state);
        } else {
            CallState.CONNECTION_WAITS.incrementAndGet(state);
        }
        RetryDecision decision = RetryDecisions.decide(state.policy, facts, progress(state));
        if (decision instanceof RetryDecision.VerifySource verify) {
            // RetryDecisions asks to verify or renew only for a call that concerns a source.
            ReplicationSource source = state.spec.concerns().orElseThrow();
            return safely(() -> settings.verifier().verify(source))
                    .handle((approved, verifyError) -> {
                        if (verifyError != null) {
                            LOG.debug(
                                    "SourceVerifier failed for {}: {}",
                                    SafeText.escape(source.toString()),
                                    SafeText.escape(verifyError.toString()));
                        }
                        return carryOut(
                                state,
                                attempt,
                                failed,
                                RetryDecisions.afterVerification(
                                        state.policy, Boolean.TRUE.equals(approved), verify, facts, progress(state)));
                    })
                    .thenCompose(s -> s);
        }
        if (decision instanceof RetryDecision.RenewSecrets renew) {
            state.renewed = true;
            // RetryDecisions asks to renew only for a call that sends secrets: its source's, or the plugin's.
            Optional<ReplicationSource> source = state.spec.concerns();
            return safely(() -> source.isPresent()
                            ? settings.secrets().renew(source.get())
                            : settings.secrets().renewPluginSecrets())
                    .handle((renewed, renewError) -> {
                        if (renewError != null) {
                            LOG.debug(
                                    "SecretsProvider.renew failed for {}: {}",
                                    SafeText.escape(state.spec.subject()),
                                    renewError.getClass().getName());
                        }
                        return carryOut(
                                state,
                                attempt,
                                failed,
                                RetryDecisions.afterRenewal(
                                        state.policy, renewal(state, renewed), renew, facts, progress(state)));
                    })
                    .thenCompose(s -> s);
        }
        return carryOut(state, attempt, failed, decision);
    }

    /** What {@link SecretsProvider#renew} gave; new secrets within the CSI limit replace the call's. */
    private static RetryDecisions.Renewal renewal(CallState state, Secrets renewed) {
        if (renewed == null || renewed.equals(state.secrets)) {
            return RetryDecisions.Renewal.NOTHING_NEW;
        }
        try {
            CsiLimits.requireMapWithinLimit("secrets", renewed.asMap());
        } catch (InvalidArgumentException e) {
            return RetryDecisions.Renewal.TOO_LARGE;
        }
        state.secrets = renewed;
        return RetryDecisions.Renewal.NEW;
    }

    private RetryDecisions.Progress progress(CallState state) {
        return new RetryDecisions.Progress(
                state.spec.concerns().isPresent(),
                state.spec.sendsSecrets(),
                state.counted,
                state.connectionWaits,
                state.renewed,
                state.spec.secretsOverride() != null,
                settings.verifier() != null,
                state.cancelled || closed.getAsBoolean(),
                Duration.between(state.policy.clock().instant(), state.deadline));
    }

    /** Reports a final decision and hands it to resilience4j; a stop carries the call's exception. */
    private CompletionStage<Message> carryOut(
            CallState state, int attempt, AttemptOutcome.Failed failed, RetryDecision decision) {
        RetryDecisions.Outcome facts = failed.facts();
        if (decision instanceof RetryDecision.Retry retry) {
            notify(state, attempt, facts.code(), facts.recovery(), Optional.of(retry.delay()), retry.reason());
            return CompletableFuture.failedFuture(AttemptFailure.retry(retry.delay()));
        }
        String reason = decision instanceof RetryDecision.Stop stop ? stop.reason() : decision.toString();
        notify(state, attempt, facts.code(), facts.recovery(), Optional.empty(), reason);
        // Looking at the target is for a call that never reached its plugin, and only once, for its last words.
        Optional<String> unreachable = facts.connectionFailure() ? connections.whyUnreachable() : Optional.empty();
        return CompletableFuture.failedFuture(AttemptFailure.stop(
                failures.failed(state.spec, facts, failed.status(), attempt, state.secrets, unreachable)));
    }

    private static <T> CompletionStage<T> safely(Supplier<CompletionStage<T>> stage) {
        try {
            CompletionStage<T> s = stage.get();
            return s == null ? CompletableFuture.failedFuture(new NullPointerException("null stage")) : s;
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private void notify(
            CallState state,
            int attempt,
            StatusCode code,
            Recovery recovery,
            Optional<Duration> retryDelay,
            String decision) {
        AttemptEvent event = new AttemptEvent(
                state.spec.rpc(),
                state.spec.concerns(),
                attempt,
                code,
                Optional.ofNullable(recovery),
                retryDelay,
                decision);
        if (LOG.isDebugEnabled()) {
            LOG.debug("{}", SafeText.escape(event.describe()));
        }
        state.observation.onAttempt(event);
        AttemptListener listener = settings.listener();
        if (listener != null) {
            try {
                listener.onAttempt(event);
            } catch (RuntimeException e) {
                LOG.warn("AttemptListener threw {}; ignored", SafeText.escape(e.toString()));
            }
        }
    }

    private static Throwable toResult(Throwable failure, CallState state) {
        Throwable t = CallEngine.unwrap(failure);
        if (t instanceof AttemptFailure f && f.exception != null) {
            ReplicationException e = f.exception;
            return e.attempts() == state.attempts ? e : e.withContext(state.spec.rpc(), state.attempts);
        }
        return t;
    }

    /** The per-call state of one retry sequence. */
    private static final class CallState {
        final CallSpec spec;
        final RetryPolicy policy;
        final Instant deadline;
        // Counters through field updaters rather than three AtomicInteger objects per call.
        static final AtomicIntegerFieldUpdater<CallState> ATTEMPTS =
                AtomicIntegerFieldUpdater.newUpdater(CallState.class, "attempts");
        static final AtomicIntegerFieldUpdater<CallState> COUNTED =
                AtomicIntegerFieldUpdater.newUpdater(CallState.class, "counted");
        static final AtomicIntegerFieldUpdater<CallState> CONNECTION_WAITS =
                AtomicIntegerFieldUpdater.newUpdater(CallState.class, "connectionWaits");
        /** Every request sent; what {@link ReplicationException#attempts()} reports. */
        volatile int attempts;
        /** Attempts that spent the budget ({@link RetryPolicy#maxAttempts()}). */
        volatile int counted;
        /** Attempts that waited for a connection and never reached the plugin. */
        volatile int connectionWaits;

        volatile Secrets secrets;
        volatile boolean renewed;
        volatile boolean cancelled;
        volatile ClientCall<?, ?> current;
        /** The waiting caller's queue for a blocking call, else null (callbacks on the client's executor). */
        final CallingThreadQueue queue;

        final CallObservation observation;

        CallState(
                CallSpec spec,
                RetryPolicy policy,
                Secrets secrets,
                Instant start,
                CallingThreadQueue queue,
                CallObservation observation) {
            this.spec = spec;
            this.observation = observation;
            this.queue = queue;
            this.policy = policy;
            this.secrets = secrets;
            this.deadline = start.plus(policy.totalTimeout());
        }

        void cancel() {
            cancelled = true;
            ClientCall<?, ?> call = current;
            if (call != null) {
                call.cancel("call cancelled by the caller", null);
            }
        }
    }

    /** The outcome of one failed attempt, for resilience4j: retry after a delay, or stop with the call's exception. */
    static final class AttemptFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final transient ReplicationException exception;
        final boolean retry;
        final long delayMillis;

        private AttemptFailure(ReplicationException exception, boolean retry, long delayMillis) {
            super(retry ? "retry" : exception.getMessage(), null, false, false);
            this.exception = exception;
            this.retry = retry;
            this.delayMillis = delayMillis;
        }

        static AttemptFailure retry(Duration delay) {
            return new AttemptFailure(null, true, delay.toMillis());
        }

        static AttemptFailure stop(ReplicationException exception) {
            return new AttemptFailure(exception, false, 0);
        }
    }
}
