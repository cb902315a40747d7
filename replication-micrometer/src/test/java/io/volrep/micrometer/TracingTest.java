package io.volrep.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.inprocess.InProcessServerBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.ReceiverContext;
import io.micrometer.observation.transport.SenderContext;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.client.ReplicationClient;
import io.volrep.client.RetryPolicy;
import io.volrep.spi.ReplicationServer;
import io.volrep.testkit.fake.FaultInjector;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testsupport.GrpcCleanup;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One observation per call with one child per attempt, and the attempt's context carried to the plugin in the
 * gRPC metadata through Observation's propagation API (what a tracer's propagating handler uses).
 */
class TracingTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    private static final String HEADER = "x-test-trace";

    /** Records started observations; on the sending side writes the attempt's id into the carrier, as a tracer does. */
    static final class Recorder implements ObservationHandler<Observation.Context> {
        final List<Observation.Context> started = new CopyOnWriteArrayList<>();
        final List<String> received = new CopyOnWriteArrayList<>();

        @Override
        @SuppressWarnings({"unchecked", "rawtypes"})
        public void onStart(Observation.Context context) {
            started.add(context);
            if (context instanceof SenderContext sender) {
                sender.getSetter().set(sender.getCarrier(), HEADER, "attempt-" + System.identityHashCode(context));
            }
            if (context instanceof ReceiverContext receiver) {
                String value = receiver.getGetter().get(receiver.getCarrier(), HEADER);
                if (value != null) {
                    received.add(value);
                }
            }
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }
    }

    @Test
    void eachCallIsOneObservationWithOneChildPerAttemptPropagatedToThePlugin() {
        Recorder clientSide = new Recorder();
        Recorder serverSide = new Recorder();
        ObservationRegistry clientObservations = ObservationRegistry.create();
        clientObservations.observationConfig().observationHandler(clientSide);
        ObservationRegistry serverObservations = ObservationRegistry.create();
        serverObservations.observationConfig().observationHandler(serverSide);
        String name = InProcessServerBuilder.generateName();
        FaultInjector faults = new FaultInjector();
        grpc.register(VolrepServerMetrics.of(new SimpleMeterRegistry(), serverObservations)
                .bind(ReplicationServer.builder()
                        .driver(ReferenceDriver.builder().volumes(2).build())
                        .interceptor(faults)
                        .listen("inprocess:" + name)
                        .gracePeriod(Duration.ZERO))
                .build()
                .start());
        ReplicationClient client = grpc.register(VolrepClientMetrics.of(new SimpleMeterRegistry(), clientObservations)
                .bind(ReplicationClient.builder()
                        .target("inprocess:" + name)
                        .retry(RetryPolicy.spec().toBuilder()
                                .initialBackoff(Duration.ofMillis(1))
                                .maxBackoff(Duration.ofMillis(2))
                                .build()))
                .build());
        faults.failNext(Rpc.ENABLE_VOLUME_REPLICATION, 1, StatusCode.UNAVAILABLE);

        client.volume("vol-0").enable().call();

        List<Observation.Context> calls = clientSide.started.stream()
                .filter(c -> c.getName().equals(VolrepClientMetrics.CALL_OBSERVATION))
                .toList();
        List<Observation.Context> attempts = clientSide.started.stream()
                .filter(c -> c instanceof SenderContext)
                .toList();
        assertThat(calls).hasSize(1);
        assertThat(calls.get(0).getContextualName()).isEqualTo("replication.Controller/EnableVolumeReplication");
        assertThat(calls.get(0).getLowCardinalityKeyValue(RpcTags.STATUS_CODE).getValue())
                .isEqualTo("0");
        assertThat(attempts).hasSize(2);
        assertThat(attempts)
                .allSatisfy(a ->
                        assertThat(a.getParentObservation().getContextView()).isSameAs(calls.get(0)));
        // Both attempts reached the plugin's interceptors with their own context in the metadata.
        assertThat(serverSide.received)
                .hasSize(2)
                .containsExactlyElementsOf(attempts.stream()
                        .map(a -> "attempt-" + System.identityHashCode(a))
                        .toList());
    }
}
