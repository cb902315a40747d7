package io.volrep.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Runs one piece of a check's work per item at the same time, each on a thread of its own, and waits for all of
 * them: the first failure, in the items' order, is the check's (an {@link AssertionError} as it was thrown).
 *
 * <pre>{@code
 * AtOnce.each(sources, source -> ctx.step(Rpc.ENABLE_VOLUME_REPLICATION, source));
 * }</pre>
 */
final class AtOnce {
    private AtOnce() {}

    /** One item's work. */
    @FunctionalInterface
    interface Work<T> {
        void run(T item) throws Exception;
    }

    /** Runs {@code work} on every item at once and returns when all have ended; throws the first failure. */
    static <T> void each(List<T> items, Work<T> work) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, items.size()), r -> {
            Thread t = new Thread(r, "volrep-conformance-at-once");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<?>> runs = new ArrayList<>();
            for (T item : items) {
                runs.add(pool.submit(() -> {
                    work.run(item);
                    return null;
                }));
            }
            for (Future<?> run : runs) {
                try {
                    run.get();
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof Error err) {
                        throw err;
                    }
                    throw e.getCause() instanceof Exception ex ? ex : new IllegalStateException(e.getCause());
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
