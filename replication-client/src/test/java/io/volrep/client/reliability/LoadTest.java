package io.volrep.client.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.api.ErrorScheme;
import io.volrep.api.ReplicationException;
import io.volrep.api.ReplicationSource;
import io.volrep.client.ReplicationClient;
import io.volrep.client.RetryPolicy;
import io.volrep.client.SourceClient;
import io.volrep.spi.ReplicationServer;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testkit.reference.ReferenceDriver.Change;
import io.volrep.testkit.reference.ReferencePlugin;
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
import org.junit.jupiter.api.io.TempDir;

/**
 * 20,000 operations over 1,000 volumes with 64 in flight, through the client, against the reference plugin on a
 * unix socket. The reference's effect log is the ground truth: every operation the client reports done appears
 * exactly once, in the order the caller issued them per volume, and nothing else does.
 */
class LoadTest {
    private static final int SOURCES = 1_000;
    private static final int OPERATIONS = 20_000;
    private static final int IN_FLIGHT = 64;

    /**
     * The per-volume script, repeated: each step except INFO changes the reference's state, so each success must
     * leave exactly one effect. Resync takes two calls to complete (the reference's default).
     */
    private enum Step {
        ENABLE(Change.ENABLED),
        DEMOTE(Change.DEMOTED),
        RESYNC_1(Change.RESYNC_PROGRESSED),
        RESYNC_2(Change.RESYNC_COMPLETED),
        PROMOTE(Change.PROMOTED),
        INFO(null),
        DISABLE(Change.DISABLED);

        final Change effect;

        Step(Change effect) {
            this.effect = effect;
        }
    }

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void noOperationIsLostOrAppliedTwiceAndOrderPerSourceHolds() throws Exception {
        ReferenceDriver driver = ReferenceDriver.builder().volumes(SOURCES).build();
        try (QuietLogs quiet = new QuietLogs("io.volrep.spi.runtime.CallRunner", "io.volrep.client.CallEngine");
                ReplicationServer server = ReferencePlugin.start(driver, "unix://" + dir.resolve("ref.sock"));
                ReplicationClient client = ReplicationClient.builder()
                        .target(server.address())
                        .retry(RetryPolicy.spec().toBuilder()
                                .initialBackoff(Duration.ofMillis(10))
                                .build())
                        .build()) {
            Map<Integer, Change> succeeded = new ConcurrentHashMap<>();
            ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
            ConcurrentLinkedQueue<ReplicationException> failures = new ConcurrentLinkedQueue<>();
            AtomicInteger successes = new AtomicInteger();
            Semaphore inFlight = new Semaphore(IN_FLIGHT);
            List<CompletableFuture<?>> all = new ArrayList<>(OPERATIONS);

            long start = System.nanoTime();
            // Operation k works on volume k % SOURCES: volumes interleave, and each volume's steps are issued in
            // script order (the client's single-flight queue must keep that order).
            for (int k = 0; k < OPERATIONS; k++) {
                ReplicationSource source = ReplicationSource.volume("vol-" + (k % SOURCES));
                Step step = Step.values()[(k / SOURCES) % Step.values().length];
                int index = k;
                inFlight.acquire();
                CompletableFuture<?> op = send(client.source(source), step).whenComplete((result, error) -> {
                    inFlight.release();
                    if (error != null) {
                        Throwable cause = error.getCause() != null ? error.getCause() : error;
                        if (cause instanceof ReplicationException e) {
                            failures.add(e);
                        } else {
                            wrong.add(step + " " + source + ": not a ReplicationException: " + cause);
                        }
                        return;
                    }
                    successes.incrementAndGet();
                    if ((step == Step.RESYNC_1 && !Boolean.FALSE.equals(result))
                            || (step == Step.RESYNC_2 && !Boolean.TRUE.equals(result))) {
                        wrong.add(step + " " + source + " answered ready=" + result);
                    }
                    if (step.effect != null) {
                        succeeded.put(index, step.effect);
                    }
                });
                all.add(op);
            }
            CompletableFuture.allOf(all.toArray(CompletableFuture[]::new))
                    .handle((v, t) -> null)
                    .get(5, TimeUnit.MINUTES);
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf(
                    Locale.ROOT,
                    "load: %,d operations over %,d volumes, %d in flight, in %.1f s " + "(%,.0f ops/s); %,d effects%n",
                    OPERATIONS,
                    SOURCES,
                    IN_FLIGHT,
                    seconds,
                    OPERATIONS / seconds,
                    driver.effects().size());

            // Only spec codes: every failure carries a code the spec's table (or gRPC's transport convention) knows.
            for (ReplicationException e : failures) {
                assertThat(ErrorScheme.spec().lists(e.rpc(), e.code())
                                || ErrorScheme.TRANSPORT_BACKOFF_CODES.contains(e.code()))
                        .as("spec code for %s", e.getMessage())
                        .isTrue();
            }
            assertThat(failures).as("failed operations").isEmpty();
            assertThat(wrong).isEmpty();
            assertThat(successes).hasValue(OPERATIONS);
            assertThat(client.activeSources()).isZero();

            // Nothing lost, nothing applied twice, nothing reordered: per volume, the effect log is exactly the
            // sequence of state-changing successes, numbered 1..n without gaps.
            Map<ReplicationSource, List<ReferenceDriver.Effect>> effects = new HashMap<>();
            for (ReferenceDriver.Effect e : driver.effects()) {
                effects.computeIfAbsent(e.source(), s -> new ArrayList<>()).add(e);
            }
            long expectedEffects = 0;
            for (ReplicationSource source : driver.sources()) {
                List<Change> expected = expectedChanges(source);
                expectedEffects += expected.size();
                List<ReferenceDriver.Effect> log = effects.getOrDefault(source, List.of());
                assertThat(log.stream().map(ReferenceDriver.Effect::change).toList())
                        .as("effects on %s", source)
                        .isEqualTo(expected)
                        .isEqualTo(reportedDone(succeeded, source));
                for (int i = 0; i < log.size(); i++) {
                    assertThat(log.get(i).sourceSequence()).isEqualTo(i + 1L);
                }
            }
            assertThat(driver.effects()).hasSize((int) expectedEffects);
        }
    }

    /** The state-changing operations the client reported done for {@code source}, in issue order. */
    private static List<Change> reportedDone(Map<Integer, Change> succeeded, ReplicationSource source) {
        int index = Integer.parseInt(source.id().substring("vol-".length()));
        List<Change> changes = new ArrayList<>();
        for (int k = index; k < OPERATIONS; k += SOURCES) {
            Change change = succeeded.get(k);
            if (change != null) {
                changes.add(change);
            }
        }
        return changes;
    }

    /** What the script should have done to {@code source}. */
    private static List<Change> expectedChanges(ReplicationSource source) {
        int index = Integer.parseInt(source.id().substring("vol-".length()));
        List<Change> changes = new ArrayList<>();
        for (int k = index; k < OPERATIONS; k += SOURCES) {
            Step step = Step.values()[(k / SOURCES) % Step.values().length];
            if (step.effect != null) {
                changes.add(step.effect);
            }
        }
        return changes;
    }

    private static CompletableFuture<?> send(SourceClient source, Step step) {
        return switch (step) {
            case ENABLE ->
                source.enable().parameter("mirroringMode", "snapshot").callAsync();
            case DEMOTE -> source.demote().callAsync();
            case RESYNC_1, RESYNC_2 -> source.resync().callAsync().thenApply(status -> status.ready());
            case PROMOTE -> source.promote().callAsync();
            case INFO -> source.infoAsync();
            case DISABLE -> source.disable().callAsync();
            default -> throw new IllegalArgumentException(step.name());
        };
    }
}
