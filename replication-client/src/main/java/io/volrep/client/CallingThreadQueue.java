package io.volrep.client;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The executor of one blocking {@link TypedCall#call()}: gRPC's callbacks and the retry engine's scheduled
 * attempts are queued here and run by the calling thread, which waits in {@link #drainUntil} for its own result,
 * as grpc-java's blocking stub does with its {@code ThreadlessExecutor}. A response thus completes the call on
 * the thread that waits for it, without a hand-off through the client's thread pool.
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
            LOG.warn("a call callback threw {}; ignored", io.volrep.api.internal.SafeText.escape(e.toString()));
        }
    }

    /**
     * {@code scheduler}, except that what it runs after the delay is handed to this queue: a back-off never
     * blocks a thread, and the next attempt starts on the calling thread (or on the fallback, once closed).
     */
    ScheduledExecutorService scheduling(ScheduledExecutorService scheduler) {
        return new QueueScheduler(scheduler, this);
    }

    /** Only what the retry engine uses: {@code schedule(Runnable, delay, unit)}. */
    private static final class QueueScheduler extends AbstractExecutorService implements ScheduledExecutorService {
        private final ScheduledExecutorService timer;
        private final Executor queue;

        QueueScheduler(ScheduledExecutorService timer, Executor queue) {
            this.timer = timer;
            this.queue = queue;
        }

        @Override
        public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
            return timer.schedule(() -> queue.execute(command), delay, unit);
        }

        @Override
        public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
            throw new UnsupportedOperationException("only schedule(Runnable, long, TimeUnit)");
        }

        @Override
        public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
            throw new UnsupportedOperationException("only schedule(Runnable, long, TimeUnit)");
        }

        @Override
        public ScheduledFuture<?> scheduleWithFixedDelay(
                Runnable command, long initialDelay, long delay, TimeUnit unit) {
            throw new UnsupportedOperationException("only schedule(Runnable, long, TimeUnit)");
        }

        @Override
        public void execute(Runnable command) {
            queue.execute(command);
        }

        @Override
        public void shutdown() {
            throw new UnsupportedOperationException("the client owns the scheduler");
        }

        @Override
        public List<Runnable> shutdownNow() {
            throw new UnsupportedOperationException("the client owns the scheduler");
        }

        @Override
        public boolean isShutdown() {
            return timer.isShutdown();
        }

        @Override
        public boolean isTerminated() {
            return timer.isTerminated();
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
            return timer.awaitTermination(timeout, unit);
        }
    }
}
