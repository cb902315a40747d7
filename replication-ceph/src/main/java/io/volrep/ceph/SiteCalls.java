package io.volrep.ceph;

import io.volrep.api.OperationPendingException;
import io.volrep.api.UnavailableException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One site's Ceph calls, each run on a worker thread while the RPC waits within its {@link CallBudget}: a read whose
 * budget runs out answers 14 UNAVAILABLE (Ceph's own timeouts end the call itself soon after); a <em>mutation</em>
 * (enable, disable, promote, demote, resync, a metadata or schedule change) is never abandoned halfway: it runs to its
 * end in the plugin, tracked per image, while the RPC answers 10 ABORTED in time, and the next call on that image
 * waits for it within its own budget ({@link #awaitSettled}) and then reads its result from Ceph.
 *
 * <pre>{@code
 * calls.awaitSettled(budget, "vol-0");
 * RbdImage image = calls.read(budget, "info vol-0", site -> site.image("vol-0"));
 * calls.mutate(budget, "vol-0", "demote", site -> site.demote("vol-0"));
 * }</pre>
 */
final class SiteCalls {
    private static final Logger LOG = LoggerFactory.getLogger(SiteCalls.class);

    private final RbdSite site;
    private final Executor workers;
    private final ConcurrentMap<String, Pending> pending = new ConcurrentHashMap<>();
    private final AtomicLong calls = new AtomicLong();

    /** A mutation running for image {@code id}: what it is and when it ends. */
    private record Pending(String what, CompletableFuture<Void> done) {}

    SiteCalls(RbdSite site, Executor workers) {
        this.site = site;
        this.workers = workers;
    }

    /** How messages name the site. */
    String name() {
        return site.name();
    }

    RbdSite site() {
        return site;
    }

    /**
     * Runs {@code call} within the budget.
     *
     * @throws RbdException when Ceph answers with an error (the caller maps it)
     * @throws UnavailableException when Ceph does not answer within the budget
     */
    <T> T read(CallBudget budget, String what, Function<RbdSite, T> call) {
        calls.incrementAndGet();
        CompletableFuture<T> f = new CompletableFuture<>();
        workers.execute(() -> {
            try {
                f.complete(call.apply(site));
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        });
        try {
            return f.get(budget.remainingNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new UnavailableException(site.name() + ": Ceph did not answer " + what
                    + " within the call's budget of " + CallBudget.seconds(budget.total())
                    + " (the cluster is down, unreachable or slow); retry later");
        } catch (ExecutionException e) {
            throw unwrap(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UnavailableException(site.name() + ": interrupted waiting for " + what + " (shutting down)");
        }
    }

    /**
     * Waits until no mutation of image {@code id} started by an earlier call runs, so that this call reads its result.
     *
     * @throws OperationPendingException when one still runs at the end of the budget (10: retry)
     */
    void awaitSettled(CallBudget budget, String id) {
        Pending p = pending.get(id);
        if (p == null) {
            return;
        }
        try {
            p.done().get(budget.remainingNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new OperationPendingException(site.name() + ": " + p.what() + " of " + id + ", started by an earlier"
                    + " call, is still running in the plugin; retry with back-off");
        } catch (ExecutionException e) {
            // its failure was the earlier call's (or the log's); this call reads the state it left
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UnavailableException(site.name() + ": interrupted waiting for " + p.what() + " of " + id);
        }
    }

    /**
     * Runs a mutation of image {@code id} to its end, even past the budget; waits for it within the budget.
     *
     * @throws RbdException when Ceph refuses it within the budget (the caller maps it)
     * @throws OperationPendingException when it still runs at the end of the budget (10: it completes in the plugin,
     *                                   and the next call on {@code id} sees its result)
     */
    void mutate(CallBudget budget, String id, String what, Consumer<RbdSite> call) {
        awaitSettled(budget, id);
        calls.incrementAndGet();
        budget.changed(site.name(), id);
        CompletableFuture<Void> done = new CompletableFuture<>();
        Pending p = new Pending(what, done);
        pending.put(id, p);
        long start = System.nanoTime();
        workers.execute(() -> {
            try {
                call.accept(site);
                done.complete(null);
            } catch (Throwable t) {
                done.completeExceptionally(t);
            } finally {
                pending.remove(id, p);
            }
        });
        try {
            done.get(budget.remainingNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            done.whenComplete((ok, failure) -> LOG.info(
                    "{}: {} of {} completed {} ms after it started, past its call's budget{}",
                    site.name(),
                    what,
                    id,
                    (System.nanoTime() - start) / 1_000_000,
                    failure == null ? "" : ": " + unwrap(failure).getMessage()));
            throw new OperationPendingException(site.name() + ": " + what + " of " + id + " did not complete within"
                    + " the call's budget of " + CallBudget.seconds(budget.total()) + "; it goes on in the plugin and"
                    + " the next call on " + id + " sees its result; retry with back-off");
        } catch (ExecutionException e) {
            throw unwrap(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UnavailableException(site.name() + ": interrupted waiting for " + what + " of " + id);
        } finally {
            budget.changed(site.name(), id);
        }
    }

    /** How many questions and changes were sent to this site (each one image opened and a few librbd calls). */
    long calls() {
        return calls.get();
    }

    /** True while a mutation of {@code id} runs (for tests). */
    boolean busy(String id) {
        return pending.containsKey(id);
    }

    private static RuntimeException unwrap(Throwable t) {
        Throwable cause = t instanceof ExecutionException && t.getCause() != null ? t.getCause() : t;
        if (cause instanceof RuntimeException r) {
            return r;
        }
        if (cause instanceof Error err) {
            throw err;
        }
        return new IllegalStateException(cause);
    }
}
