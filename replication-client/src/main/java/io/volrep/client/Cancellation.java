package io.volrep.client;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.function.Supplier;

/**
 * The one way a caller's cancellation travels down: derived futures ({@code thenApply}, a copy completed later)
 * do not pass {@code cancel} to what they came from, so each layer registers what to stop here.
 */
final class Cancellation {
    private Cancellation() {
    }

    /** When {@code future} is cancelled, runs {@code onCancel} (once, on the cancelling thread). */
    static void onCancel(CompletableFuture<?> future, Runnable onCancel) {
        future.whenComplete((v, t) -> {
            if (future.isCancelled()) {
                onCancel.run();
            }
        });
    }

    /** When {@code future} is cancelled, cancels what {@code upstream} holds at that moment (if anything). */
    static void propagate(CompletableFuture<?> future, Supplier<? extends Future<?>> upstream) {
        onCancel(future, () -> {
            Future<?> f = upstream.get();
            if (f != null) {
                f.cancel(true);
            }
        });
    }
}
