package io.volrep.client;

import com.google.common.util.concurrent.MoreExecutors;
import com.google.protobuf.Message;
import io.grpc.Attributes;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ClientStreamTracer;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.volrep.api.ErrorScheme;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Runs one attempt: one {@link ClientCall} in, one {@link AttemptOutcome} out, built from facts only: the final
 * status code, whether the attempt waited for a connection ({@link CallOptions#withWaitForReady()}), and what its
 * {@link ClientStreamTracer} saw (the stream created on a transport, the plugin's headers, the plugin's trailers).
 * Never from gRPC's message text, whose wording an upgrade may change; {@code GrpcFactsTest} pins the facts. What the
 * answer means (its rules, the retry decision) is the {@link RetryLoop}'s to judge.
 *
 * <p>The outcome is handed over on the thread gRPC runs the call's callbacks on: the waiting caller's thread (a
 * blocking call's {@link CallingThreadQueue}), gRPC's transport thread ({@link ReplicationClient.Builder#directExecutor()}),
 * or the channel's executor.
 */
final class AttemptRunner {
    /**
     * Runs a callback on the thread that delivers it: gRPC's transport thread. Guava's instance, because gRPC
     * recognises exactly that one: any other direct executor gets a {@code SerializingExecutor} (a queue and its
     * nodes per callback) in front of it, which a raw listener on a direct channel never pays.
     */
    private static final Executor DIRECT = MoreExecutors.directExecutor();

    static final Metadata.Key<String> PUSHBACK_KEY =
            Metadata.Key.of("grpc-retry-pushback-ms", Metadata.ASCII_STRING_MARSHALLER);

    private final ManagedChannel channel;
    private final WireDialect wire;
    /** The client's revision's error scheme, for a code's recovery class. */
    private final ErrorScheme scheme;

    private final ConnectionWatch connections;
    /**
     * What every attempt's options start from, built once: {@link CallOptions} is immutable and each {@code with}
     * copies it, so only the per-attempt parts (tracer, deadline, a blocking caller's queue) are added per call.
     * Both run an asynchronous call's callbacks on the transport thread under {@code directExecutor()}.
     */
    private final CallOptions failFastOptions;
    /** As {@link #failFastOptions}, waiting for a connection: a plugin that is restarting is not an answer. */
    private final CallOptions waitForReadyOptions;

    AttemptRunner(ManagedChannel channel, CallSettings settings, ConnectionWatch connections) {
        this.channel = channel;
        this.wire = settings.wire();
        this.scheme = wire.dialect().errorScheme();
        this.connections = connections;
        this.failFastOptions =
                settings.directExecutor() ? CallOptions.DEFAULT.withExecutor(DIRECT) : CallOptions.DEFAULT;
        this.waitForReadyOptions = failFastOptions.withWaitForReady();
    }

    /**
     * One attempt to make.
     *
     * @param rpc what it calls
     * @param request the request, in the client's revision
     * @param timeout its gRPC deadline
     * @param waitForReady wait for a connection (within {@code timeout}) instead of failing at once without one
     * @param callbacks where its callbacks run: the waiting caller's queue for a blocking call, else null (the
     *        channel's executor, or the transport thread under {@code directExecutor()})
     * @param observation the call's, current while the attempt starts (a tracer parents the attempt there)
     */
    record Attempt(
            Rpc rpc,
            Message request,
            Duration timeout,
            boolean waitForReady,
            Executor callbacks,
            CallObservation observation) {}

    /** What came of one attempt. */
    sealed interface AttemptOutcome {
        /** The plugin answered OK with exactly one response (whether the answer follows the rules is judged next). */
        record Succeeded(Message response) implements AttemptOutcome {}

        /** The attempt failed: the facts decisions read, and gRPC's status for what a message shows. */
        record Failed(RetryDecisions.Outcome facts, Status status) implements AttemptOutcome {}

        /** The plugin broke the gRPC protocol for a unary call ({@code what}): a bug, never retried. */
        record Violated(String what) implements AttemptOutcome {}
    }

    /**
     * Starts {@code attempt}; {@code onOutcome} gets its outcome once, from the call's {@code onClose} only (a
     * callback rather than a future: on the transport thread, a future and its stage per call are a cost a raw
     * listener does not pay). Returns the call, to cancel.
     */
    ClientCall<Message, Message> start(Attempt attempt, Consumer<AttemptOutcome> onOutcome) {
        Trace trace = new Trace();
        Duration timeout = attempt.timeout();
        CallOptions options = attempt.waitForReady() ? waitForReadyOptions : failFastOptions;
        if (attempt.waitForReady()) {
            connections.watch();
        }
        if (attempt.callbacks() != null) {
            options = options.withExecutor(attempt.callbacks());
        }
        options = options.withStreamTracerFactory(trace).withDeadlineAfter(timeout.toNanos(), TimeUnit.NANOSECONDS);
        // The call's observation is current while the attempt starts: a tracing interceptor parents it there.
        CallObservation.Scope scope = attempt.observation().openScope();
        ClientCall<Message, Message> call;
        try {
            call = channel.newCall(wire.method(attempt.rpc()), options);
            call.start(new Listener(call, attempt, trace, onOutcome), new Metadata());
            // Two, so that a second response is seen (and refused) rather than left unread. Asked right after the
            // start, in the order of grpc-java's own unary calls, so that the transport's thread finds the request
            // for messages among the tasks the start gave it.
            call.request(2);
            call.sendMessage(attempt.request());
            call.halfClose();
        } finally {
            scope.close();
        }
        return call;
    }

    /** Collects one attempt's response and hands over its outcome once the call is closed. */
    private final class Listener extends ClientCall.Listener<Message> {
        private final ClientCall<Message, Message> call;
        private final Attempt attempt;
        private final Trace trace;
        private final Consumer<AttemptOutcome> onOutcome;
        private Message response;
        private boolean secondResponse;

        Listener(ClientCall<Message, Message> call, Attempt attempt, Trace trace, Consumer<AttemptOutcome> onOutcome) {
            this.call = call;
            this.attempt = attempt;
            this.trace = trace;
            this.onOutcome = onOutcome;
        }

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
            // Done only when the final status is OK, never on a response alone (an error status, or none, may
            // follow it).
            onOutcome.accept(outcome(status, trailers));
        }

        private AttemptOutcome outcome(Status status, Metadata trailers) {
            if (secondResponse) {
                return new AttemptOutcome.Violated("the plugin answered a unary call with more than one response");
            }
            if (status.isOk()) {
                return response == null
                        ? new AttemptOutcome.Violated("the plugin ended the call with OK but sent no response")
                        : new AttemptOutcome.Succeeded(response);
            }
            StatusCode code = StatusCode.fromValue(status.getCode().value());
            return new AttemptOutcome.Failed(
                    new RetryDecisions.Outcome(
                            code,
                            scheme.recovery(attempt.rpc(), code),
                            attempt.waitForReady(),
                            trace.sent,
                            trace.headers || trace.trailers != null,
                            trace.fromPlugin(trailers),
                            trailers.get(PUSHBACK_KEY)),
                    status);
        }
    }

    /** What one attempt saw of its transport: whether the request went out, what came back from the plugin. */
    private static final class Trace extends ClientStreamTracer.Factory {
        volatile boolean sent;
        volatile boolean headers;
        /** The plugin's trailers, once read (a trailers-only answer included); else null. */
        volatile Metadata trailers;

        /**
         * Whether the call ended with the plugin's own status: {@code onClose} got the very trailers object the
         * plugin's trailers were read into. A status the client's own gRPC made up (connection lost, deadline, its
         * inbound limit) comes with another object, even after the plugin's trailers were read: a response over
         * the inbound limit can be refused after them. {@code GrpcFactsTest} pins both.
         */
        boolean fromPlugin(Metadata closedWith) {
            return trailers != null && trailers == closedWith;
        }

        @Override
        public ClientStreamTracer newClientStreamTracer(ClientStreamTracer.StreamInfo info, Metadata headers) {
            return new ClientStreamTracer() {
                @Override
                public void streamCreated(Attributes transportAttrs, Metadata headers) {
                    sent = true;
                }

                @Override
                public void inboundHeaders() {
                    Trace.this.headers = true;
                }

                @Override
                public void inboundTrailers(Metadata trailers) {
                    // Only the plugin's trailers (a trailers-only answer included) get here; a status the
                    // client's own gRPC made up (connection lost, deadline, its inbound limit) does not.
                    Trace.this.trailers = trailers;
                }
            };
        }
    }
}
