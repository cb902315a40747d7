package io.volrep.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The hook a layer's own future carries instead of a {@code whenComplete} stage: when it runs, and how often. */
class CancellationTest {

    @Test
    void aHookRunsOnceWhenTheFutureIsCancelledAfterItCame() {
        Cancellation.Hooked<String> future = new Cancellation.Hooked<>();
        AtomicInteger runs = new AtomicInteger();
        Cancellation.onCancel(future, runs::incrementAndGet);
        assertThat(runs).hasValue(0);
        assertThat(future.cancel(true)).isTrue();
        future.cancel(true);
        future.completeExceptionally(new CancellationException("again"));
        assertThat(runs).hasValue(1);
    }

    @Test
    void aHookThatComesAfterTheCancelRunsAtOnce() {
        Cancellation.Hooked<String> future = new Cancellation.Hooked<>();
        future.cancel(false);
        AtomicInteger runs = new AtomicInteger();
        Cancellation.onCancel(future, runs::incrementAndGet);
        assertThat(runs).hasValue(1);
    }

    @Test
    void aCancellationExceptionCancelsLikeCancelDoes() {
        Cancellation.Hooked<String> future = new Cancellation.Hooked<>();
        CompletableFuture<String> upstream = new CompletableFuture<>();
        Cancellation.propagate(future, upstream);
        future.completeExceptionally(new CancellationException("call cancelled"));
        assertThat(upstream).isCancelled();
    }

    @Test
    void completionAndOtherFailuresRunNoHook() {
        AtomicInteger runs = new AtomicInteger();
        Cancellation.Hooked<String> completed = new Cancellation.Hooked<>();
        Cancellation.onCancel(completed, runs::incrementAndGet);
        completed.complete("done");
        assertThat(completed.cancel(true)).isFalse();
        Cancellation.Hooked<String> failed = new Cancellation.Hooked<>();
        Cancellation.onCancel(failed, runs::incrementAndGet);
        failed.completeExceptionally(new IllegalStateException("failed"));
        failed.cancel(true);
        assertThat(runs).hasValue(0);
    }

    @Test
    void aSecondHookAndAPlainFutureGetAStageAndStillRun() {
        Cancellation.Hooked<String> hooked = new Cancellation.Hooked<>();
        CompletableFuture<String> plain = new CompletableFuture<>();
        AtomicInteger runs = new AtomicInteger();
        Cancellation.onCancel(hooked, runs::incrementAndGet);
        Cancellation.onCancel(hooked, runs::incrementAndGet);
        Cancellation.onCancel(plain, runs::incrementAndGet);
        hooked.cancel(true);
        plain.cancel(true);
        assertThat(runs).hasValue(3);
    }

    @Test
    void aDoneHookRunsOnceHoweverTheFutureCompletes() {
        for (java.util.function.Consumer<Cancellation.Hooked<String>> finish :
                java.util.List.<java.util.function.Consumer<Cancellation.Hooked<String>>>of(
                        f -> f.complete("done"),
                        f -> f.completeExceptionally(new IllegalStateException("failed")),
                        f -> f.cancel(true),
                        f -> f.obtrudeValue("forced"),
                        f -> f.obtrudeException(new IllegalStateException("forced")))) {
            Cancellation.Hooked<String> future = new Cancellation.Hooked<>();
            AtomicInteger runs = new AtomicInteger();
            AtomicInteger doneWhenRun = new AtomicInteger();
            Cancellation.whenDone(future, () -> {
                runs.incrementAndGet();
                doneWhenRun.set(future.isDone() ? 1 : 0);
            });
            assertThat(runs).hasValue(0);
            finish.accept(future);
            future.complete("again");
            future.cancel(true);
            assertThat(runs).hasValue(1);
            assertThat(doneWhenRun).hasValue(1);
        }
    }

    @Test
    void aDoneHookThatComesAfterTheCompletionRunsAtOnce() {
        Cancellation.Hooked<String> future = new Cancellation.Hooked<>();
        future.complete("done");
        AtomicInteger runs = new AtomicInteger();
        Cancellation.whenDone(future, runs::incrementAndGet);
        assertThat(runs).hasValue(1);
        future.completeExceptionally(new IllegalStateException("late"));
        assertThat(runs).hasValue(1);
    }

    @Test
    void aSecondDoneHookAndAPlainFutureGetAStageAndStillRun() {
        Cancellation.Hooked<String> hooked = new Cancellation.Hooked<>();
        CompletableFuture<String> plain = new CompletableFuture<>();
        AtomicInteger runs = new AtomicInteger();
        Cancellation.whenDone(hooked, runs::incrementAndGet);
        Cancellation.whenDone(hooked, runs::incrementAndGet);
        Cancellation.whenDone(plain, runs::incrementAndGet);
        hooked.complete("done");
        plain.completeExceptionally(new IllegalStateException("failed"));
        assertThat(runs).hasValue(3);
    }

    @Test
    void aDoneHookRacingTheCompletionRunsExactlyOnce() throws Exception {
        for (int i = 0; i < 2_000; i++) {
            Cancellation.Hooked<String> future = new Cancellation.Hooked<>();
            AtomicInteger runs = new AtomicInteger();
            Thread completer = new Thread(() -> future.complete("done"));
            completer.start();
            Cancellation.whenDone(future, runs::incrementAndGet);
            completer.join();
            assertThat(runs).as("round %d", i).hasValue(1);
        }
    }

    @Test
    void whatIsDerivedIsAPlainFuture() {
        Cancellation.Hooked<String> future = new Cancellation.Hooked<>();
        assertThat(future.thenApply(String::length).getClass()).isEqualTo(CompletableFuture.class);
    }
}
