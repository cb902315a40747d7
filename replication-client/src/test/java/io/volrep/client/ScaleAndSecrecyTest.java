package io.volrep.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.volrep.api.Rpc;
import io.volrep.api.UnauthenticatedException;
import io.volrep.client.ScriptedPlugin.Outcome;
import io.volrep.proto.replication.PromoteVolumeRequest;
import io.volrep.testsupport.GrpcCleanup;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class ScaleAndSecrecyTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    @Test
    void threadCountStaysFlatDuringAThousandConcurrentBackOffs() throws Exception {
        Set<String> failedOnce = ConcurrentHashMap.newKeySet();
        AtomicInteger backingOff = new AtomicInteger();
        ScriptedPlugin plugin = grpc.register(ScriptedPlugin.inProcess());
        ReplicationClient client = grpc.register(ReplicationClient.builder()
                .target(plugin.target())
                .retry(RetryPolicy.spec().toBuilder()
                        .jitter(RetryPolicy.Jitter.NONE)
                        .initialBackoff(Duration.ofMillis(1500))
                        .build())
                .listener(e -> {
                    if (e.willRetry()) {
                        backingOff.incrementAndGet();
                    }
                })
                .build());
        plugin.byDefault(Rpc.PROMOTE_VOLUME, request -> {
            String id = ((PromoteVolumeRequest) request)
                    .getReplicationSource()
                    .getVolume()
                    .getVolumeId();
            return failedOnce.add(id) ? Outcome.fail(Status.Code.ABORTED) : Outcome.ok();
        });
        client.volume("warm-up").info();
        int baseline = ManagementFactory.getThreadMXBean().getThreadCount();

        List<CompletableFuture<Void>> calls = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            calls.add(client.volume("vol-" + i).promote().callAsync());
        }
        long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        while (backingOff.get() < 1000 && System.nanoTime() < end) {
            Thread.sleep(10);
        }
        assertThat(backingOff).as("all 1,000 calls are waiting in back-off").hasValue(1000);
        int during = ManagementFactory.getThreadMXBean().getThreadCount();
        assertThat(calls).noneMatch(CompletableFuture::isDone);

        CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES);
        assertThat(plugin.calls(Rpc.PROMOTE_VOLUME)).hasSize(2000);
        assertThat(during).as("threads during 1,000 back-offs vs before").isLessThanOrEqualTo(baseline + 4);
        assertThat(client.activeSources()).isZero();
    }

    @SuppressWarnings("ObjectToString") // proves that printing a call object shows no secret, whoever prints it
    @Test
    void secretsNeverReachLogsExceptionsOrToString() throws Exception {
        String secret = "s3cr3t-Passw0rd";
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        List<String> described = new ArrayList<>();
        Throwable failure;
        String clientText;
        try (ScriptedPlugin plugin = ScriptedPlugin.inProcess();
                ReplicationClient client = ReplicationClient.builder()
                        .target(plugin.target())
                        .retry(RetryBehaviourTest.FAST)
                        .secrets(SecretsProvider.of(Map.of("password", secret)))
                        .listener(e -> described.add(e.describe() + " " + e))
                        .build()) {
            plugin.script(
                    Rpc.PROMOTE_VOLUME,
                    Outcome.fail(Status.Code.ABORTED),
                    Outcome.fail(Status.Code.UNAUTHENTICATED, "password " + secret + " was rejected"));
            failure = Assertions.catchThrowable(
                    () -> client.volume("vol-1").promote().call());
            plugin.script(Rpc.DEMOTE_VOLUME, Outcome.fail(Status.Code.UNKNOWN, "backend said " + secret));
            Throwable second = Assertions.catchThrowable(() -> client.volume("vol-1")
                    .demote()
                    .secrets(Map.of("password", secret))
                    .call());
            assertThat(second.getMessage()).doesNotContain(secret).contains("backend said ***");
            clientText = client + " " + SecretsProvider.of(Map.of("password", secret)) + " "
                    + client.volume("vol-1").promote().secrets(Map.of("password", secret));
            assertThat(plugin.calls(Rpc.PROMOTE_VOLUME).get(0).secrets()).containsEntry("password", secret);
        } finally {
            System.setErr(original);
        }
        String logs = captured.toString(StandardCharsets.UTF_8);
        assertThat(logs).as("debug logs were captured").contains("PromoteVolume volume vol-1 attempt 1: 10 ABORTED");
        assertThat(logs).doesNotContain(secret);
        assertThat(failure).isInstanceOf(UnauthenticatedException.class);
        assertThat(failure.getMessage()).doesNotContain(secret).contains("password *** was rejected");
        assertThat(failure.toString()).doesNotContain(secret);
        assertThat(String.join("\n", described)).doesNotContain(secret);
        assertThat(clientText).doesNotContain(secret);
    }
}
