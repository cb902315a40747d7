package io.volrep.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.grpc.ObservationGrpcServerInterceptor;
import io.micrometer.observation.ObservationRegistry;
import io.volrep.api.Rpc;
import io.volrep.spi.ReplicationServer;
import io.volrep.spi.ServerCallEvent;
import io.volrep.spi.ServerObserver;
import io.volrep.spi.exec.ExecDriver;
import java.util.Locale;

/**
 * Binds a {@link ReplicationServer} to Micrometer: meters per RPC and code, and (with an
 * {@link ObservationRegistry} that has a tracer) one span per served call, continuing the caller's trace from
 * the request's gRPC metadata through Micrometer's {@link ObservationGrpcServerInterceptor}.
 *
 * <table>
 *   <caption>Server meters (tags: {@code rpc.system}, {@code rpc.service}, {@code rpc.method}, plus those listed)</caption>
 *   <tr><th>name</th><th>type</th><th>extra tags</th><th>meaning</th></tr>
 *   <tr><td>{@code volrep.server.calls}</td><td>timer (percentile histogram)</td>
 *       <td>{@code rpc.grpc.status_code}, {@code volrep.outcome}</td>
 *       <td>served calls; {@code volrep.outcome} is {@code ok}, {@code invalid_request}, {@code source_busy},
 *           {@code driver_error} or {@code driver_failure}</td></tr>
 *   <tr><td>{@code volrep.server.calls.active}</td><td>gauge</td><td>(none)</td><td>calls being served now</td></tr>
 *   <tr><td>{@code volrep.server.aborted}</td><td>counter</td><td></td>
 *       <td>ABORTED answers of the per-source guard (another call for the source was in flight)</td></tr>
 *   <tr><td>{@code volrep.server.driver.failures}</td><td>counter</td><td></td>
 *       <td>driver exceptions and invalid driver answers, answered 2 UNKNOWN</td></tr>
 *   <tr><td>{@code volrep.server.rejections}</td><td>counter</td><td>{@code field}</td>
 *       <td>requests rejected by validation (INVALID_ARGUMENT), by the field named (a path, never a value)</td></tr>
 * </table>
 * With {@link #bindExec(ExecDriver)}, the exec bridge's driver processes too (no RPC tags):
 * {@code volrep.exec.drivers.running}, {@code volrep.exec.drivers.waiting} and {@code volrep.exec.drivers.limit}
 * (gauges), {@code volrep.exec.drivers.killed} (killed at the call's timeout) and {@code volrep.exec.drivers.rejected}
 * (no slot within the call's deadline, answered UNAVAILABLE) (function counters).
 *
 * <pre>{@code
 * ReplicationServer server = VolrepServerMetrics.of(meters, ObservationRegistry.NOOP)
 *         .bind(ReplicationServer.builder().driver(driver).listen("unix:///csi/csi-addons.sock"))
 *         .build().start();
 * }</pre>
 */
public final class VolrepServerMetrics extends ObservedCalls implements ServerObserver {
    static final String CALLS = "volrep.server.calls";
    static final String ACTIVE = "volrep.server.calls.active";
    static final String ABORTED = "volrep.server.aborted";
    static final String DRIVER_FAILURES = "volrep.server.driver.failures";
    static final String REJECTIONS = "volrep.server.rejections";

    private static final ServerCallEvent.Cause[] CAUSES = ServerCallEvent.Cause.values();

    /** Per RPC, code and cause. */
    private final MeterTable<Timer> calls;

    private final MeterTable<Counter> aborted;
    private final MeterTable<Counter> driverFailures;

    private VolrepServerMetrics(MeterRegistry meters, ObservationRegistry observations) {
        super(meters, observations, ACTIVE, "calls being served");
        calls = new MeterTable<>(
                RpcTags.RPC_CODES * CAUSES.length,
                i -> Timer.builder(CALLS)
                        .tags(RpcTags.ofIndex(i / CAUSES.length))
                        .tag("volrep.outcome", CAUSES[i % CAUSES.length].name().toLowerCase(Locale.ROOT))
                        .description("served calls")
                        .publishPercentileHistogram()
                        .register(meters));
        aborted = new MeterTable<>(
                RpcTags.RPC_COUNT,
                rpc -> Counter.builder(ABORTED)
                        .tags(RpcTags.ofOrdinal(rpc))
                        .description("ABORTED answers of the per-source guard")
                        .register(meters));
        driverFailures = new MeterTable<>(
                RpcTags.RPC_COUNT,
                rpc -> Counter.builder(DRIVER_FAILURES)
                        .tags(RpcTags.ofOrdinal(rpc))
                        .description("driver failures answered UNKNOWN")
                        .register(meters));
    }

    /** Meters in {@code meters}; spans through {@code observations} ({@link ObservationRegistry#NOOP} for none). */
    public static VolrepServerMetrics of(MeterRegistry meters, ObservationRegistry observations) {
        return new VolrepServerMetrics(meters, observations);
    }

    /** Registers this observer on {@code builder} and, when tracing, Micrometer's gRPC server interceptor. */
    public ReplicationServer.Builder bind(ReplicationServer.Builder builder) {
        builder.observer(this);
        tracingInterceptor(ObservationGrpcServerInterceptor::new).ifPresent(builder::interceptor);
        return builder;
    }

    /**
     * Also meters {@code driver}'s processes (see the class comment); the driver is read, never held alive by the
     * registry beyond its own life.
     */
    public VolrepServerMetrics bindExec(ExecDriver driver) {
        Gauge.builder("volrep.exec.drivers.running", driver, d -> d.stats().running())
                .description("driver processes running")
                .register(meters);
        Gauge.builder("volrep.exec.drivers.waiting", driver, d -> d.stats().waiting())
                .description("calls waiting for a driver process slot")
                .register(meters);
        Gauge.builder("volrep.exec.drivers.limit", driver, d -> d.stats().limit())
                .description("the bound on concurrent driver processes")
                .register(meters);
        FunctionCounter.builder(
                        "volrep.exec.drivers.killed", driver, d -> d.stats().killedOnTimeout())
                .description("driver processes killed at the call's timeout")
                .register(meters);
        FunctionCounter.builder(
                        "volrep.exec.drivers.rejected", driver, d -> d.stats().rejected())
                .description("calls that found no driver slot within their deadline (UNAVAILABLE)")
                .register(meters);
        return this;
    }

    @Override
    public void onCallStarted(Rpc rpc) {
        active.incrementAndGet();
    }

    @Override
    public void onCallFinished(ServerCallEvent event) {
        active.decrementAndGet();
        Rpc rpc = event.rpc();
        calls.get(RpcTags.index(rpc, event.code()) * CAUSES.length
                        + event.cause().ordinal())
                .record(event.elapsed());
        switch (event.cause()) {
            case SOURCE_BUSY -> aborted.get(rpc.ordinal()).increment();
            case DRIVER_FAILURE -> driverFailures.get(rpc.ordinal()).increment();
            case INVALID_REQUEST ->
                Counter.builder(REJECTIONS)
                        .tags(RpcTags.of(rpc))
                        .tag("field", event.rejectedField().orElse("unknown"))
                        .description("requests rejected by validation, by field")
                        .register(meters)
                        .increment();
            default -> {}
        }
    }
}
