package io.volrep.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.volrep.api.PreconditionFailedException;
import io.volrep.api.Rpc;
import io.volrep.api.SourceNotFoundException;
import io.volrep.api.StatusCode;
import io.volrep.testkit.fake.FakePlugin;
import io.volrep.testkit.fake.RecordedCall;
import io.volrep.testsupport.GrpcCleanup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ReplicationClient.Builder#directExecutor()} over a real unix socket: a success completes on the
 * transport thread (netty's event loop), everything a failure runs stays on the client's executor, and without
 * the option every answer is handed to the executor.
 */
class DirectExecutorTest {
    private static final String EXECUTOR_THREAD = "client-executor-";

    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    @TempDir
    Path dir;

    private final AtomicInteger threads = new AtomicInteger();
    private final ExecutorService executor = Executors.newFixedThreadPool(2, r -> {
        Thread t = new Thread(r, EXECUTOR_THREAD + threads.incrementAndGet());
        t.setDaemon(true);
        return t;
    });

    @AfterEach
    void stopExecutor() throws InterruptedException {
        executor.shutdownNow();
        assertThat(executor.awaitTermination(5, TimeUnit.MINUTES)).isTrue();
    }

    /** The public fake on a unix socket, with one volume: vol-0. */
    private FakePlugin plugin() {
        return grpc.register(FakePlugin.builder()
                .volumes(1)
                .listen("unix://" + dir.resolve("p.sock"))
                .start());
    }

    private ReplicationClient client(FakePlugin plugin, ReplicationClient.Builder builder) {
        return grpc.register(builder.target(plugin.address())
                .executor(executor)
                .retry(RetryBehaviourTest.FAST)
                .build());
    }

    /** The thread that runs a continuation registered while the call is still in flight (its answer is delayed). */
    private static String continuationThread(CompletableFuture<?> call) {
        AtomicReference<String> thread = new AtomicReference<>();
        CompletableFuture<?> observed = call.handle((v, t) -> {
            thread.set(Thread.currentThread().getName());
            return null;
        });
        observed.join();
        return thread.get();
    }

    @Test
    void aSuccessCompletesOnTheTransportThread() throws Exception {
        FakePlugin plugin = plugin().latency(Rpc.ENABLE_VOLUME_REPLICATION, Duration.ofMillis(200));
        Queue<String> listenerThreads = new ConcurrentLinkedQueue<>();
        ReplicationClient client = client(
                plugin,
                ReplicationClient.builder()
                        .directExecutor()
                        .listener(event ->
                                listenerThreads.add(Thread.currentThread().getName())));

        CompletableFuture<?> call = client.volume("vol-0").enable().callAsync();
        String thread = continuationThread(call);

        assertThat(call).isCompleted();
        assertThat(thread)
                .as("netty's event loop, not the executor nor the caller")
                .doesNotStartWith(EXECUTOR_THREAD)
                .isNotEqualTo(Thread.currentThread().getName())
                .contains("ELG");
        assertThat(listenerThreads).containsExactly(thread);
        assertThat(client.activeSources()).isZero();
    }

    @Test
    void withoutTheOptionEveryAnswerIsHandedToTheExecutor() throws Exception {
        FakePlugin plugin = plugin().latency(Rpc.ENABLE_VOLUME_REPLICATION, Duration.ofMillis(200));
        ReplicationClient client = client(plugin, ReplicationClient.builder());

        assertThat(continuationThread(client.volume("vol-0").enable().callAsync()))
                .startsWith(EXECUTOR_THREAD);
    }

    @Test
    void aFailureIsDecidedAndReportedOnTheExecutor() throws Exception {
        // The driver's own answers: vol-0 is not enabled (9 FAILED_PRECONDITION), vol-1 does not exist (5 NOT_FOUND).
        FakePlugin plugin = plugin().latency(Rpc.PROMOTE_VOLUME, Duration.ofMillis(200))
                .latency(Rpc.ENABLE_VOLUME_REPLICATION, Duration.ofMillis(200));
        Queue<String> verifierThreads = new ConcurrentLinkedQueue<>();
        Queue<String> listenerThreads = new ConcurrentLinkedQueue<>();
        ReplicationClient client = client(
                plugin,
                ReplicationClient.builder()
                        .directExecutor()
                        .listener(event ->
                                listenerThreads.add(Thread.currentThread().getName()))
                        .sourceVerifier(SourceVerifier.of(source -> {
                            verifierThreads.add(Thread.currentThread().getName());
                            return false;
                        })));

        CompletableFuture<?> promote = client.volume("vol-0").promote().callAsync();
        assertThat(continuationThread(promote)).startsWith(EXECUTOR_THREAD);
        assertThatThrownBy(promote::join).hasCauseInstanceOf(PreconditionFailedException.class);

        CompletableFuture<?> enable = client.volume("vol-1").enable().callAsync();
        assertThat(continuationThread(enable)).startsWith(EXECUTOR_THREAD);
        assertThatThrownBy(enable::join).hasCauseInstanceOf(SourceNotFoundException.class);

        assertThat(verifierThreads).hasSize(1).allSatisfy(t -> assertThat(t).startsWith(EXECUTOR_THREAD));
        assertThat(listenerThreads).hasSize(2).allSatisfy(t -> assertThat(t).startsWith(EXECUTOR_THREAD));
        assertThat(plugin.calls(Rpc.PROMOTE_VOLUME))
                .extracting(RecordedCall::code)
                .containsExactly(StatusCode.FAILED_PRECONDITION);
        assertThat(plugin.calls(Rpc.ENABLE_VOLUME_REPLICATION))
                .extracting(RecordedCall::code)
                .containsExactly(StatusCode.NOT_FOUND);
    }

    @Test
    void aRetriedCallSucceedsAndBlockingCallsAreUnchanged() throws Exception {
        FakePlugin plugin = plugin().failNext(Rpc.ENABLE_VOLUME_REPLICATION, 1, StatusCode.UNAVAILABLE)
                .failNext(Rpc.ENABLE_VOLUME_REPLICATION, 1, StatusCode.ABORTED);
        ReplicationClient client = client(plugin, ReplicationClient.builder().directExecutor());

        CompletableFuture<?> call = client.volume("vol-0").enable().callAsync();
        call.get(5, TimeUnit.MINUTES);
        assertThat(call).isCompletedWithValueMatching(v -> true);
        assertThat(plugin.calls(Rpc.ENABLE_VOLUME_REPLICATION))
                .extracting(RecordedCall::code)
                .containsExactly(StatusCode.UNAVAILABLE, StatusCode.ABORTED, StatusCode.OK);
        client.volume("vol-0").enable().call();
        assertThat(plugin.calls(Rpc.ENABLE_VOLUME_REPLICATION)).hasSize(4);
        assertThat(client.activeSources()).isZero();
    }
}
