package io.volrep.client.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.api.StatusCode;
import io.volrep.client.AttemptEvent;
import io.volrep.client.ReplicationClient;
import io.volrep.client.RetryPolicy;
import io.volrep.spi.ReplicationServer;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testkit.reference.ReferencePlugin;
import io.volrep.testsupport.GrpcCleanup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A plugin restart, end to end over a real unix socket: a call still running when the old plugin's grace period
 * ends reaches the client as 14 UNAVAILABLE (not 1 CANCELLED, which is never retried), and the client retries it
 * until the restarted plugin on the same socket answers OK.
 */
class PluginRestartRetryTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    @TempDir
    Path dir;

    @Test
    void aCallCutByTheGracePeriodIsRetriedAgainstTheRestartedPlugin() throws Exception {
        String listen = "unix://" + dir.resolve("restart.sock");
        // The old plugin is stuck: each call takes a minute, far beyond its grace period.
        ReplicationServer old = grpc.register(ReferencePlugin.serverBuilder(ReferenceDriver.builder()
                        .volumes(1)
                        .latency(Duration.ofMinutes(1))
                        .build())
                .listen(listen)
                .gracePeriod(Duration.ofMillis(300))
                .build()
                .start());
        List<AttemptEvent> attempts = new CopyOnWriteArrayList<>();
        ReplicationClient client = grpc.register(ReplicationClient.builder()
                .target(old.address())
                .retry(RetryPolicy.spec().toBuilder()
                        .maxAttempts(50)
                        .initialBackoff(Duration.ofMillis(50))
                        .maxBackoff(Duration.ofMillis(200))
                        .totalTimeout(Duration.ofSeconds(60))
                        .build())
                .listener(attempts::add)
                .build());
        CompletableFuture<Void> call = client.volume("vol-0").enable().callAsync();
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        while (old.busySources() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(old.busySources()).as("the call reached the old plugin").isEqualTo(1);
        old.close(); // the restart under test: the call in flight is cut at the grace period
        grpc.register(ReferencePlugin.start(ReferenceDriver.builder().volumes(1).build(), listen));
        call.get(5, TimeUnit.MINUTES);
        assertThat(attempts).isNotEmpty();
        assertThat(attempts.get(0).code())
                .as("the first attempt, cut by the grace period")
                .isEqualTo(StatusCode.UNAVAILABLE);
        assertThat(attempts.get(0).willRetry()).isTrue();
        assertThat(attempts.get(attempts.size() - 1).code()).isEqualTo(StatusCode.OK);
    }
}
