package io.volrep.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.grpc.ObservationGrpcClientInterceptor;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.client.AttemptEvent;
import io.volrep.client.CallObservation;
import io.volrep.client.CallObserver;
import io.volrep.client.ReplicationClient;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Binds a {@link ReplicationClient} to Micrometer: meters per RPC and final code, and (with an
 * {@link ObservationRegistry} that has a tracer) one span per call with one child span per attempt, the trace
 * context propagated in the attempt's gRPC metadata by Micrometer's {@link ObservationGrpcClientInterceptor}.
 *
 * <table>
 *   <caption>Client meters (tags: {@code rpc.system}, {@code rpc.service}, {@code rpc.method}, plus those listed)</caption>
 *   <tr><th>name</th><th>type</th><th>extra tags</th><th>meaning</th></tr>
 *   <tr><td>{@code volrep.client.calls}</td><td>timer (percentile histogram)</td>
 *       <td>{@code rpc.grpc.status_code}, {@code volrep.source.kind} ({@code none} for the Identity calls)</td>
 *       <td>whole calls, from acceptance to the final outcome, retries and single-flight wait included</td></tr>
 *   <tr><td>{@code volrep.client.call.attempts}</td><td>distribution summary</td><td>{@code rpc.grpc.status_code}</td>
 *       <td>attempts per finished call (0: refused before sending)</td></tr>
 *   <tr><td>{@code volrep.client.retries}</td><td>counter</td><td>{@code rpc.grpc.status_code} (the cause)</td>
 *       <td>retries scheduled, by the code that caused them</td></tr>
 *   <tr><td>{@code volrep.client.singleflight.wait}</td><td>timer</td><td></td>
 *       <td>time a call waited for its source's single-flight slot</td></tr>
 *   <tr><td>{@code volrep.client.singleflight.queued}</td><td>gauge</td><td>(none)</td>
 *       <td>calls waiting for their source's slot now</td></tr>
 *   <tr><td>{@code volrep.client.calls.active}</td><td>gauge</td><td>(none)</td><td>calls in flight now</td></tr>
 * </table>
 * Source ids and secrets are never tag values. One instance may serve several clients (their figures add up).
 *
 * <pre>{@code
 * MeterRegistry meters = new SimpleMeterRegistry();
 * ReplicationClient client = VolrepClientMetrics.of(meters, ObservationRegistry.NOOP)
 *         .bind(ReplicationClient.builder().target("unix:///csi/csi-addons.sock"))
 *         .build();
 * }</pre>
 */
public final class VolrepClientMetrics extends ObservedCalls implements CallObserver {
    static final String CALLS = "volrep.client.calls";
    static final String ATTEMPTS = "volrep.client.call.attempts";
    static final String RETRIES = "volrep.client.retries";
    static final String WAIT = "volrep.client.singleflight.wait";
    static final String QUEUED = "volrep.client.singleflight.queued";
    static final String ACTIVE = "volrep.client.calls.active";
    /** The call's observation (span) name; attempts are Micrometer's {@code grpc.client} observations. */
    static final String CALL_OBSERVATION = "volrep.client.call";
    /** The call observation's event for a failed attempt (its contextual name says which attempt and why). */
    static final String ATTEMPT_EVENT = "attempt";

    private final AtomicLong queued = new AtomicLong();
    private final MeterTable<Timer> waits;
    private final MeterTable<Counter> retries;
    /** Per RPC, code and source kind ({@link RpcTags#kindIndex}). */
    private final MeterTable<Timer> calls;

    private final MeterTable<DistributionSummary> attempts;

    private VolrepClientMetrics(MeterRegistry meters, ObservationRegistry observations) {
        super(meters, observations, ACTIVE, "calls in flight");
        waits = new MeterTable<>(
                RpcTags.RPC_COUNT,
                rpc -> Timer.builder(WAIT)
                        .tags(RpcTags.ofOrdinal(rpc))
                        .description("time a call waited for its source's single-flight slot")
                        .register(meters));
        retries = new MeterTable<>(
                RpcTags.RPC_CODES,
                i -> Counter.builder(RETRIES)
                        .tags(RpcTags.ofIndex(i))
                        .description("retries scheduled, by the code that caused them")
                        .register(meters));
        calls = new MeterTable<>(
                RpcTags.RPC_CODES * RpcTags.KIND_COUNT,
                i -> Timer.builder(CALLS)
                        .tags(RpcTags.ofIndex(i / RpcTags.KIND_COUNT))
                        .tag(RpcTags.SOURCE_KIND, RpcTags.kindName(i % RpcTags.KIND_COUNT))
                        .description("whole calls: acceptance to final outcome, retries included")
                        .publishPercentileHistogram()
                        .register(meters));
        attempts = new MeterTable<>(
                RpcTags.RPC_CODES,
                i -> DistributionSummary.builder(ATTEMPTS)
                        .tags(RpcTags.ofIndex(i))
                        .description("attempts per finished call")
                        .register(meters));
        Gauge.builder(QUEUED, queued, AtomicLong::get)
                .description("calls waiting for their source's single-flight slot")
                .register(meters);
    }

    /**
     * Meters in {@code meters}; spans through {@code observations} ({@link ObservationRegistry#NOOP} for none).
     */
    public static VolrepClientMetrics of(MeterRegistry meters, ObservationRegistry observations) {
        return new VolrepClientMetrics(meters, observations);
    }

    /**
     * Registers this observer on {@code builder} and, when tracing, Micrometer's gRPC client interceptor (one
     * observation per attempt, parented to the call's, its context injected into the attempt's metadata).
     */
    public ReplicationClient.Builder bind(ReplicationClient.Builder builder) {
        builder.observer(this);
        tracingInterceptor(ObservationGrpcClientInterceptor::new).ifPresent(builder::interceptor);
        return builder;
    }

    @Override
    public CallObservation onCall(Rpc rpc, Optional<ReplicationSource> source) {
        return new Call(rpc, source);
    }

    private final class Call implements CallObservation {
        private final Rpc rpc;
        private final int kind;
        private final long accepted = System.nanoTime();
        private final Observation observation;
        private boolean started;

        Call(Rpc rpc, Optional<ReplicationSource> source) {
            this.rpc = rpc;
            this.kind = RpcTags.kindIndex(source);
            queued.incrementAndGet();
            if (observations.isNoop()) {
                observation = null;
            } else {
                observation = Observation.createNotStarted(CALL_OBSERVATION, observations)
                        .contextualName(rpc.service() + "/" + rpc.methodName())
                        .lowCardinalityKeyValues(RpcTags.keyValues(rpc))
                        .lowCardinalityKeyValue(RpcTags.SOURCE_KIND, RpcTags.kindName(kind))
                        .start();
            }
        }

        @Override
        public synchronized void onStarted(Duration waited) {
            started = true;
            queued.decrementAndGet();
            active.incrementAndGet();
            waits.get(rpc.ordinal()).record(waited);
        }

        @Override
        public void onAttempt(AttemptEvent event) {
            if (event.willRetry()) {
                retries.get(RpcTags.index(rpc, event.code())).increment();
            }
            if (observation != null && event.code() != StatusCode.OK) {
                // One event name for every attempt: a meter handler makes a counter per name, and the number of
                // attempts is the plugin's answers' doing. The number goes into the contextual name (the trace).
                observation.event(
                        Observation.Event.of(ATTEMPT_EVENT, "attempt " + event.attempt() + ": " + event.describe()));
            }
        }

        @Override
        public Scope openScope() {
            if (observation == null) {
                return Scope.NOOP;
            }
            Observation.Scope scope = observation.openScope();
            return scope::close;
        }

        @Override
        public void onFinished(StatusCode code, int attempts) {
            synchronized (this) {
                if (started) {
                    active.decrementAndGet();
                } else {
                    queued.decrementAndGet();
                }
            }
            int index = RpcTags.index(rpc, code);
            calls.get(index * RpcTags.KIND_COUNT + kind).record(System.nanoTime() - accepted, TimeUnit.NANOSECONDS);
            VolrepClientMetrics.this.attempts.get(index).record(attempts);
            if (observation != null) {
                observation.lowCardinalityKeyValue(RpcTags.STATUS_CODE, RpcTags.code(code));
                if (code != StatusCode.OK) {
                    observation.highCardinalityKeyValue("volrep.attempts", Integer.toString(attempts));
                }
                observation.stop();
            }
        }
    }
}
