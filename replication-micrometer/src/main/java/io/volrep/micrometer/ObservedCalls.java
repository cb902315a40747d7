package io.volrep.micrometer;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * What {@link VolrepClientMetrics} and {@link VolrepServerMetrics} share: the two registries, the gauge of calls in
 * flight, and Micrometer's gRPC interceptor, which is added only when tracing (without a tracer it would only cost
 * time per attempt).
 *
 * <pre>{@code
 * builder.observer(this);
 * tracingInterceptor(ObservationGrpcClientInterceptor::new).ifPresent(builder::interceptor);
 * }</pre>
 */
abstract class ObservedCalls {
    final MeterRegistry meters;
    final ObservationRegistry observations;
    /** Calls in flight now, the value of the gauge named by the subclass. */
    final AtomicLong active = new AtomicLong();

    ObservedCalls(MeterRegistry meters, ObservationRegistry observations, String activeName, String activeMeaning) {
        this.meters = Objects.requireNonNull(meters, "meters");
        this.observations = Objects.requireNonNull(observations, "observations");
        Gauge.builder(activeName, active, AtomicLong::get)
                .description(activeMeaning)
                .register(meters);
    }

    /** Micrometer's gRPC interceptor over {@link #observations}, or none when there is nothing to trace into. */
    final <I> Optional<I> tracingInterceptor(Function<ObservationRegistry, I> interceptor) {
        return observations.isNoop() ? Optional.empty() : Optional.of(interceptor.apply(observations));
    }
}
