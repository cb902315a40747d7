package io.volrep.cli;

import static io.volrep.cli.CallCommandsTest.volrep;
import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.cli.CallCommandsTest.Run;
import io.volrep.client.RetryPolicy;
import io.volrep.testkit.fake.FakePlugin;
import io.volrep.testsupport.GrpcCleanup;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Quiet when all is well, clear when a wait is real (issue 34, items 1 and 5): the progress line shows a back-off,
 * a missing connection and {@code --await-ready}'s polls, never a plugin that is there and answers (a JVM that started
 * slowly, a reconciliation whose expected refusals are part of its way); its first line says what it waits for.
 */
class ProgressTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    @Test
    void aSlowAnswerFromAPluginThatIsThereShowsNothing(@TempDir Path dir) {
        FakePlugin fake = grpc.register(FakePlugin.builder()
                .volumes(1)
                .listen("unix://" + dir.resolve("slow.sock"))
                .start());
        fake.latency(Rpc.ENABLE_VOLUME_REPLICATION, Duration.ofMillis(1_500));
        Run run = volrep("enable", "--volume", "vol-0", "--endpoint", fake.address());
        assertThat(run.exit()).as(run.all()).isZero();
        assertThat(run.out()).contains("EnableVolumeReplication volume vol-0: OK");
        assertThat(run.err())
                .as("a plugin that answers in 1.5 s is no wait to show")
                .isEmpty();
    }

    @Test
    void aReconcileThatSucceedsShowsNoAnswerMidway(@TempDir Path dir) {
        FakePlugin fake = grpc.register(FakePlugin.builder()
                .volumes(1)
                .listen("unix://" + dir.resolve("rec.sock"))
                .start());
        for (Rpc rpc : new Rpc[] {Rpc.GET_VOLUME_REPLICATION_INFO, Rpc.ENABLE_VOLUME_REPLICATION, Rpc.PROMOTE_VOLUME}) {
            fake.latency(rpc, Duration.ofMillis(500));
        }
        Run run = volrep("reconcile", "--volume", "vol-0", "--state", "primary", "--endpoint", fake.address());
        assertThat(run.exit()).as(run.all()).isZero();
        assertThat(fake.calls(Rpc.GET_VOLUME_REPLICATION_INFO))
                .extracting(c -> c.code())
                .as("the reconciliation met a refusal on its way")
                .contains(StatusCode.FAILED_PRECONDITION);
        assertThat(run.err()).as("its refusals are no wait to show").isEmpty();
    }

    @Test
    void theFirstLineSaysWhatTheCallWaitsFor(@TempDir Path dir) {
        Path missing = dir.resolve("nope.sock");
        Run run = volrep("info", "--volume", "vol-0", "--endpoint", missing.toString(), "--timeout", "3s");
        assertThat(run.exit()).as(run.all()).isEqualTo(1);
        assertThat(run.err().lines().findFirst())
                .get()
                .asString()
                .matches("waiting for the plugin at unix://" + missing + " to accept connections: no such socket file "
                        + missing + " \\(1\\.\\d s elapsed; each call gives up after 3 s, see --timeout\\)");
        assertThat(run.err())
                .contains("error: GetVolumeReplicationInfo for volume vol-0 failed with 4"
                        + " DEADLINE_EXCEEDED: no answer from the plugin at unix://" + missing
                        + " within the call's deadline:"
                        + " it waited for the plugin to accept connections (no such socket file " + missing + ")");
    }

    @Test
    void aBackOffShowsWithTheLastAnswerAndTheNextTry(@TempDir Path dir) {
        FakePlugin fake = grpc.register(FakePlugin.builder()
                .volumes(1)
                .listen("unix://" + dir.resolve("busy.sock"))
                .start());
        assertThat(volrep("enable", "--volume", "vol-0", "--endpoint", fake.address())
                        .exit())
                .isZero();
        fake.failNext(Rpc.PROMOTE_VOLUME, 3, StatusCode.ABORTED);
        // Back-offs of 0.5, 1 and 2 s: waits of 3.5 s in all.
        Run run = volrep("promote", "--volume", "vol-0", "--endpoint", fake.address(), "--jitter", "none");
        assertThat(run.exit()).as(run.all()).isZero();
        assertThat(run.err())
                .containsPattern("waiting for volrep promote volume vol-0 at " + fake.address()
                        + ": \\d\\.\\d s elapsed, last answer 10 ABORTED \\(attempt 3\\), next try in \\d\\.\\d s");
    }

    @Test
    void theLibrarysConnectionWarningsGiveWayToTheProgressLineUnlessVerbose() {
        String property = "org.slf4j.simpleLogger.log.io.volrep.client.ConnectionWatch";
        String before = System.getProperty(property);
        try {
            System.clearProperty(property);
            Progress.quietLibraryConnectionWarnings("failover", "--from", "unix:///a.sock", "--to", "unix:///b.sock");
            assertThat(System.getProperty(property))
                    .as("failover shows no Progress line")
                    .isNull();
            Progress.quietLibraryConnectionWarnings("info", "--volume", "vol-0", "-v");
            assertThat(System.getProperty(property)).as("-v shows everything").isNull();
            Progress.quietLibraryConnectionWarnings("info", "--volume", "vol-0");
            assertThat(System.getProperty(property)).isEqualTo("error");
        } finally {
            if (before == null) {
                System.clearProperty(property);
            } else {
                System.setProperty(property, before);
            }
        }
    }

    @Test
    void typedCommandsGiveUpAfterAMinuteByDefault() {
        RetryPolicy policy = new ClientOptions().retryPolicy();
        assertThat(policy.totalTimeout()).isEqualTo(Duration.ofMinutes(1));
        assertThat(policy.perAttemptTimeout()).isEqualTo(Duration.ofMinutes(1));
        assertThat(volrep("info", "--help").out().replaceAll("\\s+", " ")).contains("(default: 60s,");
    }
}
