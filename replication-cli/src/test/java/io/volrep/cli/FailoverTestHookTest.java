package io.volrep.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.client.ReplicationClient;
import io.volrep.client.reconcile.Failover;
import io.volrep.client.reconcile.FailoverProgress;
import io.volrep.client.reconcile.FailoverReport;
import io.volrep.client.reconcile.FailoverStep;
import io.volrep.testkit.fake.FakePlugin;
import io.volrep.testsupport.GrpcCleanup;
import java.io.ByteArrayInputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The test hook of {@code volrep failover} ({@code VOLREP_TEST_FAILOVER_PAUSE}): off unless set; set, it stops each
 * source before the named step's call and says so on one line, a line on stdin resumes, the end of stdin halts.
 */
class FailoverTestHookTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    @SuppressWarnings("UnnecessaryLambda") // one instance, so that the tests can see it handed back unwrapped
    private static final Consumer<FailoverProgress> NOTHING = p -> {};

    @Test
    void unsetOrEmptyItIsNotThere() {
        PrintWriter err = new PrintWriter(new StringWriter());
        assertThat(FailoverTestHook.wrap(NOTHING, null, err, System.in)).isSameAs(NOTHING);
        assertThat(FailoverTestHook.wrap(NOTHING, " ", err, System.in)).isSameAs(NOTHING);
    }

    @Test
    void anythingButAStepBoundaryIsRefusedWithTheBoundaries() {
        PrintWriter err = new PrintWriter(new StringWriter());
        assertThatThrownBy(() -> FailoverTestHook.wrap(NOTHING, "FAILED", err, System.in))
                .hasMessage("VOLREP_TEST_FAILOVER_PAUSE (a test hook) names no step boundary: \"FAILED\"; use one of"
                        + " CHECKING_B, DEMOTING_ON_A, PROMOTING_ON_B, VERIFYING_ON_B, PRIMARY_ON_B");
    }

    @Test
    void aSourcePausedAfterItsDemoteSendsNoPromoteUntilALineArrives(@TempDir Path dir) throws Exception {
        FakePlugin a = grpc.register(FakePlugin.builder()
                .volumes(1)
                .listen("unix://" + dir.resolve("a.sock"))
                .start());
        FakePlugin b = grpc.register(FakePlugin.builder()
                .volumes(1)
                .listen("unix://" + dir.resolve("b.sock"))
                .start());
        ReplicationSource vol0 = ReplicationSource.volume("vol-0");
        ReplicationClient clientA =
                grpc.register(ReplicationClient.builder().target(a.address()).build());
        ReplicationClient clientB =
                grpc.register(ReplicationClient.builder().target(b.address()).build());
        clientA.source(vol0).enable().call();
        clientB.source(vol0).enable().call();
        clientB.source(vol0).demote().call();
        b.clearCalls();

        StringWriter text = new StringWriter();
        PrintWriter err = new PrintWriter(text, true);
        PipedOutputStream stdin = new PipedOutputStream();
        CountDownLatch paused = new CountDownLatch(1);
        Consumer<FailoverProgress> hook = new FailoverTestHook(
                p -> {},
                FailoverStep.PROMOTING_ON_B,
                new PrintWriter(err, true) {
                    @Override
                    public void println(String line) {
                        super.println(line);
                        paused.countDown();
                    }
                },
                new PipedInputStream(stdin),
                () -> {
                    throw new AssertionError("halted");
                });
        CompletableFuture<FailoverReport> run = Failover.builder()
                .from(clientA)
                .to(clientB)
                .source(vol0)
                .assumeSameIds(true)
                .callBudget(Duration.ofMinutes(1))
                .listener(hook)
                .build()
                .runAsync();

        assertThat(paused.await(5, TimeUnit.MINUTES)).isTrue();
        assertThat(text.toString())
                .isEqualTo("volrep: test hook: volume vol-0 paused at PROMOTING_ON_B (VOLREP_TEST_FAILOVER_PAUSE); a"
                        + " line on stdin resumes, end of input halts" + System.lineSeparator());
        assertThat(a.calls(Rpc.DEMOTE_VOLUME)).hasSize(1);
        assertThat(b.calls(Rpc.PROMOTE_VOLUME)).isEmpty();
        assertThat(run).isNotDone();

        stdin.write("go\n".getBytes(StandardCharsets.UTF_8));
        stdin.flush();
        assertThat(run.get(5, TimeUnit.MINUTES).allPrimaryOnB()).isTrue();
        assertThat(b.calls(Rpc.PROMOTE_VOLUME)).hasSize(1);
    }

    @Test
    void theEndOfStdinHaltsAsAKillWould() throws Exception {
        CountDownLatch halted = new CountDownLatch(1);
        FailoverTestHook hook = new FailoverTestHook(
                NOTHING,
                FailoverStep.CHECKING_B,
                new PrintWriter(new StringWriter()),
                new ByteArrayInputStream(new byte[0]),
                halted::countDown);
        Thread source = new Thread(() -> hook.accept(new FailoverProgress(
                ReplicationSource.volume("vol-0"), Optional.empty(), FailoverStep.CHECKING_B, "")));
        source.setDaemon(true);
        source.start();
        assertThat(halted.await(5, TimeUnit.MINUTES)).isTrue();
    }
}
