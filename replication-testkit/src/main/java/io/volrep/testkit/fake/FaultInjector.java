package io.volrep.testkit.fake;

import com.google.protobuf.Duration;
import com.google.protobuf.MessageOrBuilder;
import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.volrep.api.Rpc;
import io.volrep.api.SecretSanitizer;
import io.volrep.api.StatusCode;
import io.volrep.proto.replication.GetVolumeReplicationInfoResponse;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A scriptable gRPC {@link ServerInterceptor} for replication and healer plugins, their Identity service
 * included: fails the next N calls of an RPC with a code (optionally with a {@code grpc-retry-pushback-ms}
 * trailer), delays calls, breaks info answers, and records every call with its request, secrets masked.
 * {@link FakePlugin} puts one in front of the reference driver; it can wrap any server too.
 *
 * <pre>{@code
 * FaultInjector faults = new FaultInjector();
 * ReplicationServer server = ReplicationServer.builder().driver(myDriver).interceptor(faults)
 *         .listen("inprocess:test").build().start();
 * faults.failNext(Rpc.PROMOTE_VOLUME, 2, StatusCode.ABORTED);
 * }</pre>
 * Injected failures and latency are applied after the request arrives and before the driver sees it; a call
 * failed by the script never reaches the driver.
 */
public final class FaultInjector implements ServerInterceptor, AutoCloseable {
    /** The trailer gRPC clients read as "retry after this many milliseconds". */
    public static final Metadata.Key<String> RETRY_PUSHBACK =
            Metadata.Key.of("grpc-retry-pushback-ms", Metadata.ASCII_STRING_MARSHALLER);

    private record Fault(StatusCode code, java.time.Duration pushback) {
    }

    private final Map<Rpc, Deque<Fault>> faults = new EnumMap<>(Rpc.class);
    private final Map<Rpc, java.time.Duration> latency = new EnumMap<>(Rpc.class);
    private final List<RecordedCall> calls = new ArrayList<>();
    private volatile InfoViolation infoViolation = InfoViolation.NONE;
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "volrep-fault-injector");
        t.setDaemon(true);
        return t;
    });

    /** The next {@code n} calls of {@code rpc} fail with {@code code} (added after any already scripted). */
    public FaultInjector failNext(Rpc rpc, int n, StatusCode code) {
        return failNext(rpc, n, code, null);
    }

    /**
     * The next {@code n} calls of {@code rpc} fail with {@code code} and, when {@code pushback} is not null,
     * a {@code grpc-retry-pushback-ms} trailer asking the client to wait that long.
     */
    public FaultInjector failNext(Rpc rpc, int n, StatusCode code, java.time.Duration pushback) {
        Objects.requireNonNull(rpc, "rpc");
        Objects.requireNonNull(code, "code");
        if (code == StatusCode.OK || n < 0) {
            throw new IllegalArgumentException("failNext needs n >= 0 and an error code, got " + n + ", " + code);
        }
        synchronized (faults) {
            Deque<Fault> queue = faults.computeIfAbsent(rpc, r -> new ArrayDeque<>());
            for (int i = 0; i < n; i++) {
                queue.add(new Fault(code, pushback));
            }
        }
        return this;
    }

    /** Every call of {@code rpc} waits {@code delay} before it is answered (zero removes the delay). */
    public FaultInjector latency(Rpc rpc, java.time.Duration delay) {
        synchronized (latency) {
            if (delay == null || delay.isZero()) {
                latency.remove(rpc);
            } else {
                latency.put(rpc, delay);
            }
        }
        return this;
    }

    /** Every GetVolumeReplicationInfo answer from now on carries {@code violation}. */
    public FaultInjector violateInfo(InfoViolation violation) {
        this.infoViolation = Objects.requireNonNull(violation, "violation");
        return this;
    }

    /** Removes scripted failures, latency and info violations; keeps the call record. */
    public FaultInjector clearFaults() {
        synchronized (faults) {
            faults.clear();
        }
        synchronized (latency) {
            latency.clear();
        }
        infoViolation = InfoViolation.NONE;
        return this;
    }

    /** How many scripted failures of {@code rpc} are still waiting for a call. */
    public int pendingFailures(Rpc rpc) {
        synchronized (faults) {
            Deque<Fault> q = faults.get(rpc);
            return q == null ? 0 : q.size();
        }
    }

    /** Every answered call, in the order answered. */
    public List<RecordedCall> calls() {
        synchronized (calls) {
            return List.copyOf(calls);
        }
    }

    /** The answered calls of {@code rpc}, in order. */
    public List<RecordedCall> calls(Rpc rpc) {
        return calls().stream().filter(c -> c.rpc() == rpc).toList();
    }

    /** Forgets the recorded calls. */
    public void clearCalls() {
        synchronized (calls) {
            calls.clear();
        }
    }

    private Fault nextFault(Rpc rpc) {
        synchronized (faults) {
            Deque<Fault> q = faults.get(rpc);
            return q == null ? null : q.poll();
        }
    }

    private java.time.Duration latencyOf(Rpc rpc) {
        synchronized (latency) {
            return latency.getOrDefault(rpc, java.time.Duration.ZERO);
        }
    }

    private static Rpc rpcOf(ServerCall<?, ?> call) {
        var method = call.getMethodDescriptor();
        for (Rpc rpc : Rpc.values()) {
            if (rpc.fullMethodName().equals(method.getFullMethodName())) {
                return rpc;
            }
        }
        return null;
    }

    @Override
    public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
                                                       ServerCallHandler<Q, A> next) {
        Rpc rpc = rpcOf(call);
        if (rpc == null) {
            return next.startCall(call, headers);
        }
        RecordingCall<Q, A> recording = new RecordingCall<>(call, rpc);
        call.request(1);
        return new DeferredListener<>(recording, headers, next);
    }

    /** Shuts the scheduler for delayed calls down. */
    @Override
    public void close() {
        scheduler.shutdownNow();
    }

    /** Records the answer and applies info violations to what the driver answered. */
    private final class RecordingCall<Q, A> extends ForwardingServerCall.SimpleForwardingServerCall<Q, A> {
        private final Rpc rpc;
        private final Instant started = Instant.now();
        private volatile String request = "";
        private volatile boolean injected;

        RecordingCall(ServerCall<Q, A> delegate, Rpc rpc) {
            super(delegate);
            this.rpc = rpc;
        }

        @Override
        @SuppressWarnings("unchecked")
        public void sendMessage(A message) {
            InfoViolation violation = infoViolation;
            if (rpc == Rpc.GET_VOLUME_REPLICATION_INFO && violation != InfoViolation.NONE
                    && message instanceof GetVolumeReplicationInfoResponse info) {
                GetVolumeReplicationInfoResponse.Builder b = info.toBuilder();
                switch (violation) {
                    case MISSING_LAST_SYNC_TIME -> b.clearLastSyncTime();
                    case NEGATIVE_LAST_SYNC_BYTES -> b.setLastSyncBytes(-1);
                    case NEGATIVE_LAST_SYNC_DURATION -> b.setLastSyncDuration(Duration.newBuilder().setSeconds(-1));
                    default -> { }
                }
                message = (A) b.build();
            }
            super.sendMessage(message);
        }

        @Override
        public void close(Status status, Metadata trailers) {
            RecordedCall record = new RecordedCall(rpc, request, StatusCode.fromValue(status.getCode().value()),
                    status.getDescription() == null ? "" : status.getDescription(), injected, started, Instant.now());
            synchronized (calls) {
                calls.add(record);
            }
            super.close(status, trailers);
        }
    }

    /**
     * Holds the request until it is complete, then fails it as scripted or, after any latency, starts the
     * real handler and replays the request into it.
     */
    private final class DeferredListener<Q, A> extends ServerCall.Listener<Q> {
        private final RecordingCall<Q, A> call;
        private final Metadata headers;
        private final ServerCallHandler<Q, A> next;
        private Q message;
        private ServerCall.Listener<Q> delegate;
        private boolean cancelled;
        private boolean ready;

        DeferredListener(RecordingCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
            this.call = call;
            this.headers = headers;
            this.next = next;
        }

        @Override
        public synchronized void onMessage(Q m) {
            message = m;
            if (m instanceof MessageOrBuilder proto) {
                call.request = SecretSanitizer.toString(proto);
            }
        }

        @Override
        public void onHalfClose() {
            java.time.Duration delay = latencyOf(call.rpc);
            if (delay.isZero()) {
                proceed();
            } else {
                scheduler.schedule(this::proceed, delay.toNanos(), TimeUnit.NANOSECONDS);
            }
        }

        private synchronized void proceed() {
            if (cancelled) {
                return;
            }
            Fault fault = nextFault(call.rpc);
            if (fault != null) {
                call.injected = true;
                Metadata trailers = new Metadata();
                if (fault.pushback() != null) {
                    trailers.put(RETRY_PUSHBACK, Long.toString(fault.pushback().toMillis()));
                }
                call.close(Status.fromCodeValue(fault.code().value())
                        .withDescription("injected by FakePlugin: " + call.rpc.methodName() + " -> "
                                + fault.code().display()), trailers);
                return;
            }
            delegate = next.startCall(call, headers);
            if (message != null) {
                delegate.onMessage(message);
            }
            delegate.onHalfClose();
            if (ready) {
                delegate.onReady();
            }
        }

        @Override
        public synchronized void onCancel() {
            cancelled = true;
            toDelegate(ServerCall.Listener::onCancel);
        }

        @Override
        public synchronized void onComplete() {
            toDelegate(ServerCall.Listener::onComplete);
        }

        @Override
        public synchronized void onReady() {
            ready = true;       // replayed when the real handler starts later
            toDelegate(ServerCall.Listener::onReady);
        }

        /** Passes an event on to the real handler's listener once it has started; before, there is none. */
        private void toDelegate(Consumer<ServerCall.Listener<Q>> event) {
            if (delegate != null) {
                event.accept(delegate);
            }
        }
    }
}
