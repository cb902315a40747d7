package io.volrep.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.volrep.api.ReplicationException;
import io.volrep.api.StatusCode;
import io.volrep.testkit.fake.RawHttp2Plugin;
import io.volrep.testkit.fake.RawHttp2Plugin.Refuse;
import io.volrep.testkit.fake.RawHttp2Plugin.Script;
import io.volrep.testsupport.GrpcCleanup;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The client's retry loop is the only one: gRPC's own retry layer (its transparent retry of a refused stream) is
 * off, so every request the plugin sees is an attempt the client decided on, reported and counted.
 */
class OneRetryLayerTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    @Test
    void everyRefusedStreamIsAnAttemptTheClientReports() throws Exception {
        RawHttp2Plugin plugin = grpc.register(new RawHttp2Plugin(Script.of(new Refuse())));
        List<AttemptEvent> events = new CopyOnWriteArrayList<>();
        ReplicationClient client = grpc.register(ReplicationClient.builder()
                .target(plugin.target())
                .retry(RetryBehaviourTest.FAST.toBuilder().failFast(true).build())
                .listener(events::add)
                .build());

        ReplicationException e = catchThrowableOfType(
                ReplicationException.class,
                () -> client.volume("vol-0").enable().call());

        assertThat(e.code()).isEqualTo(StatusCode.UNAVAILABLE);
        assertThat(e.attempts()).isEqualTo(RetryBehaviourTest.FAST.maxAttempts());
        assertThat(events).hasSize(e.attempts());
        assertThat(plugin.requests()).as("requests the plugin saw").isEqualTo(e.attempts());
    }

    @Test
    void aRefusedStreamWaitedOnIsRetriedAfterTheConnectionBackOff() throws Exception {
        RawHttp2Plugin plugin = grpc.register(new RawHttp2Plugin(Script.of(new Refuse())));
        List<AttemptEvent> events = new CopyOnWriteArrayList<>();
        ReplicationClient client = grpc.register(ReplicationClient.builder()
                .target(plugin.target())
                .retry(RetryBehaviourTest.FAST.toBuilder()
                        .totalTimeout(Duration.ofSeconds(1))
                        .build())
                .listener(events::add)
                .build());

        ReplicationException e = catchThrowableOfType(
                ReplicationException.class,
                () -> client.volume("vol-0").enable().call());

        // Waiting for the plugin: not counted against maxAttempts, retried (20, 40, 80, 160, 200 ms ...) until the
        // total timeout, which may end the last attempt before its request went out.
        assertThat(e.attempts()).isGreaterThan(RetryBehaviourTest.FAST.maxAttempts());
        assertThat(events).hasSize(e.attempts());
        assertThat(plugin.requests()).as("requests the plugin saw").isBetween(e.attempts() - 1, e.attempts());
    }
}
