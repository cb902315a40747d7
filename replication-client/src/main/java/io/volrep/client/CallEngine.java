package io.volrep.client;

import com.google.protobuf.Message;
import io.github.resilience4j.core.IntervalBiFunction;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ClientStreamTracer;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.volrep.api.CsiLimits;
import io.volrep.api.ErrorScheme;
import io.volrep.api.InvalidArgumentException;
import io.volrep.api.PreconditionFailedException;
import io.volrep.api.ProtocolViolationException;
import io.volrep.api.Recovery;
import io.volrep.api.ReplicationException;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.SafeText;
import io.volrep.api.Secrets;
import io.volrep.api.StatusCode;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs typed calls: single-flight per source (a call without a source, such as an Identity call, starts at
 * once), then a resilience4j retry loop. Each attempt is done only when its final status is OK; a failed one
 * is measured (code, recovery class of the call's revision, whether the plugin answered at all) and
 * {@link RetryDecisions} decides, asking the {@link SourceVerifier} or
 * {@link SecretsProvider} asynchronously where the decision says so. resilience4j gets an {@link AttemptFailure}
 * that says whether to retry and after how long and schedules the retry on the {@link ScheduledExecutorService},
 * so no thread waits during a back-off. Unless the policy fails fast, attempts wait for a plugin that is down
 * (wait-for-ready) and such waits do not spend the attempt budget.
 */
final class CallEngine {
    /** gRPC's text for a deadline that ran out waiting for a connection; groups: the last failure's code, text. */
    private static final Pattern WAITED_FOR_READY = Pattern.compile(
            "wait_for_ready, Last Pick Failure=Status\\{code=(\\w+), description=([^,}]*)");

    /** Runs a callback on the thread that delivers it: gRPC's transport thread. */
    private static final Executor DIRECT = Runnable::run;

    static final Metadata.Key<String> PUSHBACK_KEY =
            Metadata.Key.of("grpc-retry-pushback-ms", Metadata.ASCII_STRING_MARSHALLER);

    private static final Logger LOG = LoggerFactory.getLogger(CallEngine.class);

    private final ManagedChannel channel;
    private final Executor executor;
    private final ScheduledExecutorService scheduler;
    private final RetryPolicy defaultPolicy;
    private final SecretsProvider secrets;
    private final SourceVerifier verifier;
    private final AttemptListener listener;
    private final CallObserver observer;
    private final SingleFlight singleFlight;
    private final WireDialect wire;
    private final int maxInboundMessageSize;
    /**
     * {@link ReplicationClient.Builder#directExecutor()}: an attempt's callbacks, and a success's completion, run
     * on gRPC's transport thread; a failure is handed to {@link #executor} before anything decides about it.
     */
    private final boolean direct;
    private final String target;
    private final ConnectionWatch connections;
    /** Calls without a single-flight slot (no source) that are in flight: the {@link ConnectionWatch} counts them. */
    private final AtomicInteger callsWithoutSlot = new AtomicInteger();

    CallEngine(ManagedChannel channel, String target, Executor executor, ScheduledExecutorService scheduler,
               RetryPolicy policy, SecretsProvider secrets, SourceVerifier verifier, AttemptListener listener,
               CallObserver observer, int maxQueuedPerSource, WireDialect wire, int maxInboundMessageSize,
               boolean direct) {
        this.channel = channel;
        this.direct = direct;
        this.target = target;
        this.connections = new ConnectionWatch(channel, scheduler, this::activeCalls);
        this.maxInboundMessageSize = maxInboundMessageSize;
        this.wire = wire;
        this.executor = executor;
        this.scheduler = scheduler;
        this.defaultPolicy = policy;
        this.secrets = secrets;
        this.verifier = verifier;
        this.listener = listener;
        this.observer = observer;
        this.singleFlight = new SingleFlight(maxQueuedPerSource, executor);
    }

    /** The spec revision's codec every replication call goes through. */
    WireDialect wire() {
        return wire;
    }

    RetryPolicy defaultPolicy() {
        return defaultPolicy;
    }

    /** The client's executor: where callbacks run when no caller drains them. */
    Executor executor() {
        return executor;
    }

    ScheduledExecutorService scheduler() {
        return scheduler;
    }

    int activeSources() {
        return singleFlight.activeSources();
    }

    /** Calls running or waiting: those of every active source and those without a source. */
    private int activeCalls() {
        return singleFlight.activeSources() + callsWithoutSlot.get();
    }

    /**
     * Sends {@code spec} with retries; the future completes with the response message or a
     * {@link ReplicationException}. Cancelling it cancels the RPC in flight and every later attempt.
     */
    CompletableFuture<Response> execute(CallSpec spec) {
        return execute(spec, null);
    }

    /**
     * {@link #execute(CallSpec)} for a caller that waits: with a {@code queue}, gRPC's callbacks and the
     * scheduled retries run on the thread that drains it ({@link CallingThreadQueue#drainUntil}).
     */
    CompletableFuture<Response> execute(CallSpec spec, CallingThreadQueue queue) {
        CompletableFuture<Response> result = new CompletableFuture<>();
        long accepted = System.nanoTime();
        try {
            spec.validate(wire);
        } catch (ReplicationException e) {
            // InvalidArgumentException or UnsupportedByDialectException: nothing was sent.
            observeRefusal(spec, e);
            result.completeExceptionally(e);
            return result;
        }
        CallObservation observation = observer.onCall(spec.rpc(), spec.concerns());
        // The caller's future completes only after the single-flight slot is free, so a caller that saw its call
        // finish never finds the source still active (and a next call never queues behind a finished one).
        CompletableFuture<Response> visible = new CompletableFuture<>();
        Cancellation.propagate(visible, () -> result);
        Supplier<CompletableFuture<?>> start = () -> {
            observation.onStarted(Duration.ofNanos(System.nanoTime() - accepted));
            return run(spec, queue, result, observation);
        };
        Runnable afterRelease = () -> result.whenComplete((v, t) -> {
            if (t == null) {
                observation.onFinished(StatusCode.OK, v.attempts());
                visible.complete(v);
            } else {
                Throwable failure = unwrap(t);
                finished(observation, failure);
                visible.completeExceptionally(failure);
            }
        });
        Optional<Object> flightKey = spec.flightKey();
        if (flightKey.isPresent()) {
            // Keyed calls concern a source: it names the source in a CallQueueFullException.
            singleFlight.submit(flightKey.get(), spec.concerns().orElseThrow(), spec.rpc(), result, start,
                    afterRelease);
        } else {
            // No source, no slot to wait for.
            callsWithoutSlot.incrementAndGet();
            result.whenComplete((v, t) -> callsWithoutSlot.decrementAndGet());
            try {
                start.get();
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
            afterRelease.run();
        }
        return visible;
    }

    /** How messages name a call: {@code PromoteVolume for volume pvc-1}, or {@code identity.Identity/Probe}. */
    private static String subject(CallSpec spec) {
        Rpc rpc = spec.rpc();
        return spec.concerns().map(source -> rpc.methodName() + " for " + source).orElseGet(rpc::fullMethodName);
    }

    /** A call refused before sending is observed too, when its source can be named at all. */
    private void observeRefusal(CallSpec spec, ReplicationException e) {
        if (observer == CallObservers.NONE) {
            return;
        }
        Optional<ReplicationSource> source;
        try {
            source = spec.concerns();
        } catch (RuntimeException invalidSource) {
            return;
        }
        observer.onCall(spec.rpc(), source).onFinished(e.code(), 0);
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

    /** The whole retry sequence of one call; completes when {@code result} does. */
    private CompletableFuture<?> run(CallSpec spec, CallingThreadQueue queue, CompletableFuture<Response> result,
                                     CallObservation observation) {
        RetryPolicy policy = spec.policy() != null ? spec.policy() : defaultPolicy;
        CallState state;
        try {
            Optional<ReplicationSource> source = spec.concerns();
            // A call without a source (Identity) sends no secrets.
            Secrets initial = spec.secretsOverride() != null ? spec.secretsOverride()
                    : source.isPresent() ? secrets.secrets(source.get()) : Secrets.empty();
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
        ScheduledExecutorService retryScheduler = queue == null ? scheduler : queue.scheduling(scheduler);
        RETRY.executeCompletionStage(retryScheduler, () -> attempt(state))
                .whenComplete((message, failure) -> {
                    if (failure == null) {
                        result.complete(new Response(message, state.attempts.get()));
                    } else {
                        result.completeExceptionally(toResult(failure, state));
                    }
                });
        return result;
    }

    /**
     * Decisions live in {@link RetryDecisions} (carried by {@link AttemptFailure}), the attempt budget included:
     * attempts that never reached the plugin do not count, so resilience4j's own limit must never be what stops.
     */
    private static final Retry RETRY = Retry.of("volrep", RetryConfig.<Message>custom()
            .maxAttempts(Integer.MAX_VALUE)
            .retryOnException(t -> unwrap(t) instanceof AttemptFailure f && f.retry)
            .intervalBiFunction((IntervalBiFunction<Message>) (n, either) -> {
                if (either.isLeft() && unwrap(either.getLeft()) instanceof AttemptFailure f) {
                    return f.delayMillis;
                }
                return 0L;
            })
            .build());

    private CompletionStage<Message> attempt(CallState state) {
        if (state.cancelled) {
            return CompletableFuture.failedFuture(new CancellationException("call cancelled"));
        }
        int attempt = state.attempts.incrementAndGet();
        Duration remaining = Duration.between(state.policy.clock().instant(), state.deadline);
        Duration timeout = remaining.compareTo(state.policy.perAttemptTimeout()) < 0 ? remaining
                : state.policy.perAttemptTimeout();
        if (timeout.isNegative() || timeout.isZero()) {
            timeout = Duration.ofMillis(1);
        }
        Message request = state.spec.encode(wire, state.secrets);
        AttemptTrace trace = new AttemptTrace();
        CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(timeout.toNanos(), TimeUnit.NANOSECONDS)
                .withStreamTracerFactory(trace);
        if (!state.policy.failFast()) {
            // A plugin that is restarting is waited for (within the deadlines), not counted as an answer.
            options = options.withWaitForReady();
            connections.watch();
        }
        // Callbacks run on the waiting caller's thread (blocking call), the transport thread (directExecutor()), or
        // by default the channel's executor.
        boolean onTransportThread = state.queue == null && direct;
        if (state.queue != null) {
            options = options.withExecutor(state.queue);
        } else if (onTransportThread) {
            options = options.withExecutor(DIRECT);
        }
        // The call's observation is current while the attempt starts: a tracing interceptor parents it there.
        CallObservation.Scope scope = state.observation.openScope();
        ClientCall<Message, Message> call;
        CompletableFuture<Message> outcome;
        try {
            call = channel.newCall(state.spec.method(wire), options);
            state.current = call;
            // The attempt's outcome is completed from the listener's onClose only: a call is done when its final
            // status is OK, never on a response alone (a response may be followed by an error status, or by none).
            outcome = new CompletableFuture<>();
            call.start(new ClientCall.Listener<>() {
                private Message response;
                private boolean secondResponse;

                @Override
                public void onMessage(Message message) {
                    if (response == null) {
                        response = message;
                    } else if (!secondResponse) {
                        secondResponse = true;
                        call.cancel("more than one response to a unary call", null);
                    }
                }

                @Override
                public void onClose(Status status, Metadata trailers) {
                    if (onTransportThread && !(status.isOk() && response != null && !secondResponse)) {
                        // On the transport thread: the verifier, the secrets' renewal, listeners and the caller's
                        // continuations of a failure may block, so a failure is decided on the client's executor.
                        executeOrRun(executor, () -> closed(status, trailers));
                    } else {
                        closed(status, trailers);
                    }
                }

                private void closed(Status status, Metadata trailers) {
                    if (secondResponse) {
                        outcome.completeExceptionally(violation(state, attempt,
                                "the plugin answered a unary call with more than one response"));
                    } else if (status.isOk() && response == null) {
                        outcome.completeExceptionally(violation(state, attempt,
                                "the plugin ended the call with OK but sent no response"));
                    } else if (status.isOk()) {
                        succeeded(state, attempt, response, outcome);
                    } else {
                        failed(state, attempt, status, trailers, trace, outcome);
                    }
                }
            }, new Metadata());
            call.sendMessage(request);
            call.halfClose();
            // Two, so that a second response is seen (and refused) rather than left unread.
            call.request(2);
        } finally {
            scope.close();
        }
        if (state.cancelled) {
            call.cancel("call cancelled by the caller", null);
        }
        return outcome;
    }

    /** Runs {@code task} on {@code executor}; inline when it no longer takes work (the client is closing). */
    static void executeOrRun(Executor executor, Runnable task) {
        try {
            executor.execute(task);
        } catch (RejectedExecutionException closing) {
            task.run();
        }
    }

    private void failed(CallState state, int attempt, Status status, Metadata trailers, AttemptTrace trace,
                        CompletableFuture<Message> outcome) {
        CompletionStage<Message> decision;
        try {
            decision = classify(state, attempt, status, trailers, trace);
        } catch (RuntimeException e) {
            outcome.completeExceptionally(e);
            return;
        }
        decision.whenComplete((message, failure) -> {
            if (failure == null) {
                outcome.complete(message);
            } else {
                outcome.completeExceptionally(failure);
            }
        });
    }

    /** A plugin that broke the gRPC protocol has a bug: surfaced at once, never retried. */
    private AttemptFailure violation(CallState state, int attempt, String what) {
        ReplicationException e = new ProtocolViolationException(subject(state.spec) + ": " + what,
                state.spec.rpc(), attempt)
                .inRevision(wire.dialect().errorScheme());
        notify(state, new AttemptEvent(state.spec.rpc(), state.spec.concerns(), attempt, e.code(),
                Optional.of(e.recovery()), Optional.empty(), "not retried: protocol violation"));
        return new AttemptFailure(e, false, 0);
    }

    private void succeeded(CallState state, int attempt, Message message, CompletableFuture<Message> outcome) {
        if (outcome.isDone()) {
            return;
        }
        if (listener != null || state.observation != CallObservation.NONE || LOG.isDebugEnabled()) {
            notify(state, new AttemptEvent(state.spec.rpc(), state.spec.concerns(), attempt, StatusCode.OK,
                    Optional.empty(), Optional.empty(), "succeeded"));
        }
        outcome.complete(message);
    }

    /**
     * Measures the failed attempt, asks {@link RetryDecisions} what to do and carries it out (asking the
     * {@link SourceVerifier} or {@link SecretsProvider} where the decision says so); always completes exceptionally.
     */
    private CompletionStage<Message> classify(CallState state, int attempt, Status status, Metadata trailers,
                                              AttemptTrace trace) {
        StatusCode code = StatusCode.fromValue(status.getCode().value());
        boolean overLimit = overInboundLimit(status);
        RetryDecisions.Outcome outcome = new RetryDecisions.Outcome(code,
                wire.dialect().errorScheme().recovery(state.spec.rpc(), code), trace.answered, trace.sent,
                trailers.get(PUSHBACK_KEY), overLimit);
        ReplicationException exception = overLimit ? tooLarge(state, code, status, attempt)
                : exception(state, code, status, attempt, outcome);
        if (RetryDecisions.counts(state.policy, outcome)) {
            state.counted.incrementAndGet();
        } else {
            state.connectionWaits.incrementAndGet();
        }
        RetryDecision decision = RetryDecisions.decide(state.policy, outcome, progress(state));
        if (decision instanceof RetryDecision.VerifySource verify) {
            // RetryDecisions asks to verify or renew only for a call that concerns a source.
            ReplicationSource source = state.spec.concerns().orElseThrow();
            return safely(() -> verifier.verify(source)).handle((approved, verifyError) -> {
                if (verifyError != null) {
                    LOG.debug("SourceVerifier failed for {}: {}", SafeText.escape(source.toString()),
                            SafeText.escape(verifyError.toString()));
                }
                return carryOut(state, attempt, exception, RetryDecisions.afterVerification(state.policy,
                        Boolean.TRUE.equals(approved), verify, outcome, progress(state)));
            }).thenCompose(s -> s);
        }
        if (decision instanceof RetryDecision.RenewSecrets renew) {
            state.renewed = true;
            ReplicationSource source = state.spec.concerns().orElseThrow();
            return safely(() -> secrets.renew(source)).handle((renewed, renewError) -> {
                if (renewError != null) {
                    LOG.debug("SecretsProvider.renew failed for {}: {}",
                            SafeText.escape(source.toString()), renewError.getClass().getName());
                }
                RetryDecisions.Renewal renewal = RetryDecisions.Renewal.NOTHING_NEW;
                if (renewed != null && !renewed.equals(state.secrets)) {
                    try {
                        CsiLimits.requireMapWithinLimit("secrets", renewed.asMap());
                        state.secrets = renewed;
                        renewal = RetryDecisions.Renewal.NEW;
                    } catch (InvalidArgumentException e) {
                        renewal = RetryDecisions.Renewal.TOO_LARGE;
                    }
                }
                return carryOut(state, attempt, exception, RetryDecisions.afterRenewal(state.policy, renewal, renew,
                        outcome, progress(state)));
            }).thenCompose(s -> s);
        }
        return carryOut(state, attempt, exception, decision);
    }

    private RetryDecisions.Progress progress(CallState state) {
        return new RetryDecisions.Progress(state.spec.concerns().isPresent(), state.counted.get(),
                state.connectionWaits.get(), state.renewed, state.spec.secretsOverride() != null, verifier != null,
                state.cancelled || channel.isShutdown(), Duration.between(state.policy.clock().instant(),
                state.deadline));
    }

    /** Notifies the listener of a final decision and hands it to resilience4j. */
    private CompletionStage<Message> carryOut(CallState state, int attempt, ReplicationException exception,
                                              RetryDecision decision) {
        if (decision instanceof RetryDecision.Retry retry) {
            notify(state, new AttemptEvent(state.spec.rpc(), state.spec.concerns(), attempt, exception.code(),
                    Optional.of(exception.recovery()), Optional.of(retry.delay()), retry.reason()));
            return CompletableFuture.failedFuture(new AttemptFailure(exception, true, retry.delay().toMillis()));
        }
        String reason = decision instanceof RetryDecision.Stop stop ? stop.reason() : decision.toString();
        notify(state, new AttemptEvent(state.spec.rpc(), state.spec.concerns(), attempt, exception.code(),
                Optional.of(exception.recovery()), Optional.empty(), reason));
        return CompletableFuture.failedFuture(new AttemptFailure(exception, false, 0));
    }

    private static <T> CompletionStage<T> safely(java.util.function.Supplier<CompletionStage<T>> stage) {
        try {
            CompletionStage<T> s = stage.get();
            return s == null ? CompletableFuture.failedFuture(new NullPointerException("null stage")) : s;
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private void notify(CallState state, AttemptEvent event) {
        if (LOG.isDebugEnabled()) {
            LOG.debug("{}", SafeText.escape(event.describe()));
        }
        state.observation.onAttempt(event);
        if (listener != null) {
            try {
                listener.onAttempt(event);
            } catch (RuntimeException e) {
                LOG.warn("AttemptListener threw {}; ignored", SafeText.escape(e.toString()));
            }
        }
    }

    /**
     * True when gRPC refused the response for exceeding this client's inbound limit (its deframer's words): the
     * same response would be refused again, so the back-off the code's table row asks for cannot help.
     */
    private boolean overInboundLimit(Status status) {
        String description = status.getDescription();
        return status.getCode() == Status.Code.RESOURCE_EXHAUSTED && description != null
                && (description.startsWith("gRPC message exceeds maximum size " + maxInboundMessageSize)
                || description.startsWith("Decompressed gRPC message exceeds maximum size " + maxInboundMessageSize));
    }

    private ReplicationException tooLarge(CallState state, StatusCode code, Status status, int attempt) {
        Rpc rpc = state.spec.rpc();
        return ReplicationException.of(code, subject(state.spec)
                + ": the response is larger than the client's inbound message limit of " + maxInboundMessageSize
                + " bytes (" + status.getDescription() + "); raise the limit with "
                + "ReplicationClient.Builder.maxInboundMessageSize", rpc, attempt, status.getCause())
                .inRevision(wire.dialect().errorScheme());
    }

    private ReplicationException exception(CallState state, StatusCode code, Status status, int attempt,
                                           RetryDecisions.Outcome outcome) {
        Rpc rpc = state.spec.rpc();
        ErrorScheme scheme = wire.dialect().errorScheme();
        String description = state.secrets.scrub(status.getDescription());
        StringBuilder message = new StringBuilder().append(subject(state.spec)).append(" failed with ")
                .append(code.display());
        if (code == StatusCode.UNIMPLEMENTED && rpc.isIdentity()) {
            // Not "this call failed" but "no Identity service": the plugin may still serve replication.
            message = new StringBuilder("the plugin does not serve the CSI-Addons Identity service (")
                    .append(code.display()).append(" from ").append(rpc.fullMethodName()).append(')');
        } else if (outcome.connectionFailure()) {
            // Not the plugin's answer: say which plugin could not be reached.
            message.append(": no answer from the plugin at ").append(target);
            Matcher waited = description == null ? null : WAITED_FOR_READY.matcher(description);
            if (waited != null && waited.find()) {
                // The deadline ran out while the call waited for a connection (wait-for-ready): gRPC's text is a
                // dump of its load balancer's state; say what happened and the last connection failure.
                message.append(" within the call's deadline: it waited for the plugin to accept connections (last"
                        + " connection failure: ").append(waited.group(1)).append(' ')
                        .append(waited.group(2)).append(')');
            } else if (description != null && !description.isEmpty()) {
                // gRPC's transport text can carry a whole stack trace (the last pick failure's cause): one line.
                int newline = description.indexOf('\n');
                message.append(" (").append(newline < 0 ? description : description.substring(0, newline).strip()
                        + " ...").append(')');
            }
        } else if (description != null && !description.isEmpty()) {
            message.append(": ").append(description);
        }
        if (code == StatusCode.FAILED_PRECONDITION) {
            message.append(" (precondition: ")
                    .append(scheme.find(rpc, code).map(ErrorScheme.Row::recoveryText)
                            .orElse(Recovery.ENSURE_PRECONDITION.advice()))
                    .append(')');
        }
        Throwable cause = status.getCause();
        ReplicationException e = ReplicationException.of(code, message.toString(), rpc, attempt, cause)
                .inRevision(scheme);
        assert !(e instanceof PreconditionFailedException) || code == StatusCode.FAILED_PRECONDITION;
        return e;
    }

    /** What one attempt saw of its transport: whether the request went out, whether the plugin answered. */
    private static final class AttemptTrace extends ClientStreamTracer.Factory {
        volatile boolean sent;
        volatile boolean answered;

        @Override
        public ClientStreamTracer newClientStreamTracer(ClientStreamTracer.StreamInfo info, Metadata headers) {
            return new ClientStreamTracer() {
                @Override
                public void streamCreated(io.grpc.Attributes transportAttrs, Metadata headers) {
                    sent = true;
                }

                @Override
                public void inboundHeaders() {
                    answered = true;
                }

                @Override
                public void inboundTrailers(Metadata trailers) {
                    // Only the plugin's trailers (a trailers-only answer included) get here; a status the
                    // client's own transport made up (connection lost, deadline) does not.
                    answered = true;
                }
            };
        }
    }

    private static Throwable toResult(Throwable failure, CallState state) {
        Throwable t = unwrap(failure);
        if (t instanceof AttemptFailure f) {
            ReplicationException e = f.exception;
            return e.attempts() == state.attempts.get() ? e : e.withContext(state.spec.rpc(), state.attempts.get());
        }
        return t;
    }

    static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /** A successful call's response and how many attempts it took. */
    record Response(Message message, int attempts) {
    }

    /** The per-call state of one retry sequence. */
    private static final class CallState {
        final CallSpec spec;
        final RetryPolicy policy;
        final Instant deadline;
        /** Every request sent; what {@link ReplicationException#attempts()} reports. */
        final AtomicInteger attempts = new AtomicInteger();
        /** Attempts that spent the budget ({@link RetryPolicy#maxAttempts()}). */
        final AtomicInteger counted = new AtomicInteger();
        /** Attempts that did not reach the plugin. */
        final AtomicInteger connectionWaits = new AtomicInteger();
        volatile Secrets secrets;
        volatile boolean renewed;
        volatile boolean cancelled;
        volatile ClientCall<?, ?> current;
        /** The waiting caller's queue for a blocking call, else null (callbacks on the client's executor). */
        final CallingThreadQueue queue;
        final CallObservation observation;

        CallState(CallSpec spec, RetryPolicy policy, Secrets secrets, Instant start, CallingThreadQueue queue,
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

    /** The outcome of one failed attempt, for resilience4j: retry or not, and after how long. */
    static final class AttemptFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final transient ReplicationException exception;
        final boolean retry;
        final long delayMillis;

        AttemptFailure(ReplicationException exception, boolean retry, long delayMillis) {
            super(exception.getMessage(), null, false, false);
            this.exception = exception;
            this.retry = retry;
            this.delayMillis = delayMillis;
        }
    }
}
