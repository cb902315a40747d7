package io.volrep.client.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.api.ReplicationException;
import io.volrep.client.ReplicationClient;
import io.volrep.client.RetryPolicy;
import io.volrep.testsupport.GrpcCleanup;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 21: the reference plugin in a child JVM ({@link ReferenceChild}) is SIGKILLed under 64 calls in flight and
 * started again on the same unix socket after an outage. With the client's defaults every call completes OK, in
 * order per source, and none is reported done that no incarnation did; a plugin that never comes back fails each
 * call at its total timeout, naming the endpoint.
 */
class RestartTest {
    private static final int VOLUMES = 50;
    private static final int IN_FLIGHT = 64;
    /** Calls completed before the kill, and again after the restart, before the load stops. */
    private static final int LOAD_BEFORE_AND_AFTER = 1_000;

    @TempDir
    Path dir;

    @RegisterExtension
    final GrpcCleanup cleanup = new GrpcCleanup();
    /** Every incarnation started, the current one last (the restarter kills it). */
    private final List<Process> children = new ArrayList<>();

    /** What one run saw. */
    record Run(int calls, int failed, List<Throwable> failures) {}

    @ParameterizedTest(name = "plugin down for {0} ms")
    @ValueSource(longs = {500, 2_000, 10_000})
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void everyCallRidesOverARestartWithTheDefaults(long outageMillis) throws Exception {
        Run run = restartUnderLoad(RetryPolicy.spec(), Duration.ofMillis(outageMillis));
        assertThat(run.failures()).as("failed calls").isEmpty();
        assertThat(run.calls()).isGreaterThan(IN_FLIGHT);
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void failFastTradesFailuresForPromptness() throws Exception {
        // Measured, not asserted beyond completion: the figure docs/reliability.md quotes for --fail-fast.
        restartUnderLoad(RetryPolicy.spec().toBuilder().failFast(true).build(), Duration.ofSeconds(2));
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void aPluginThatNeverReturnsFailsEachCallAtItsTotalTimeoutNamingTheEndpoint() throws Exception {
        Path socket = dir.resolve("gone.sock");
        Process plugin = start(socket);
        RetryPolicy policy = RetryPolicy.spec().toBuilder()
                .totalTimeout(Duration.ofSeconds(3))
                .perAttemptTimeout(Duration.ofSeconds(1))
                .build();
        try (ReplicationClient client = ReplicationClient.builder()
                .target("unix://" + socket)
                .retry(policy)
                .build()) {
            client.volume("vol-0").enable().call();
            plugin.destroyForcibly();
            plugin.waitFor(5, TimeUnit.MINUTES);
            long start = System.nanoTime();
            List<CompletableFuture<Long>> calls = new ArrayList<>();
            for (int i = 0; i < IN_FLIGHT; i++) {
                calls.add(client.volume("vol-" + i).enable().callAsync().handle((v, t) -> {
                    assertThat(t).isInstanceOf(CompletionException.class);
                    assertThat(t.getCause())
                            .isInstanceOf(ReplicationException.class)
                            .hasMessageContaining("unix://" + socket);
                    return (System.nanoTime() - start) / 1_000_000;
                }));
            }
            for (CompletableFuture<Long> call : calls) {
                assertThat(call.get(5, TimeUnit.MINUTES)).isBetween(2_900L, 8_000L);
            }
        }
    }

    private Run restartUnderLoad(RetryPolicy policy, Duration outage) throws Exception {
        Path socket = dir.resolve("ref.sock");
        List<Path> opLogs = new ArrayList<>();
        start(socket, opLogs); // the restarter below kills the newest of children and starts the next
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        Map<String, List<Integer>> completedPerVolume = new ConcurrentHashMap<>();
        List<Integer> succeeded = new ArrayList<>();
        List<CompletableFuture<Void>> all = new ArrayList<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger completed = new AtomicInteger();
        long began = System.nanoTime();
        try (ReplicationClient client = ReplicationClient.builder()
                .target("unix://" + socket)
                .retry(policy)
                .build()) {
            Semaphore inFlight = new Semaphore(IN_FLIGHT);
            Thread restarter = new Thread(
                    () -> {
                        try {
                            // Kill with calls completing at full speed, restart, and keep the load on until the new
                            // incarnation has served as many again.
                            awaitCompleted(completed, LOAD_BEFORE_AND_AFTER);
                            children.get(children.size() - 1).destroyForcibly().waitFor(5, TimeUnit.MINUTES);
                            int atKill = completed.get();
                            Thread.sleep(outage.toMillis());
                            start(socket, opLogs);
                            awaitCompleted(completed, atKill + LOAD_BEFORE_AND_AFTER);
                        } catch (Exception e) {
                            failures.add(e);
                        } finally {
                            stop.set(true);
                        }
                    },
                    "restarter");
            restarter.start();
            for (int op = 0; !stop.get(); op++) {
                String volume = "vol-" + (op % VOLUMES);
                inFlight.acquire();
                int n = op;
                all.add(client.volume(volume)
                        .enable()
                        .parameter(ReferenceChild.OP_PARAMETER, "" + op)
                        .callAsync()
                        .whenComplete((v, t) -> {
                            if (t == null) {
                                completedPerVolume.computeIfAbsent(volume, k -> new ArrayList<>());
                                synchronized (succeeded) {
                                    succeeded.add(n);
                                    completedPerVolume.get(volume).add(n);
                                }
                            } else {
                                failures.add(t);
                            }
                            completed.incrementAndGet();
                            inFlight.release();
                        }));
            }
            restarter.join();
            CompletableFuture.allOf(all.toArray(CompletableFuture[]::new))
                    .handle((v, t) -> null)
                    .get(5, TimeUnit.MINUTES);
        }
        double seconds = (System.nanoTime() - began) / 1e9;
        System.out.printf(
                Locale.ROOT,
                "restart: plugin down for %d ms, failFast=%s: %,d calls in %.1f s, %d failed%n",
                outage.toMillis(),
                policy.failFast(),
                all.size(),
                seconds,
                failures.size());

        // In order per source, as the client completed them ...
        completedPerVolume.forEach((volume, ops) -> assertThat(ops).as(volume).isSorted());
        // ... and as the plugin's incarnations applied them (a retried op whose answer was lost repeats).
        Map<String, List<Integer>> appliedPerVolume = new HashMap<>();
        Set<Integer> applied = new HashSet<>();
        for (Path log : opLogs) {
            for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
                String[] f = line.split(" ");
                int op = Integer.parseInt(f[0]);
                applied.add(op);
                appliedPerVolume.computeIfAbsent(f[2], k -> new ArrayList<>()).add(op);
            }
        }
        appliedPerVolume.forEach((volume, ops) -> assertThat(ops).as(volume).isSorted());
        synchronized (succeeded) {
            for (int op : succeeded) {
                assertThat(applied).as("operation %d was reported done", op).contains(op);
            }
        }
        return new Run(all.size(), failures.size(), List.copyOf(failures));
    }

    private static void awaitCompleted(AtomicInteger completed, int n) throws InterruptedException {
        long give = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        while (completed.get() < n && System.nanoTime() < give) {
            Thread.sleep(10);
        }
    }

    private Process start(Path socket, List<Path> opLogs) throws Exception {
        Path opLog = dir.resolve("ops-" + (opLogs.size() + 1) + ".log");
        opLogs.add(opLog);
        Process p = cleanup.register(
                ReferenceChild.start(socket, opLog, VOLUMES, dir.resolve("child-" + opLogs.size() + ".err")));
        children.add(p);
        return p;
    }

    private Process start(Path socket) throws Exception {
        return start(socket, new ArrayList<>());
    }
}
