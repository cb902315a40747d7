package io.volrep.benchmarks;

import io.volrep.client.ReplicationClient;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Does the client's single-flight map (one lane per source with a call running or waiting) forget idle sources?
 * Sends one enable call for each of {@code N} distinct volumes (default 1,000,000; 64 in flight) through one
 * {@link ReplicationClient} to an in-process raw server, and compares the used heap after a full GC with the used
 * heap after a full GC before the run (client built and warmed up). Prints
 * {@code retained heap-per-idle-source BYTES pass|fail}: the growth divided by {@code N}, which passes under one
 * byte (a lane, a map entry or a source object kept per source would be tens of bytes). Run with
 * {@code -XX:+UseSerialGC} for a compacting, stable {@code System.gc()}.
 *
 * <pre>{@code
 * java -XX:+UseSerialGC -cp benchmarks/target/benchmarks.jar io.volrep.benchmarks.SingleFlightHeap 1000000
 * }</pre>
 */
public final class SingleFlightHeap {
    private static final int IN_FLIGHT = 64;
    private static final int WARM_UP = 20_000;

    private SingleFlightHeap() {}

    public static void main(String[] args) throws Exception {
        int sources = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        BenchmarkLogging.init();
        // A server that keeps no per-volume state, so that only the client's memory is measured.
        String address = Transports.address("inprocess");
        try (Transports.RawServer server = Transports.startRaw(address, new StatelessController());
                ReplicationClient client =
                        ReplicationClient.builder().target(address).build()) {
            run(client, "warm-", WARM_UP);
            long before = usedHeapAfterGc();
            long start = System.nanoTime();
            run(client, "vol-", sources);
            double seconds = (System.nanoTime() - start) / 1e9;
            int active = client.activeSources();
            long after = usedHeapAfterGc();
            System.out.printf(
                    Locale.ROOT,
                    "singleFlightHeap: %,d distinct sources in %.1f s (%,.0f calls/s), "
                            + "active sources after %d, used heap after GC: before %.1f MiB, after %.1f MiB%n",
                    sources,
                    seconds,
                    sources / seconds,
                    active,
                    before / 1048576.0,
                    after / 1048576.0);
            if (active != 0) {
                throw new IllegalStateException(active + " sources still have a lane after every call finished");
            }
            double perSource = Math.max(0, after - before) / (double) sources;
            System.out.printf(
                    Locale.ROOT,
                    "retained heap-per-idle-source %.2f B %s%n",
                    perSource,
                    perSource < 1 ? "pass" : "fail");
        }
    }

    private static void run(ReplicationClient client, String prefix, int count) throws InterruptedException {
        Semaphore inFlight = new Semaphore(IN_FLIGHT);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicLong done = new AtomicLong();
        for (int i = 0; i < count && failure.get() == null; i++) {
            inFlight.acquire();
            CompletableFuture<Void> call = client.volume(prefix + i).enable().callAsync();
            call.whenComplete((v, t) -> {
                if (t != null) {
                    failure.compareAndSet(null, t);
                }
                done.incrementAndGet();
                inFlight.release();
            });
        }
        inFlight.acquire(IN_FLIGHT);
        if (failure.get() != null) {
            throw new IllegalStateException("a call failed", failure.get());
        }
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(100);
            used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
        }
        return used;
    }
}
