package io.volrep.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** How many checks the scheduler runs at once, and on which fixtures. */
class CheckSchedulerTest {
    private static final String[] VOLUMES = {"vol-0", "vol-1", "vol-2", "vol-3", "vol-4"};

    /**
     * Seen in a run on the Ceph lab: once the fixtures checks (first) had ended, four checks ran on five fixtures with
     * five workers, and one fixture stayed idle until a check ended; a started check was counted twice against the
     * parallelism.
     */
    @Test
    void checksQueuedBehindTheFirstOnesStartAsManyAsTheParallelismAllows() throws Exception {
        ConformanceConfig config = ConformanceConfig.builder()
                .driver(new SpecDriver(Map.of(), VOLUMES))
                .volumes(VOLUMES)
                .parallelism(5)
                .build();
        AtomicInteger running = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        CountDownLatch allIn = new CountDownLatch(VOLUMES.length);
        CountDownLatch firstMayEnd = new CountDownLatch(1);
        try (CheckScheduler scheduler = new CheckScheduler(config)) {
            CompletableFuture<Boolean> first =
                    scheduler.submit(Needs.volume().at(Needs.Order.FIRST), 1, lease -> await(firstMayEnd));
            List<CompletableFuture<Boolean>> queued = new ArrayList<>();
            for (int i = 0; i < VOLUMES.length; i++) {
                queued.add(scheduler.submit(Needs.volume(), 1, lease -> {
                    most.accumulateAndGet(running.incrementAndGet(), Math::max);
                    allIn.countDown();
                    boolean together = await(allIn);
                    running.decrementAndGet();
                    return together;
                }));
            }
            firstMayEnd.countDown();
            first.get(2, TimeUnit.MINUTES);
            for (CompletableFuture<Boolean> q : queued) {
                q.get(2, TimeUnit.MINUTES);
            }
        }

        assertThat(most.get()).as("checks running at once").isEqualTo(VOLUMES.length);
    }

    /** Waits for {@code latch}; it opens at once when the scheduler is right, so the bound only ends a wrong run. */
    private static boolean await(CountDownLatch latch) {
        try {
            return latch.await(1, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
