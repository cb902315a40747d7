package io.volrep.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.spi.ReplicationServer;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testkit.reference.ReferencePlugin;
import io.volrep.testsupport.GrpcCleanup;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link ResyncCall#onPoll}: every answer of awaitReady, with the delay before the next poll (progress displays). */
class ResyncPollListenerTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    record Poll(int poll, boolean ready, boolean nextPoll) {}

    /** Runs {@code test} against a reference plugin whose demoted vol-0 is ready on the {@code readyOn}th resync. */
    private void withDemotedVolume(int readyOn, Consumer<ReplicationClient> test) {
        ReferenceDriver driver = ReferenceDriver.builder()
                .volumes(1)
                .resyncCallsUntilReady(readyOn)
                .build();
        ReplicationServer server = grpc.register(ReferencePlugin.start(driver, "inprocess:polls-" + System.nanoTime()));
        ReplicationClient client = grpc.register(ReplicationClient.builder()
                .target(server.address())
                .retry(RetryBehaviourTest.FAST)
                .build());
        client.volume("vol-0").enable().call();
        client.volume("vol-0").demote().call();
        test.accept(client);
    }

    @Test
    void everyPollIsReportedWithItsNextDelay() {
        withDemotedVolume(3, client -> {
            List<Poll> polls = new CopyOnWriteArrayList<>();
            ResyncStatus status = client.volume("vol-0")
                    .resync()
                    .onPoll((poll, s, next) -> polls.add(new Poll(poll, s.ready(), next.isPresent())))
                    .awaitReadyBlocking(Duration.ofSeconds(30));
            assertThat(status.ready()).isTrue();
            assertThat(polls)
                    .containsExactly(new Poll(1, false, true), new Poll(2, false, true), new Poll(3, true, false));
        });
    }

    @Test
    void aListenerThatThrowsDoesNotBreakTheWait() {
        withDemotedVolume(
                2,
                client -> assertThat(client.volume("vol-0")
                                .resync()
                                .onPoll((poll, s, next) -> {
                                    throw new IllegalStateException("a broken display");
                                })
                                .awaitReadyBlocking(Duration.ofSeconds(30))
                                .ready())
                        .isTrue());
    }
}
