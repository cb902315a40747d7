package io.volrep.client;

import io.grpc.ClientCall;
import io.volrep.api.CsiLimits;
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
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One call's life once its request was checked, read top to bottom: {@link #start} (its single-flight slot is held),
 * {@link #attempt}, {@link #onOutcome} (the answer judged by the spec's rules before anything is reported),
 * {@link #decide} ({@link RetryDecisions}, asking the {@link SourceVerifier} or {@link SecretsProvider} where it
 * says so), {@link #carryOut} (the next attempt scheduled on the client's {@link java.util.concurrent.ScheduledExecutorService},
 * or a stop), and {@link #finish}: the slot freed, the {@link CallObservation} told, the caller's future completed,
 * in that order. The listener, the observation, the metrics built on it and the caller all see one verdict per
 * attempt: a response that breaks the answer rules is a protocol violation everywhere, never an OK.
 *
 * <p>Its state is touched by one thread at a time (gRPC's callbacks, the scheduler, the verifier's continuation hand
 * it on); only {@link #cancel} comes from elsewhere, and reads no more than the volatile fields. Nothing sleeps: a
 * back-off is a scheduled task. With a blocking caller's {@link CallingThreadQueue}, callbacks and next attempts run
 * on the caller's thread.
 *
 * @param <R> the typed answer
 */
final class RetryLoop<R> {
    /** The documented logger of every attempt ({@code io.volrep.client.CallEngine}, see docs/orchestrator-authors.md). */
    private static final Logger LOG = LoggerFactory.getLogger(CallEngine.class);

    private static final int WAITING = 0;
    private static final int RUNNING = 1;
    private static final int DONE = 2;

    // What the call is.
    private final CallEngine engine;
    private final CallSettings settings;
    private final CallSpec spec;
    private final RetryPolicy policy;
    private final Optional<Object> flightKey;
    /** The blocking caller's queue, else null (callbacks on the channel's executor or the transport thread). */
    private final Executor callbacks;
    /** A direct client's asynchronous call: its callbacks run on gRPC's transport thread. */
    private final boolean onTransportThread;

    private final CallEngine.Answer<R> answer;
    private final CallObservation observation;
    private final long acceptedNanos;
    /** The caller's future: completed by {@link #finish}, or cancelled by the caller. */
    private final CompletableFuture<R> result = new CompletableFuture<>();
    /** {@link #WAITING} for the slot, {@link #RUNNING}, or {@link #DONE}: decides who frees the slot. */
    private final AtomicInteger state = new AtomicInteger(WAITING);

    // Where it stands: one thread at a time.
    private Instant deadline;
    private Secrets secrets;
    /** Every request sent; what {@link ReplicationException#attempts()} reports. */
    private int attempts;
    /** Attempts that spent the budget ({@link RetryPolicy#maxAttempts()}). */
    private int counted;
    /** Attempts that waited for a connection and never reached the plugin. */
    private int connectionWaits;

    private boolean renewed;
    // What cancel() reads and writes.
    private volatile boolean cancelled;
    private volatile ClientCall<?, ?> inFlight;
    private volatile Future<?> nextAttempt;

    RetryLoop(CallEngine engine, CallSpec spec, Executor callbacks, CallEngine.Answer<R> answer, long acceptedNanos) {
        this.engine = engine;
        this.settings = engine.settings();
        this.spec = spec;
        this.policy = spec.policy() != null ? spec.policy() : settings.defaultPolicy();
        this.flightKey = spec.flightKey();
        this.callbacks = callbacks;
        this.onTransportThread = callbacks == null && settings.directExecutor();
        this.answer = answer;
        this.acceptedNanos = acceptedNanos;
        this.observation = settings.observer().onCall(spec.rpc(), spec.concerns());
        // A caller's cancel travels down from here: the attempt in flight and the scheduled one are cancelled.
        CallEngine.onCancel(result, this::cancel);
    }

    /** The caller's future. */
    CompletableFuture<R> future() {
        return result;
    }

    /** The call cannot even wait for its slot ({@code failure}: its queue is full): it finishes without running. */
    void refuse(ReplicationException failure) {
        finish(null, failure);
    }

    /** 1. The call holds its slot (or needs none): its secrets, its deadline, its first attempt. */
    void start() {
        if (!state.compareAndSet(WAITING, RUNNING)) {
            // Cancelled while it waited, and reported then: the slot it was handed goes to the next call.
            Runnable next = engine.release(flightKey);
            if (next != null) {
                CallEngine.executeOrRun(settings.executor(), next);
            }
            return;
        }
        observation.onStarted(Duration.ofNanos(System.nanoTime() - acceptedNanos));
        try {
            secrets = initialSecrets();
            CsiLimits.requireMapWithinLimit("secrets", secrets.asMap());
        } catch (InvalidArgumentException e) {
            finish(null, e.withContext(spec.rpc(), 0));
            return;
        } catch (RuntimeException e) {
            finish(null, e);
            return;
        }
        // A call's total timeout starts when it leaves the single-flight queue.
        deadline = policy.clock().instant().plus(policy.totalTimeout());
        guarded(this::attempt);
    }

    /** Its own secrets, else its source's, else the plugin's (CreateVolumeGroup, ListVolumeGroups), else none. */
    private Secrets initialSecrets() {
        if (spec.secretsOverride() != null) {
            return spec.secretsOverride();
        }
        Optional<ReplicationSource> source = spec.concerns();
        if (source.isPresent()) {
            return settings.secrets().secrets(source.get());
        }
        return spec.sendsSecrets() ? settings.secrets().pluginSecrets() : Secrets.empty();
    }

    /** 2. One attempt on the channel, within what is left of the total timeout. */
    private void attempt() {
        if (cancelled) {
            return; // cancel() finished the call
        }
        int attempt = ++attempts;
        Duration remaining = Duration.between(policy.clock().instant(), deadline);
        Duration timeout = remaining.compareTo(policy.perAttemptTimeout()) < 0 ? remaining : policy.perAttemptTimeout();
        if (timeout.isNegative() || timeout.isZero()) {
            timeout = Duration.ofMillis(1);
        }
        ClientCall<?, ?> call = engine.runner()
                .start(
                        new AttemptRunner.Attempt(
                                spec.rpc(),
                                spec.encode(settings.wire(), secrets),
                                timeout,
                                !policy.failFast(),
                                callbacks,
                                observation),
                        outcome -> guarded(() -> onOutcome(attempt, outcome)));
        inFlight = call;
        if (cancelled) {
            call.cancel("call cancelled by the caller", null);
        }
    }

    /**
     * 3. What came of the attempt. A response is judged by the spec's answer rules first: a typed answer finishes
     * the call; a broken one is a protocol violation, reported and stopped like any failure. Failures are decided
     * off gRPC's transport thread: the verifier, the secrets' renewal, the listeners and the caller's continuations of
     * a failure may block.
     */
    private void onOutcome(int attempt, AttemptOutcome outcome) {
        if (outcome instanceof AttemptOutcome.Succeeded succeeded) {
            R typed;
            try {
                typed = answer.of(succeeded.response(), attempt);
            } catch (RuntimeException broken) {
                offTransportThread(() -> stop(attempt, violation(broken, attempt)));
                return;
            }
            if (settings.listener() != null || observation != CallObservation.NONE || LOG.isDebugEnabled()) {
                notify(attempt, StatusCode.OK, null, Optional.empty(), "succeeded");
            }
            finish(typed, null);
        } else if (outcome instanceof AttemptOutcome.Violated violated) {
            offTransportThread(() -> stop(attempt, engine.failures().violation(spec, violated.what(), attempt)));
        } else {
            offTransportThread(() -> decide(attempt, (AttemptOutcome.Failed) outcome));
        }
    }

    /** What a response that breaks the answer rules fails the call with (the rules name the field). */
    private ReplicationException violation(RuntimeException broken, int attempt) {
        if (broken instanceof ReplicationException e) {
            return e;
        }
        return engine.failures().violation(spec, "its answer could not be read (" + broken + ")", attempt);
    }

    /** A protocol violation: the plugin has a bug, so no retry. */
    private void stop(int attempt, ReplicationException violation) {
        notify(attempt, violation.code(), violation.recovery(), Optional.empty(), "not retried: protocol violation");
        finish(null, violation);
    }

    /** 4. Asks {@link RetryDecisions} what follows a failed attempt; the verifier or the secrets first, if it says. */
    private void decide(int attempt, AttemptOutcome.Failed failed) {
        RetryDecisions.Outcome facts = failed.facts();
        if (facts.spendsBudget()) {
            counted++;
        } else {
            connectionWaits++;
        }
        RetryDecision decision = RetryDecisions.decide(policy, facts, progress());
        if (decision instanceof RetryDecision.VerifySource verify) {
            // RetryDecisions asks to verify only for a call that concerns a source.
            ReplicationSource source = spec.concerns().orElseThrow();
            ask(() -> settings.verifier().verify(source), (approved, error) -> {
                if (error != null) {
                    LOG.debug(
                            "SourceVerifier failed for {}: {}",
                            SafeText.escape(source.toString()),
                            SafeText.escape(error.toString()));
                }
                carryOut(
                        attempt,
                        failed,
                        RetryDecisions.afterVerification(
                                policy, Boolean.TRUE.equals(approved), verify, facts, progress()));
            });
        } else if (decision instanceof RetryDecision.RenewSecrets renew) {
            renewed = true;
            // RetryDecisions asks to renew only for a call that sends secrets: its source's, or the plugin's.
            Optional<ReplicationSource> source = spec.concerns();
            ask(
                    () -> source.isPresent()
                            ? settings.secrets().renew(source.get())
                            : settings.secrets().renewPluginSecrets(),
                    (fresh, error) -> {
                        if (error != null) {
                            LOG.debug(
                                    "SecretsProvider.renew failed for {}: {}",
                                    SafeText.escape(spec.subject()),
                                    error.getClass().getName());
                        }
                        carryOut(
                                attempt,
                                failed,
                                RetryDecisions.afterRenewal(policy, renewal(fresh), renew, facts, progress()));
                    });
        } else {
            carryOut(attempt, failed, decision);
        }
    }

    /** Where the call stands, for {@link RetryDecisions}. */
    private RetryDecisions.Progress progress() {
        return RetryDecisions.Progress.builder()
                .source(spec.concerns().isPresent())
                .secrets(spec.sendsSecrets())
                .ownSecrets(spec.secretsOverride() != null)
                .verifier(settings.verifier() != null)
                .counted(counted)
                .connectionWaits(connectionWaits)
                .renewed(renewed)
                .cancelled(cancelled || engine.closed())
                .remaining(Duration.between(policy.clock().instant(), deadline))
                .build();
    }

    /** What {@link SecretsProvider#renew} gave; new secrets within the CSI limit replace the call's. */
    private RetryDecisions.Renewal renewal(Secrets fresh) {
        if (fresh == null || fresh.equals(secrets)) {
            return RetryDecisions.Renewal.NOTHING_NEW;
        }
        try {
            CsiLimits.requireMapWithinLimit("secrets", fresh.asMap());
        } catch (InvalidArgumentException e) {
            return RetryDecisions.Renewal.TOO_LARGE;
        }
        secrets = fresh;
        return RetryDecisions.Renewal.NEW;
    }

    /** 5. A retry is scheduled after its delay; a stop finishes the call with the failure, worded. */
    private void carryOut(int attempt, AttemptOutcome.Failed failed, RetryDecision decision) {
        RetryDecisions.Outcome facts = failed.facts();
        if (decision instanceof RetryDecision.Retry retry) {
            notify(attempt, facts.code(), facts.recovery(), Optional.of(retry.delay()), retry.reason());
            schedule(retry.delay());
            return;
        }
        String reason = decision instanceof RetryDecision.Stop stop ? stop.reason() : decision.toString();
        notify(attempt, facts.code(), facts.recovery(), Optional.empty(), reason);
        // Looking at the target is for a call that never reached its plugin, and only once, for its last words.
        Optional<String> unreachable =
                facts.connectionFailure() ? engine.connections().whyUnreachable() : Optional.empty();
        finish(null, engine.failures().failed(spec, facts, failed.status(), attempts, secrets, unreachable));
    }

    /** The next attempt after {@code delay}: on the blocking caller's thread, else on the scheduler's. */
    private void schedule(Duration delay) {
        Runnable next = () -> guarded(this::attempt);
        try {
            nextAttempt = settings.scheduler()
                    .schedule(
                            () -> {
                                if (callbacks == null) {
                                    next.run();
                                } else {
                                    callbacks.execute(next);
                                }
                            },
                            delay.toMillis(),
                            TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
            finish(null, closing); // never a call left waiting
            return;
        }
        if (cancelled) {
            nextAttempt.cancel(false);
        }
    }

    /**
     * 6. Once: frees the slot (or hands it to the next waiting call), tells the observation, completes the caller's
     * future, and only then lets the next call start, so that calls on one source finish, as their callers see
     * them, in the order they ran; and a caller that saw its call finish never finds the source still busy.
     */
    private void finish(R value, Throwable failure) {
        int was = state.getAndSet(DONE);
        if (was == DONE) {
            return;
        }
        // A call that never got its slot frees none: start() passes the slot on when its turn comes.
        Runnable next = was == RUNNING ? engine.release(flightKey) : null;
        try {
            if (failure == null) {
                observation.onFinished(StatusCode.OK, attempts);
                result.complete(value);
            } else {
                observation.onFinished(code(failure), failure instanceof ReplicationException e ? e.attempts() : 0);
                result.completeExceptionally(new CompletionException(failure));
            }
        } finally {
            if (next != null) {
                // Not inline: keeps stacks flat when many queued calls were cancelled and finish at once.
                CallEngine.executeOrRun(settings.executor(), next);
            }
        }
    }

    private static StatusCode code(Throwable failure) {
        if (failure instanceof ReplicationException e) {
            return e.code();
        }
        return failure instanceof CancellationException ? StatusCode.CANCELLED : StatusCode.UNKNOWN;
    }

    /** The caller cancelled: the attempt in flight and the scheduled one are cancelled, the call finishes now. */
    private void cancel() {
        cancelled = true;
        ClientCall<?, ?> call = inFlight;
        if (call != null) {
            call.cancel("call cancelled by the caller", null);
        }
        Future<?> next = nextAttempt;
        if (next != null) {
            next.cancel(false);
        }
        finish(null, new CancellationException("call cancelled"));
    }

    /**
     * Runs one step of the loop; one that throws (a request that cannot be written, a bug, a class missing at run
     * time) finishes the call with it: a call never hangs, and never keeps its source's slot.
     */
    private void guarded(Runnable step) {
        try {
            step.run();
        } catch (RuntimeException | Error e) {
            finish(null, e);
        }
    }

    /** Runs {@code step} on the client's executor when on the transport thread, else here. */
    private void offTransportThread(Runnable step) {
        if (onTransportThread) {
            CallEngine.executeOrRun(settings.executor(), () -> guarded(step));
        } else {
            step.run();
        }
    }

    /** Asks a user callback for a stage ({@code null} or a throw count as its failure); {@code then} gets its end. */
    private <T> void ask(Supplier<? extends CompletionStage<T>> question, BiConsumer<T, Throwable> then) {
        CompletionStage<T> stage;
        try {
            stage = question.get();
            if (stage == null) {
                stage = CompletableFuture.failedFuture(new NullPointerException("null stage"));
            }
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        stage.whenComplete((value, error) -> guarded(() -> then.accept(value, error)));
    }

    /** One event for the debug log, the call's observation and the {@link AttemptListener}. */
    private void notify(
            int attempt, StatusCode code, Recovery recovery, Optional<Duration> retryDelay, String decision) {
        AttemptEvent event = new AttemptEvent(
                spec.rpc(), spec.concerns(), attempt, code, Optional.ofNullable(recovery), retryDelay, decision);
        if (LOG.isDebugEnabled()) {
            LOG.debug("{}", SafeText.escape(event.describe()));
        }
        observation.onAttempt(event);
        AttemptListener listener = settings.listener();
        if (listener != null) {
            try {
                listener.onAttempt(event);
            } catch (RuntimeException e) {
                LOG.warn("AttemptListener threw {}; ignored", SafeText.escape(e.toString()));
            }
        }
    }
}
