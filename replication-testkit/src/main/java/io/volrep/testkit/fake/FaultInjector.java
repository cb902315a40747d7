package io.volrep.testkit.fake;

import com.google.protobuf.Duration;
import com.google.protobuf.MessageOrBuilder;
import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.volrep.api.ReplicationSource;
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
import java.util.concurrent.CopyOnWriteArrayList;
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
 *
 * <p><b>Refusal windows</b> play real storage's guards, which refuse a request for a while after a state change and
 * then accept it: a promote right after the peer site's demote (Ceph RBD: for seconds, until the demotion has
 * arrived), an info right after an enable or a promote (until the first sync completed). A window refuses the calls
 * of one RPC for one source, either the first {@code n} of them or every one for a while, and never a request that
 * carries {@code force = true}: force is how a caller overrides such a guard.
 * <pre>{@code
 * // a site that refuses the first 2 unforced promotes of a source after each demote of it
 * faults.refuseAfter(Rpc.DEMOTE_VOLUME, Rpc.PROMOTE_VOLUME, StatusCode.FAILED_PRECONDITION, Window.calls(2));
 * // two sites: site A's demote opens the window on site B, for the same id
 * siteA.onAnswered(Rpc.DEMOTE_VOLUME, source -> siteB.refuse(Rpc.PROMOTE_VOLUME, source, StatusCode.ABORTED,
 *         Window.lasting(Duration.ofSeconds(2))));
 * }</pre>
 */
public final class FaultInjector implements ServerInterceptor, AutoCloseable {
    /** The trailer gRPC clients read as "retry after this many milliseconds". */
    public static final Metadata.Key<String> RETRY_PUSHBACK =
            Metadata.Key.of("grpc-retry-pushback-ms", Metadata.ASCII_STRING_MARSHALLER);

    private record Fault(StatusCode code, java.time.Duration pushback) {}

    /**
     * How long a refusal window lasts: the first {@code calls} calls it applies to, or every such call for
     * {@code lasting} from the moment it opens.
     *
     * <pre>{@code
     * FaultInjector.Window.calls(3);
     * FaultInjector.Window.lasting(Duration.ofSeconds(2));
     * }</pre>
     *
     * @param calls   how many calls it refuses; 0 when it lasts a time
     * @param lasting how long it refuses; null when it counts calls
     */
    public record Window(int calls, java.time.Duration lasting) {
        public Window {
            if ((lasting == null) == (calls <= 0)
                    || (lasting != null && (calls != 0 || lasting.isNegative() || lasting.isZero()))) {
                throw new IllegalArgumentException("a window refuses a positive number of calls or lasts a positive"
                        + " time, got calls=" + calls + ", lasting=" + lasting);
            }
        }

        /** The first {@code n} calls (at least 1). */
        public static Window calls(int n) {
            return new Window(n, null);
        }

        /** Every call for {@code duration} (positive). */
        public static Window lasting(java.time.Duration duration) {
            return new Window(0, Objects.requireNonNull(duration, "duration"));
        }
    }

    /** An open window: for {@code rpc} and {@code source} (null: any), {@code left} calls or until {@code until}. */
    private static final class Refusal {
        final Rpc rpc;
        final ReplicationSource source;
        final StatusCode code;
        int left;
        final long until;

        Refusal(Rpc rpc, ReplicationSource source, StatusCode code, Window window) {
            this.rpc = rpc;
            this.source = source;
            this.code = code;
            this.left = window.calls();
            this.until = window.lasting() == null
                    ? 0
                    : System.nanoTime() + window.lasting().toNanos();
        }

        boolean open() {
            return until == 0 ? left > 0 : System.nanoTime() - until < 0;
        }

        boolean covers(Rpc rpc, ReplicationSource source) {
            return this.rpc == rpc && (this.source == null || this.source.equals(source));
        }
    }

    /** A hook run after each call of {@code rpc} answered OK. */
    private record Hook(Rpc rpc, Consumer<ReplicationSource> action) {}

    private final Map<Rpc, Deque<Fault>> faults = new EnumMap<>(Rpc.class);
    private final Map<Rpc, java.time.Duration> latency = new EnumMap<>(Rpc.class);
    private final List<RecordedCall> calls = new ArrayList<>();
    private final List<Refusal> refusals = new ArrayList<>();
    private final List<Hook> hooks = new CopyOnWriteArrayList<>();
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

    /**
     * Opens a refusal window now: the calls of {@code rpc} for {@code source} (null: for any source) that do not
     * carry {@code force = true} fail with {@code code} within {@code window}; the driver never sees them. A window
     * opened for the same RPC and source replaces the one open before.
     *
     * <pre>{@code
     * faults.refuse(Rpc.GET_VOLUME_REPLICATION_INFO, ReplicationSource.volume("vol-0"), StatusCode.NOT_FOUND,
     *         FaultInjector.Window.lasting(Duration.ofSeconds(3)));       // "details not available at the moment"
     * }</pre>
     */
    public FaultInjector refuse(Rpc rpc, ReplicationSource source, StatusCode code, Window window) {
        Objects.requireNonNull(rpc, "rpc");
        Objects.requireNonNull(window, "window");
        if (Objects.requireNonNull(code, "code") == StatusCode.OK) {
            throw new IllegalArgumentException("a refusal needs an error code, got OK");
        }
        synchronized (refusals) {
            refusals.removeIf(r -> r.rpc == rpc && Objects.equals(r.source, source));
            refusals.add(new Refusal(rpc, source, code, window));
        }
        return this;
    }

    /**
     * After each call of {@code trigger} answered OK here, opens a window ({@link #refuse}) for {@code rpc} and the
     * trigger's source.
     *
     * <pre>{@code
     * faults.refuseAfter(Rpc.PROMOTE_VOLUME, Rpc.GET_VOLUME_REPLICATION_INFO, StatusCode.NOT_FOUND,
     *         FaultInjector.Window.calls(2));                             // no sync completed yet after a promote
     * }</pre>
     */
    public FaultInjector refuseAfter(Rpc trigger, Rpc rpc, StatusCode code, Window window) {
        Objects.requireNonNull(rpc, "rpc");
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(window, "window");
        return onAnswered(trigger, source -> refuse(rpc, source, code, window));
    }

    /**
     * Runs {@code action} with the source of each call of {@code rpc} answered OK here (null for a call that names
     * none), before the answer is sent: to open a window on a peer site's injector, as a demote on one site makes
     * the other refuse promotes for a while.
     */
    public FaultInjector onAnswered(Rpc rpc, Consumer<ReplicationSource> action) {
        hooks.add(new Hook(Objects.requireNonNull(rpc, "rpc"), Objects.requireNonNull(action, "action")));
        return this;
    }

    /** How many refusal windows for {@code rpc} are still open. */
    public int pendingRefusals(Rpc rpc) {
        synchronized (refusals) {
            refusals.removeIf(r -> !r.open());
            return (int) refusals.stream().filter(r -> r.rpc == rpc).count();
        }
    }

    /** Removes scripted failures, refusal windows and their hooks, latency and info violations; keeps the call record. */
    public FaultInjector clearFaults() {
        synchronized (faults) {
            faults.clear();
        }
        synchronized (refusals) {
            refusals.clear();
        }
        hooks.clear();
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

    /** The open window that refuses this call, counted as used; null when none does. */
    private Refusal refusal(Rpc rpc, ReplicationSource source, boolean forced) {
        if (forced) {
            return null;
        }
        synchronized (refusals) {
            refusals.removeIf(r -> !r.open());
            for (Refusal r : refusals) {
                if (r.covers(rpc, source)) {
                    r.left--;
                    return r;
                }
            }
            return null;
        }
    }

    private void runHooks(Rpc rpc, ReplicationSource source) {
        for (Hook hook : hooks) {
            if (hook.rpc() == rpc) {
                hook.action().accept(source);
            }
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
    public <Q, A> ServerCall.Listener<Q> interceptCall(
            ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
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
        private volatile ReplicationSource source;
        private volatile boolean forced;
        private volatile boolean injected;

        RecordingCall(ServerCall<Q, A> delegate, Rpc rpc) {
            super(delegate);
            this.rpc = rpc;
        }

        @Override
        @SuppressWarnings("unchecked")
        public void sendMessage(A message) {
            InfoViolation violation = infoViolation;
            if (rpc == Rpc.GET_VOLUME_REPLICATION_INFO
                    && violation != InfoViolation.NONE
                    && message instanceof GetVolumeReplicationInfoResponse info) {
                GetVolumeReplicationInfoResponse.Builder b = info.toBuilder();
                switch (violation) {
                    case MISSING_LAST_SYNC_TIME -> b.clearLastSyncTime();
                    case NEGATIVE_LAST_SYNC_BYTES -> b.setLastSyncBytes(-1);
                    case NEGATIVE_LAST_SYNC_DURATION ->
                        b.setLastSyncDuration(Duration.newBuilder().setSeconds(-1));
                    default -> {}
                }
                message = (A) b.build();
            }
            super.sendMessage(message);
        }

        @Override
        public void close(Status status, Metadata trailers) {
            if (status.isOk() && !injected) {
                runHooks(rpc, source); // before the answer leaves: the caller's next step sees the window open
            }
            RecordedCall record = new RecordedCall(
                    rpc,
                    request,
                    StatusCode.fromValue(status.getCode().value()),
                    status.getDescription() == null ? "" : status.getDescription(),
                    injected,
                    started,
                    Instant.now());
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
                call.source = RequestReading.sourceOf(proto);
                call.forced = RequestReading.forced(proto);
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
                call.close(
                        Status.fromCodeValue(fault.code().value())
                                .withDescription("injected by FakePlugin: " + call.rpc.methodName() + " -> "
                                        + fault.code().display()),
                        trailers);
                return;
            }
            Refusal refusal = refusal(call.rpc, call.source, call.forced);
            if (refusal != null) {
                call.injected = true;
                call.close(
                        Status.fromCodeValue(refusal.code.value())
                                .withDescription("refused by FakePlugin (a window after a state change): "
                                        + call.rpc.methodName() + " for " + call.source + " -> "
                                        + refusal.code.display()),
                        new Metadata());
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
            ready = true; // replayed when the real handler starts later
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
