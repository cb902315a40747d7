package io.volrep.client.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.api.ReplicationException;
import io.volrep.api.StatusCode;
import io.volrep.client.AttemptEvent;
import io.volrep.client.ReplicationClient;
import io.volrep.client.RetryPolicy;
import io.volrep.testsupport.GrpcCleanup;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reference plugin in a child process ({@link ReferenceChild}), killed with SIGKILL twice in the middle of a
 * run and restarted on the same unix socket each time (with fresh state, as a crashed plugin would come back).
 * Every client operation must complete within its retry budget, succeeding or failing with a clear
 * {@link ReplicationException}; and no operation may be reported done that no incarnation of the plugin did
 * (each incarnation writes the operations it completed to its own log, read after the run).
 */
class FaultTest {
    private static final int VOLUMES = 200;
    private static final int OPERATIONS = 3_000;
    private static final int IN_FLIGHT = 32;
    /** Kill the plugin when this many operations have completed (succeeded or failed). */
    private static final int[] KILL_AFTER = {600, 1_800};

    private static final RetryPolicy POLICY = RetryPolicy.spec().toBuilder()
            .maxAttempts(30)
            .initialBackoff(Duration.ofMillis(50))
            .maxBackoff(Duration.ofMillis(500))
            .perAttemptTimeout(Duration.ofSeconds(5))
            .totalTimeout(Duration.ofSeconds(20))
            .build();

    @TempDir
    Path dir;

    @RegisterExtension
    final GrpcCleanup cleanup = new GrpcCleanup();

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void killedAndRestartedPluginLosesNothingTheClientReportsDone() throws Exception {
        Path socket = dir.resolve("ref.sock");
        List<Path> opLogs = new ArrayList<>();
        Process plugin = startChild(socket, opLogs);

        AtomicInteger completed = new AtomicInteger();
        AtomicInteger failedAttempts = new AtomicInteger();
        Map<Integer, Long> millisToComplete = new ConcurrentHashMap<>();
        Map<Integer, Throwable> failures = new ConcurrentHashMap<>();
        ConcurrentLinkedQueue<Integer> succeeded = new ConcurrentLinkedQueue<>();
        List<CompletableFuture<Void>> all = new ArrayList<>();
        long runStart = System.nanoTime();
        int kills = 0;
        try (ReplicationClient client = ReplicationClient.builder()
                .target("unix://" + socket)
                .retry(POLICY)
                .listener((AttemptEvent e) -> {
                    if (e.code() != StatusCode.OK) {
                        failedAttempts.incrementAndGet();
                    }
                })
                .build()) {
            Semaphore inFlight = new Semaphore(IN_FLIGHT);
            for (int k = 0; k < OPERATIONS; k++) {
                while (kills < KILL_AFTER.length && completed.get() >= KILL_AFTER[kills]) {
                    // SIGKILL: no drain, no socket clean-up; calls in flight see the connection drop.
                    plugin.destroyForcibly();
                    assertThat(plugin.waitFor(5, TimeUnit.MINUTES)).isTrue();
                    kills++;
                    plugin = startChild(socket, opLogs);
                }
                int op = k;
                String volume = "vol-" + (k % VOLUMES);
                boolean enable = (k / VOLUMES) % 2 == 0;
                inFlight.acquire();
                long start = System.nanoTime();
                CompletableFuture<Void> call = enable
                        ? client.volume(volume)
                                .enable()
                                .parameter(ReferenceChild.OP_PARAMETER, "" + op)
                                .callAsync()
                        : client.volume(volume)
                                .disable()
                                .parameter(ReferenceChild.OP_PARAMETER, "" + op)
                                .callAsync();
                all.add(call.whenComplete((v, t) -> {
                    millisToComplete.put(op, (System.nanoTime() - start) / 1_000_000);
                    if (t == null) {
                        succeeded.add(op);
                    } else {
                        failures.put(op, t.getCause() != null ? t.getCause() : t);
                    }
                    completed.incrementAndGet();
                    inFlight.release();
                }));
            }
            CompletableFuture.allOf(all.toArray(CompletableFuture[]::new))
                    .handle((v, t) -> null)
                    .get(5, TimeUnit.MINUTES);
        }
        double seconds = (System.nanoTime() - runStart) / 1e9;
        plugin.destroyForcibly();
        plugin.waitFor(5, TimeUnit.MINUTES);

        // What each incarnation did, by operation.
        Map<Integer, Integer> applied = new HashMap<>();
        for (Path log : opLogs) {
            for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
                applied.merge(Integer.parseInt(line.split(" ")[0]), 1, Integer::sum);
            }
        }
        long appliedMoreThanOnce = applied.values().stream().filter(n -> n > 1).count();
        long failedButApplied =
                failures.keySet().stream().filter(applied::containsKey).count();
        long slowest = millisToComplete.values().stream()
                .mapToLong(Long::longValue)
                .max()
                .orElse(0);
        System.out.printf(
                Locale.ROOT,
                "fault: %,d operations, %d kills (%d incarnations), %.1f s: %,d succeeded, "
                        + "%,d failed (%,d of them applied by the plugin), %,d failed attempts retried or reported, "
                        + "%,d operations applied twice (answer lost in a kill, retried), slowest %,d ms%n",
                OPERATIONS,
                kills,
                opLogs.size(),
                seconds,
                succeeded.size(),
                failures.size(),
                failedButApplied,
                failedAttempts.get(),
                appliedMoreThanOnce,
                slowest);

        assertThat(kills).isEqualTo(KILL_AFTER.length);
        assertThat(all).allMatch(CompletableFuture::isDone);
        assertThat(succeeded.size() + failures.size()).isEqualTo(OPERATIONS);
        // The kills did hit calls in flight (else this test proves nothing).
        assertThat(failedAttempts.get()).isPositive();
        // Within the retry budget: the total timeout, plus one attempt's deadline, plus scheduling slack (the
        // operation's time includes waiting behind earlier calls for the same volume).
        assertThat(slowest)
                .isLessThan(
                        POLICY.totalTimeout().plus(POLICY.perAttemptTimeout()).toMillis() + 20_000);
        // Failures are clear: a ReplicationException naming the RPC, the volume and the code.
        failures.forEach((op, t) -> {
            assertThat(t).isInstanceOf(ReplicationException.class);
            assertThat(t.getMessage()).contains("vol-" + (op % VOLUMES)).containsPattern("(Enable|Disable)Volume");
        });
        // None is reported done that the plugin did not do.
        for (int op : succeeded) {
            assertThat(applied).as("operation %d was reported done", op).containsKey(op);
        }
    }

    private Process startChild(Path socket, List<Path> opLogs) throws IOException, InterruptedException {
        Path opLog = dir.resolve("ops-" + (opLogs.size() + 1) + ".log");
        opLogs.add(opLog);
        return cleanup.register(
                ReferenceChild.start(socket, opLog, VOLUMES, dir.resolve("child-" + opLogs.size() + ".err")));
    }
}
