package io.volrep.client;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.function.Supplier;

/**
 * The one way a caller's cancellation travels down: derived futures ({@code thenApply}, a copy completed later)
 * do not pass {@code cancel} to what they came from, so each layer registers what to stop here.
 *
 * <p>A layer that creates its future itself makes it a {@link Hooked}: the future runs its one hook when it is
 * cancelled, instead of carrying a {@code whenComplete} stage (a stage, its future and two lambdas on every call,
 * cancelled or not) for something few calls ever do.
 */
final class Cancellation {
    private Cancellation() {}

    /** When {@code future} is cancelled, runs {@code onCancel} (once, on the cancelling thread). */
    static void onCancel(CompletableFuture<?> future, Runnable onCancel) {
        if (future instanceof Hooked<?> hooked && hooked.hook(onCancel)) {
            return;
        }
        future.whenComplete((v, t) -> {
            if (future.isCancelled()) {
                onCancel.run();
            }
        });
    }

    /**
     * Runs {@code onDone} once {@code future} is done, however it completes (at once when it is done already): what
     * {@code whenComplete} does for a callback that needs no value, without a stage when {@code future} is a
     * {@link Hooked} with no such hook yet. For a layer's own futures only, which are completed by their public
     * methods ({@code completeAsync} would bypass the hook).
     */
    static void whenDone(CompletableFuture<?> future, Runnable onDone) {
        if (future instanceof Hooked<?> hooked && hooked.whenDone(onDone)) {
            return;
        }
        future.whenComplete((v, t) -> onDone.run());
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

    /** When {@code future} is cancelled, cancels {@code upstream}. */
    static void propagate(CompletableFuture<?> future, Future<?> upstream) {
        onCancel(future, () -> upstream.cancel(true));
    }

    /**
     * A future that runs one hook once it is cancelled, by {@link #cancel}, or by {@link #completeExceptionally} or
     * {@link #obtrudeException} with a {@link java.util.concurrent.CancellationException} (every way a caller can
     * make {@link #isCancelled()} true), whether the hook was registered before or after; and one more once it is
     * done by any of its public methods ({@link Cancellation#whenDone}). What is derived from it
     * ({@code thenApply}, ...) is a plain {@link CompletableFuture}.
     */
    static final class Hooked<T> extends CompletableFuture<T> {
        /** A hook's value once its moment came (and the hook, if any, ran). */
        private static final Runnable FIRED = () -> {};

        private static final VarHandle HOOK;
        private static final VarHandle DONE_HOOK;

        static {
            try {
                HOOK = MethodHandles.lookup().findVarHandle(Hooked.class, "hook", Runnable.class);
                DONE_HOOK = MethodHandles.lookup().findVarHandle(Hooked.class, "doneHook", Runnable.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        @SuppressWarnings("unused") // through HOOK
        private volatile Runnable hook;

        @SuppressWarnings("unused") // through DONE_HOOK
        private volatile Runnable doneHook;

        /** Registers {@code onDone}; false when another is registered already (the caller falls back). */
        boolean whenDone(Runnable onDone) {
            if (isDone()) {
                // Done already: the completing thread's done() may still come, and finds no hook to run.
                onDone.run();
                return true;
            }
            return register(DONE_HOOK, onDone); // run at once if completed since the look
        }

        private void done() {
            if (isDone()) {
                fire(DONE_HOOK);
            }
        }

        /** Registers {@code onCancel}; false when another hook is registered already (the caller falls back). */
        boolean hook(Runnable onCancel) {
            return register(HOOK, onCancel); // run at once if cancelled before the hook came
        }

        private void cancelled() {
            if (isCancelled()) {
                fire(HOOK);
            }
        }

        /**
         * Puts {@code hook} in {@code slot}; runs it at once when the slot's moment has come already. False when the
         * slot holds another hook.
         */
        private boolean register(VarHandle slot, Runnable hook) {
            Runnable previous = (Runnable) slot.compareAndExchange(this, null, hook);
            if (previous == FIRED) {
                hook.run();
                return true;
            }
            return previous == null;
        }

        /** Marks {@code slot}'s moment as come and runs its hook, once, if one was registered. */
        private void fire(VarHandle slot) {
            Runnable h = (Runnable) slot.getAndSet(this, FIRED);
            if (h != null && h != FIRED) {
                h.run();
            }
        }

        @Override
        public boolean complete(T value) {
            boolean result = super.complete(value);
            done();
            return result;
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean result = super.cancel(mayInterruptIfRunning);
            cancelled();
            done();
            return result;
        }

        @Override
        public boolean completeExceptionally(Throwable ex) {
            boolean result = super.completeExceptionally(ex);
            cancelled();
            done();
            return result;
        }

        @Override
        public void obtrudeValue(T value) {
            super.obtrudeValue(value);
            done();
        }

        @Override
        public void obtrudeException(Throwable ex) {
            super.obtrudeException(ex);
            cancelled();
            done();
        }
    }
}
