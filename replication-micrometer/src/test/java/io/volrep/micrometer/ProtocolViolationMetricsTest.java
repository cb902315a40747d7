package io.volrep.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.volrep.api.ProtocolViolationException;
import io.volrep.client.ReplicationClient;
import io.volrep.testkit.fake.FakePlugin;
import io.volrep.testkit.fake.InfoViolation;
import io.volrep.testsupport.GrpcCleanup;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A plugin that answers OK with a response breaking the spec's answer rules is a protocol violation in the meters
 * and the trace, as it is for the caller (issue 48, item 1): never a 100 % success rate in Micrometer.
 */
class ProtocolViolationMetricsTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    @Test
    void theMetersAndTheCallsObservationSeeTheViolationNotAnOk() {
        FakePlugin plugin = grpc.register(FakePlugin.builder().volumes(1).start());
        MeterRegistry meters = new SimpleMeterRegistry();
        TracingTest.Recorder spans = new TracingTest.Recorder();
        ObservationRegistry observations = ObservationRegistry.create();
        observations.observationConfig().observationHandler(spans);
        ReplicationClient client = grpc.register(VolrepClientMetrics.of(meters, observations)
                .bind(ReplicationClient.builder().target(plugin.address()))
                .build());
        client.volume("vol-0").enable().call();
        client.volume("vol-0").promote().call();
        plugin.violateInfo(InfoViolation.MISSING_LAST_SYNC_TIME);

        assertThatThrownBy(() -> client.volume("vol-0").info()).isInstanceOf(ProtocolViolationException.class);

        String method = "GetVolumeReplicationInfo";
        assertThat(meters.find(VolrepClientMetrics.CALLS)
                        .tags(RpcTags.METHOD, method, RpcTags.STATUS_CODE, "0")
                        .timer())
                .as("no OK series for the violation")
                .isNull();
        assertThat(meters.get(VolrepClientMetrics.CALLS)
                        .tags(RpcTags.METHOD, method, RpcTags.STATUS_CODE, "2")
                        .timer()
                        .count())
                .isEqualTo(1);
        assertThat(meters.get(VolrepClientMetrics.ATTEMPTS)
                        .tags(RpcTags.METHOD, method, RpcTags.STATUS_CODE, "2")
                        .summary()
                        .totalAmount())
                .as("one attempt, not retried")
                .isEqualTo(1.0);
        assertThat(meters.find(VolrepClientMetrics.RETRIES)
                        .tags(RpcTags.METHOD, method)
                        .counters())
                .isEmpty();
        List<Observation.Context> infoCalls = spans.started.stream()
                .filter(c -> c.getName().equals(VolrepClientMetrics.CALL_OBSERVATION))
                .filter(c -> c.getContextualName().endsWith("/" + method))
                .toList();
        assertThat(infoCalls)
                .singleElement()
                .satisfies(c -> assertThat(
                                c.getLowCardinalityKeyValue(RpcTags.STATUS_CODE).getValue())
                        .isEqualTo("2"));
    }
}
