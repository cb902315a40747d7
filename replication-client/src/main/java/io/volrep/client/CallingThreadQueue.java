package io.volrep.client;

import io.volrep.api.internal.SafeText;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The executor of one blocking {@link TypedCall#call()}: gRPC's callbacks and the {@link RetryLoop}'s next attempts
 * (handed here when their back-off ends) are queued here and run by the calling thread, which waits in
 * {@link #drainUntil} for its own result, as grpc-java's blocking stub does with its {@code ThreadlessExecutor}. A
 * response thus completes the call on the thread that waits for it, without a hand-off through the client's thread
 * pool.
 *
 * <p>Once the caller stops draining (its call is done, cancelled or interrupted), whatever still arrives (a late
 * {@code onClose} after a cancellation, a retry that was already scheduled) runs on the client's executor, as it
 * would for {@link TypedCall#callAsync()}: nothing is ever stranded in a queue nobody drains.
 *
 * <pre>{@code
 * CallingThreadQueue queue = new CallingThreadQueue(clientExecutor);
 * CompletableFuture<R> future = ...;   // an attempt whose CallOptions executor is the queue
 * queue.drainUntil(future);             // runs callbacks here until the future is done
 * }</pre>
 */
final class CallingThreadQueue implements Executor {
    private static final Logger LOG = LoggerFactory.getLogger(CallingThreadQueue.class);

    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final Executor fallback;
    private volatile Thread waiter;
    private volatile boolean closed;

    CallingThreadQueue(Executor fallback) {
        this.fallback = fallback;
    }

    @Override
    public void execute(Runnable task) {
        if (closed) {
            fallback.execute(task);
            return;
        }
        tasks.add(task);
        if (closed) {
            // The caller stopped draining meanwhile; whichever of us takes the task out runs it elsewhere.
            if (tasks.remove(task)) {
                fallback.execute(task);
            }
            return;
        }
        Thread thread = waiter;
        if (thread != null) {
            LockSupport.unpark(thread);
        }
    }

    /**
     * Runs queued tasks on the calling thread until {@code future} is done; afterwards tasks go to the fallback.
     *
     * @throws InterruptedException when the calling thread is interrupted while waiting (the queue is then
     *         closed as well; the caller cancels its call)
     */
    void drainUntil(CompletableFuture<?> future) throws InterruptedException {
        Thread self = Thread.currentThread();
        waiter = self;
        try {
            if (!future.isDone()) {
                // A future completed elsewhere (cancelled by another thread) must wake the caller too.
                future.whenComplete((v, t) -> LockSupport.unpark(self));
            }
            while (true) {
                Runnable task;
                while ((task = tasks.poll()) != null) {
                    run(task);
                }
                if (future.isDone()) {
                    return;
                }
                LockSupport.park(this);
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
            }
        } finally {
            closed = true;
            waiter = null;
            Runnable task;
            while ((task = tasks.poll()) != null) {
                fallback.execute(task);
            }
        }
    }

    private static void run(Runnable task) {
        try {
            task.run();
        } catch (RuntimeException e) {
            // Callbacks complete futures and do not throw; a throwing one must not stop the caller's drain.
            LOG.warn("a call callback threw {}; ignored", SafeText.escape(e.toString()));
        }
    }
}
