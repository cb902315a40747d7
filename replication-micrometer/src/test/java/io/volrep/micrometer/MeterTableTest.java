package io.volrep.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.client.CallObservation;
import io.volrep.spi.ServerCallEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The meters are registered once per tag combination and reused: every RPC x code x source kind (client) and
 * RPC x code x cause (server) lands on the meter carrying exactly its own tags, and a second round of calls adds
 * to the same meters instead of registering new ones.
 */
class MeterTableTest {
    private static final List<Optional<ReplicationSource>> SOURCES = List.of(
            Optional.empty(),
            Optional.of(ReplicationSource.volume("vol-0")),
            Optional.of(ReplicationSource.volumeGroup("grp-0")),
            Optional.of(ReplicationSource.volumeSnapshot("snap-0")));
    /** The {@code volrep.source.kind} tag of each of {@link #SOURCES}. */
    private static final List<String> KINDS = List.of("none", "volume", "volume_group", "volume_snapshot");

    @Test
    void everyClientCombinationHasItsOwnMeterAndKeepsIt() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        VolrepClientMetrics metrics = VolrepClientMetrics.of(registry, ObservationRegistry.NOOP);
        for (int round = 1; round <= 2; round++) {
            for (Rpc rpc : Rpc.values()) {
                for (StatusCode code : StatusCode.values()) {
                    for (Optional<ReplicationSource> source : SOURCES) {
                        CallObservation call = metrics.onCall(rpc, source);
                        call.onStarted(Duration.ofMillis(1));
                        call.onFinished(code, code.value() + 1);
                    }
                }
            }
            List<Meter> meters = new ArrayList<>(registry.getMeters());
            int combinations = Rpc.values().length * StatusCode.values().length;
            assertThat(registry.find(VolrepClientMetrics.CALLS).timers()).hasSize(combinations * SOURCES.size());
            assertThat(registry.find(VolrepClientMetrics.ATTEMPTS).summaries()).hasSize(combinations);
            assertThat(registry.find(VolrepClientMetrics.WAIT).timers()).hasSize(Rpc.values().length);
            for (Rpc rpc : Rpc.values()) {
                assertThat(registry.get(VolrepClientMetrics.WAIT)
                                .tags(RpcTags.METHOD, rpc.methodName(), RpcTags.SERVICE, rpc.service())
                                .timer()
                                .count())
                        .isEqualTo((long) round * StatusCode.values().length * SOURCES.size());
                for (StatusCode code : StatusCode.values()) {
                    for (String kind : KINDS) {
                        Timer calls = registry.get(VolrepClientMetrics.CALLS)
                                .tags(
                                        RpcTags.SERVICE,
                                        rpc.service(),
                                        RpcTags.METHOD,
                                        rpc.methodName(),
                                        RpcTags.STATUS_CODE,
                                        Integer.toString(code.value()),
                                        RpcTags.SOURCE_KIND,
                                        kind)
                                .timer();
                        assertThat(calls.count())
                                .as("%s %s %s", rpc, code, kind)
                                .isEqualTo(round);
                    }
                    assertThat(registry.get(VolrepClientMetrics.ATTEMPTS)
                                    .tags(
                                            RpcTags.METHOD,
                                            rpc.methodName(),
                                            RpcTags.SERVICE,
                                            rpc.service(),
                                            RpcTags.STATUS_CODE,
                                            Integer.toString(code.value()))
                                    .summary()
                                    .totalAmount())
                            .isEqualTo((double) round * SOURCES.size() * (code.value() + 1));
                }
            }
            assertThat(registry.getMeters()).containsExactlyInAnyOrderElementsOf(meters);
        }
    }

    @Test
    void everyServerCombinationHasItsOwnMeter() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        VolrepServerMetrics metrics = VolrepServerMetrics.of(registry, ObservationRegistry.NOOP);
        for (int round = 1; round <= 2; round++) {
            for (Rpc rpc : Rpc.values()) {
                for (StatusCode code : StatusCode.values()) {
                    for (ServerCallEvent.Cause cause : ServerCallEvent.Cause.values()) {
                        metrics.onCallStarted(rpc);
                        metrics.onCallFinished(new ServerCallEvent(
                                rpc, code, Duration.ofMillis(code.value()), cause, Optional.empty()));
                    }
                }
            }
            assertThat(registry.find(VolrepServerMetrics.CALLS).timers())
                    .hasSize(Rpc.values().length * StatusCode.values().length * ServerCallEvent.Cause.values().length);
            for (Rpc rpc : Rpc.values()) {
                for (StatusCode code : StatusCode.values()) {
                    for (ServerCallEvent.Cause cause : ServerCallEvent.Cause.values()) {
                        Timer calls = registry.get(VolrepServerMetrics.CALLS)
                                .tags(
                                        RpcTags.SERVICE,
                                        rpc.service(),
                                        RpcTags.METHOD,
                                        rpc.methodName(),
                                        RpcTags.STATUS_CODE,
                                        Integer.toString(code.value()),
                                        "volrep.outcome",
                                        cause.name().toLowerCase(Locale.ROOT))
                                .timer();
                        assertThat(calls.count())
                                .as("%s %s %s", rpc, code, cause)
                                .isEqualTo(round);
                        assertThat(calls.totalTime(TimeUnit.MILLISECONDS)).isEqualTo((double) round * code.value());
                    }
                }
                long perRpc = (long) round * StatusCode.values().length;
                assertThat(registry.get(VolrepServerMetrics.ABORTED)
                                .tags(RpcTags.METHOD, rpc.methodName(), RpcTags.SERVICE, rpc.service())
                                .counter()
                                .count())
                        .isEqualTo((double) perRpc);
                assertThat(registry.get(VolrepServerMetrics.DRIVER_FAILURES)
                                .tags(RpcTags.METHOD, rpc.methodName(), RpcTags.SERVICE, rpc.service())
                                .counter()
                                .count())
                        .isEqualTo((double) perRpc);
            }
        }
    }
}
