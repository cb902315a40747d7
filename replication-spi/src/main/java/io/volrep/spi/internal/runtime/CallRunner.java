package io.volrep.spi.internal.runtime;

import com.google.protobuf.Message;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.volrep.api.ErrorScheme;
import io.volrep.api.InvalidArgumentException;
import io.volrep.api.ReplicationException;
import io.volrep.api.Rpc;
import io.volrep.api.SecretSanitizer;
import io.volrep.api.Secrets;
import io.volrep.api.StatusCode;
import io.volrep.api.internal.Arguments;
import io.volrep.api.internal.SafeText;
import io.volrep.spi.CallDeadline;
import io.volrep.spi.ServerCallEvent;
import io.volrep.spi.ServerObserver;
import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pipeline the runtime's replication and NodeHealer RPCs go through, so that both services validate, guard, map
 * and log the same way (Identity does not: its calls take no secrets and name no volume, see {@link IdentityService}):
 * <ol>
 *   <li>DEBUG: the request, sanitized ({@link SecretSanitizer});</li>
 *   <li>bytes that did not parse never reach it: {@link MalformedRequests} answers them INVALID_ARGUMENT through
 *       {@link #rejectMalformed}, logged and observed as here;</li>
 *   <li>{@link Handler#prepare}: validation and conversion to the driver's typed request, with the time the driver
 *       has ({@link DriverDeadlines}); an
 *       {@link InvalidArgumentException} becomes INVALID_ARGUMENT before any driver code runs;</li>
 *   <li>the per-key guard: a second call for a key in flight answers ABORTED "operation pending for ...";</li>
 *   <li>the driver call; its {@link ReplicationException} keeps its code and message (WARN when the spec's
 *       table for the RPC does not list the code), {@link InvalidDriverResponseException} and any other
 *       exception become UNKNOWN, logged at ERROR with the stack trace, the client seeing a generic message;</li>
 *   <li>INFO: one line per call (RPC, subject, code, duration); DEBUG: the response, sanitized.</li>
 * </ol>
 * The log line and the {@link ServerObserver} event are written here, not by a {@code ServerInterceptor}: what they
 * say (the subject, the field a rejection named, whether the guard, the validation or the driver answered, the
 * request's secrets to scrub) is known only inside the pipeline, and an interceptor would need a side channel to
 * learn it. What only needs the transport's view is an interceptor: the calls in flight at shutdown, tracing
 * (Micrometer's {@code ObservationGrpcServerInterceptor}), a caller's own {@code Builder.interceptor}.
 * The request's secret values are scrubbed ({@link Secrets#scrub}) from everything the runtime writes, and
 * untrusted text (source ids, driver messages) is escaped ({@link SafeText#escape}) before it is logged, so that
 * nobody can forge a log line or send escape sequences to an operator's terminal.
 *
 * <pre>{@code
 * public void promoteVolume(PromoteVolumeRequest request, StreamObserver<PromoteVolumeResponse> response) {
 *     runner.unary(Rpc.PROMOTE_VOLUME, request, response, (r, deadline) -> {
 *         PromoteRequest typed = ...;                                // throws InvalidArgumentException
 *         return new CallRunner.Call<>(typed.source(), typed.source().toString(), typed.secrets(), () -> {
 *             driver.promote(typed);
 *             return PromoteVolumeResponse.getDefaultInstance();
 *         });
 *     });
 * }
 * }</pre>
 * Internal to the runtime; public so that the runtime's services in other packages can use it.
 */
public final class CallRunner {
    // The logger keeps the name operators configure (storage-vendors.md, "Logging"), from before the package became
    // internal.
    static final String LOGGER = "io.volrep.spi.runtime.CallRunner";
    private static final Logger LOG = LoggerFactory.getLogger(LOGGER);

    private final SourceGuard guard;
    private final ErrorScheme scheme;
    private final ServerObserver callObserver;
    private final Duration driverTimeout;

    /** A runner whose calls share {@code guard}, checking codes against the current spec's tables. */
    public CallRunner(SourceGuard guard) {
        this(guard, ErrorScheme.spec(), null, null);
    }

    /**
     * A runner whose calls share {@code guard}, checking the codes drivers answer against {@code scheme} (the
     * tables of the spec revision the server speaks: {@link ErrorScheme#forDialect}), telling {@code observer}
     * (may be null) of every call, and giving each driver call the caller's deadline, at most {@code driverTimeout}
     * (may be null: no limit of the server's own).
     */
    public CallRunner(SourceGuard guard, ErrorScheme scheme, ServerObserver observer, Duration driverTimeout) {
        this.guard = Objects.requireNonNull(guard, "guard");
        this.scheme = Objects.requireNonNull(scheme, "scheme");
        this.callObserver = observer;
        this.driverTimeout = driverTimeout;
    }

    /**
     * Validates a wire request and prepares the driver call.
     *
     * @param <Q> the wire request
     * @param <R> the wire response
     */
    @FunctionalInterface
    public interface Handler<Q, R> {
        /**
         * Runs the driver's operation for one typed request.
         *
         * @param deadline the time the driver has, for its typed request ({@link DriverDeadlines})
         * @throws InvalidArgumentException naming the field when the request is invalid
         */
        Call<R> prepare(Q request, CallDeadline deadline);
    }

    /**
     * A validated call, ready to run.
     *
     * @param guardKey what must not have two calls in flight, e.g. the {@link io.volrep.api.ReplicationSource};
     *                 the runtime qualifies it with the RPC's service
     * @param subject how logs and the ABORTED message name the target, e.g. {@code "volume vol-1"}
     * @param secrets the request's secrets, scrubbed from everything the runtime writes
     * @param invocation calls the driver and converts (and checks) its answer; may throw
     *                   {@link InvalidDriverResponseException}
     * @param <R> the wire response
     */
    public record Call<R>(Object guardKey, String subject, Secrets secrets, Supplier<R> invocation) {
        public Call {
            Arguments.requireNonNull(
                    "guardKey", guardKey, "subject", subject, "secrets", secrets, "invocation", invocation);
        }

        /** The same call, its response converted by {@code conversion} (e.g. into a legacy dialect's message). */
        public <T> Call<T> map(Function<? super R, ? extends T> conversion) {
            Objects.requireNonNull(conversion, "conversion");
            return new Call<>(guardKey, subject, secrets, () -> conversion.apply(invocation.get()));
        }
    }

    private record GuardKey(String service, Object key) {}

    /**
     * The outcome of one call, for the log line and the observer.
     *
     * @param rejectedField for a request the runtime rejected: the field it named ({@link InvalidArgumentException#field()}),
     *                      as a path of the request's schema ({@link RejectedFields})
     */
    private record Outcome(
            StatusCode code, String message, ServerCallEvent.Cause cause, Optional<String> rejectedField) {
        static final Outcome OK = new Outcome(StatusCode.OK, null, ServerCallEvent.Cause.OK, Optional.empty());

        Outcome(StatusCode code, String message, ServerCallEvent.Cause cause) {
            this(code, message, cause, Optional.empty());
        }
    }

    /** Runs one unary call through the pipeline and answers {@code observer} exactly once. */
    public <Q extends Message, R extends Message> void unary(
            Rpc rpc, Q request, StreamObserver<R> observer, Handler<Q, R> handler) {
        long start = started(rpc);
        boolean driverCalled = false;
        if (LOG.isDebugEnabled()) {
            LOG.debug("{} request {}", rpc.methodName(), SecretSanitizer.lazy(request));
        }
        String subject = "(invalid request)";
        Secrets secrets = Secrets.empty();
        Outcome outcome;
        R response = null;
        try {
            Call<R> call = handler.prepare(
                    request, DriverDeadlines.of(Context.current().getDeadline(), driverTimeout));
            // Source ids come from unauthenticated callers: escaped once here, for the log and the ABORTED message.
            subject = SafeText.escape(call.subject());
            secrets = call.secrets();
            SourceGuard.Permit permit = guard.tryAcquire(new GuardKey(rpc.service(), call.guardKey()));
            if (permit == null) {
                outcome = new Outcome(
                        StatusCode.ABORTED, "operation pending for " + subject, ServerCallEvent.Cause.SOURCE_BUSY);
            } else {
                try (permit) {
                    driverCalled = true;
                    response = call.invocation().get();
                    if (response == null) {
                        throw new InvalidDriverResponseException("no response");
                    }
                    outcome = Outcome.OK;
                }
            }
        } catch (InvalidArgumentException e) {
            // Validation failures are the runtime's own (or the driver's, which is just as fine).
            outcome = mapped(rpc, subject, secrets, e);
            if (!driverCalled) {
                outcome = new Outcome(
                        outcome.code(),
                        outcome.message(),
                        ServerCallEvent.Cause.INVALID_REQUEST,
                        RejectedFields.inSchema(rpc, request, e.field()));
            }
        } catch (ReplicationException e) {
            outcome = mapped(rpc, subject, secrets, e);
        } catch (InvalidDriverResponseException e) {
            String message = "driver returned an invalid response: " + SafeText.escape(secrets.scrub(e.getMessage()));
            LOG.error("{} {}: {}", rpc.methodName(), subject, message);
            outcome = new Outcome(StatusCode.UNKNOWN, message, ServerCallEvent.Cause.DRIVER_FAILURE);
        } catch (Throwable e) {
            outcome = unexpected(rpc, subject, secrets, e);
            if (e instanceof VirtualMachineError vmError) {
                respond(rpc, observer, outcome, null);
                throw vmError;
            }
        }
        finished(rpc, start, subject, outcome, response);
        respond(rpc, observer, outcome, response);
    }

    /**
     * Rejects a request whose bytes did not parse as {@code rpc}'s request message ({@link MalformedRequests}): logged
     * and observed as a request the runtime rejected, without a field.
     *
     * @param why what the parser said, e.g. {@code "not a valid replication.PromoteVolumeRequest message"}
     * @return the status to close the call with: INVALID_ARGUMENT "malformed request: ..."
     */
    public Status rejectMalformed(Rpc rpc, String why) {
        long start = started(rpc);
        Outcome outcome = new Outcome(
                StatusCode.INVALID_ARGUMENT, "malformed request: " + why, ServerCallEvent.Cause.INVALID_REQUEST);
        finished(rpc, start, "(invalid request)", outcome, null);
        return Status.INVALID_ARGUMENT.withDescription(outcome.message());
    }

    /** Tells the observer a call started; returns the start time. */
    private long started(Rpc rpc) {
        long start = System.nanoTime();
        if (callObserver != null) {
            try {
                callObserver.onCallStarted(rpc);
            } catch (RuntimeException e) {
                LOG.warn("ServerObserver.onCallStarted threw {}; ignored", e.toString());
            }
        }
        return start;
    }

    /**
     * Writes the call's log line and tells the observer: before answering, so that a caller that got its answer can
     * rely on both.
     */
    private void finished(Rpc rpc, long start, String subject, Outcome outcome, Message response) {
        long millis = (System.nanoTime() - start) / 1_000_000;
        if (outcome.code() == StatusCode.OK) {
            // Guarded: with the line switched off, a call pays no varargs array nor boxed duration for it.
            if (LOG.isInfoEnabled()) {
                LOG.info("{} {} -> OK in {} ms", rpc.methodName(), subject, millis);
            }
            if (LOG.isDebugEnabled()) {
                LOG.debug("{} response {}", rpc.methodName(), SecretSanitizer.lazy(response));
            }
        } else {
            LOG.info(
                    "{} {} -> {} in {} ms: {}",
                    rpc.methodName(),
                    subject,
                    outcome.code().display(),
                    millis,
                    SafeText.escape(outcome.message()));
        }
        if (callObserver == null) {
            return;
        }
        try {
            callObserver.onCallFinished(new ServerCallEvent(
                    rpc,
                    outcome.code(),
                    Duration.ofNanos(System.nanoTime() - start),
                    outcome.cause(),
                    outcome.rejectedField()));
        } catch (RuntimeException e) {
            LOG.warn("ServerObserver.onCallFinished threw {}; ignored", e.toString());
        }
    }

    private Outcome mapped(Rpc rpc, String subject, Secrets secrets, ReplicationException e) {
        String message = secrets.scrub(e.getMessage() == null ? e.code().name() : e.getMessage());
        StatusCode code = e.code();
        if (code == StatusCode.OK) {
            LOG.error(
                    "{} {}: the driver threw {} with code OK; answering UNKNOWN",
                    rpc.methodName(),
                    subject,
                    e.getClass().getName());
            return new Outcome(
                    StatusCode.UNKNOWN,
                    "driver returned an invalid response: exception with code OK",
                    ServerCallEvent.Cause.DRIVER_FAILURE);
        }
        if (!scheme.lists(rpc, code) && !ErrorScheme.TRANSPORT_BACKOFF_CODES.contains(code)) {
            LOG.warn(
                    "{} {}: the driver answered {}, which the spec's table for {} does not list",
                    rpc.methodName(),
                    subject,
                    code.display(),
                    rpc.methodName());
        }
        return new Outcome(code, message, ServerCallEvent.Cause.DRIVER_ERROR);
    }

    private static Outcome unexpected(Rpc rpc, String subject, Secrets secrets, Throwable e) {
        String incident = Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xffffffffL);
        // The stack trace is rendered here, not by the logging backend, so that the request's secret values
        // can be scrubbed from it (drivers put all sorts of things into messages).
        LOG.error(
                "{} {}: unexpected {} from the driver (incident {}), answering UNKNOWN\n{}",
                rpc.methodName(),
                subject,
                e.getClass().getName(),
                incident,
                stackTrace(e, secrets));
        return new Outcome(
                StatusCode.UNKNOWN,
                "the driver failed unexpectedly (" + e.getClass().getSimpleName() + ", incident " + incident
                        + "); see the plugin's log",
                ServerCallEvent.Cause.DRIVER_FAILURE);
    }

    /**
     * {@code e}'s stack trace as {@link Throwable#printStackTrace()} writes it (causes and suppressed exceptions
     * included), except that each message is scrubbed of the request's secrets and escaped ({@link SafeText}):
     * a driver's message cannot start a line of its own. The frames come from the JVM and are left as they are.
     */
    static String stackTrace(Throwable e, Secrets secrets) {
        StringBuilder out = new StringBuilder();
        appendTrace(
                out, e, "", "", new StackTraceElement[0], Collections.newSetFromMap(new IdentityHashMap<>()), secrets);
        return out.toString();
    }

    private static void appendTrace(
            StringBuilder out,
            Throwable e,
            String caption,
            String indent,
            StackTraceElement[] enclosing,
            Set<Throwable> seen,
            Secrets secrets) {
        if (!seen.add(e)) {
            out.append(indent)
                    .append(caption)
                    .append("[CIRCULAR REFERENCE: ")
                    .append(e.getClass().getName())
                    .append("]\n");
            return;
        }
        String message = e.getLocalizedMessage();
        out.append(indent).append(caption).append(e.getClass().getName());
        if (message != null) {
            out.append(": ").append(SafeText.escape(secrets.scrub(message)));
        }
        out.append('\n');
        StackTraceElement[] frames = e.getStackTrace();
        int m = frames.length - 1;
        int n = enclosing.length - 1;
        while (m >= 0 && n >= 0 && frames[m].equals(enclosing[n])) {
            m--;
            n--;
        }
        for (int i = 0; i <= m; i++) {
            out.append(indent).append("\tat ").append(frames[i]).append('\n');
        }
        if (m < frames.length - 1) {
            out.append(indent).append("\t... ").append(frames.length - 1 - m).append(" more\n");
        }
        for (Throwable suppressed : e.getSuppressed()) {
            appendTrace(out, suppressed, "Suppressed: ", indent + "\t", frames, seen, secrets);
        }
        if (e.getCause() != null) {
            appendTrace(out, e.getCause(), "Caused by: ", indent, frames, seen, secrets);
        }
    }

    private static <R> void respond(Rpc rpc, StreamObserver<R> observer, Outcome outcome, R response) {
        try {
            if (outcome.code() == StatusCode.OK) {
                observer.onNext(response);
                observer.onCompleted();
            } else {
                observer.onError(Status.fromCodeValue(outcome.code().value())
                        .withDescription(outcome.message())
                        .asRuntimeException());
            }
        } catch (RuntimeException e) {
            // The client went away (cancelled, deadline): nothing to answer to.
            LOG.debug("{}: could not send the answer: {}", rpc.methodName(), e.toString());
        }
    }
}
