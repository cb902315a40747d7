package io.volrep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.client.RetryPolicy.Jitter;
import io.volrep.spi.ReplicationServer;
import io.volrep.testkit.fake.FakePlugin;
import io.volrep.testkit.fake.RawHttp2Plugin;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testkit.reference.ReferencePlugin;
import io.volrep.testsupport.GrpcCleanup;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The typed call commands, run in-process against plugins on real unix sockets. */
class CallCommandsTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    static final String SECRET = "Sup3r-s3cret-value";

    record Run(int exit, String out, String err) {
        String all() {
            return out + err;
        }
    }

    static Run volrep(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        var cli = VolrepCommand.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int exit = cli.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    static String[] args(String endpoint, String... rest) {
        List<String> all = new ArrayList<>(List.of(rest));
        all.addAll(List.of("--endpoint", endpoint, "--secret", "password=" + SECRET, "-v"));
        return all.toArray(String[]::new);
    }

    @Test
    void aResponseFollowedByAnErrorStatusExitsNonZero() throws Exception {
        // Issue 13 point 1: the plugin's final status decides, not the response that came before it.
        RawHttp2Plugin plugin = grpc.register(new RawHttp2Plugin(RawHttp2Plugin.Script.of(
                new RawHttp2Plugin.Message(new byte[0]), new RawHttp2Plugin.Trailers(13, "disk on fire"))));
        Run run = volrep(args(plugin.target(), "enable", "--volume", "vol-0"));
        assertThat(run.exit()).as(run.all()).isNotZero();
        assertThat(run.err()).contains("INTERNAL").contains("disk on fire");
    }

    @Test
    void failFastGivesUpOnAMissingPluginWithinTheAttemptBudgetWhileTheDefaultWaits(@TempDir Path dir) {
        String endpoint = "unix://" + dir.resolve("nobody.sock");
        long start = System.nanoTime();
        Run fast = volrep(args(
                endpoint, "enable", "--volume", "vol-0", "--fail-fast", "--max-attempts", "2", "--timeout", "PT20S"));
        long fastMillis = (System.nanoTime() - start) / 1_000_000;
        assertThat(fast.exit()).as(fast.all()).isNotZero();
        assertThat(fast.err()).contains("UNAVAILABLE").contains(endpoint);
        assertThat(fastMillis).isLessThan(10_000);

        start = System.nanoTime();
        Run waiting = volrep(args(endpoint, "enable", "--volume", "vol-0", "--max-attempts", "2", "--timeout", "PT2S"));
        long waitedMillis = (System.nanoTime() - start) / 1_000_000;
        assertThat(waiting.exit()).as(waiting.all()).isNotZero();
        assertThat(waiting.err()).contains("DEADLINE_EXCEEDED").contains(endpoint);
        assertThat(waitedMillis).isGreaterThanOrEqualTo(1_900);
    }

    @Test
    void failoverSequenceAgainstTheReferencePlugin(@TempDir Path dir) {
        ReferenceDriver driver = ReferenceDriver.builder()
                .volumes(2)
                .requiredSecret("password", SECRET)
                .build();
        ReplicationServer server = grpc.register(ReferencePlugin.start(driver, "unix://" + dir.resolve("ref.sock")));
        String endpoint = server.address();
        List<Run> runs = new ArrayList<>();
        runs.add(volrep(args(endpoint, "enable", "--volume", "vol-0", "--param", "mode=snapshot")));
        runs.add(volrep(args(endpoint, "demote", "--volume", "vol-0")));
        runs.add(volrep(args(endpoint, "resync", "--volume", "vol-0", "--await-ready", "PT30S")));
        runs.add(volrep(args(endpoint, "promote", "--volume", "vol-0", "--force")));
        runs.add(volrep(args(endpoint, "info", "--volume", "vol-0")));
        for (Run run : runs) {
            assertThat(run.exit()).as(run.all()).isZero();
            assertThat(run.all()).doesNotContain(SECRET);
        }
        assertThat(runs.get(0).out()).contains("EnableVolumeReplication volume vol-0: OK");
        assertThat(runs.get(2).out()).contains("ready=true");
        // Two ResyncVolume calls: the reference plugin is ready on the second.
        assertThat(runs.get(2).err()).contains("ResyncVolume volume vol-0 attempt 1: 0 OK");
        assertThat(runs.get(4).out())
                .containsPattern("last sync time: +\\d{4}-\\d\\d-\\d\\dT")
                .contains("last sync duration:")
                .contains("last sync bytes:");

        Run noSecret = volrep("promote", "--volume", "vol-0", "--endpoint", endpoint);
        assertThat(noSecret.exit()).isEqualTo(1);
        assertThat(noSecret.err()).contains("16 UNAUTHENTICATED").contains("regalvanize");
    }

    @Test
    void retriesAndFailuresAgainstTheFaultInjectingFake(@TempDir Path dir) {
        FakePlugin fake = grpc.register(FakePlugin.builder()
                .volumes(2)
                .requiredSecret("password", SECRET)
                .listen("unix://" + dir.resolve("fake.sock"))
                .start());
        String endpoint = fake.address();
        assertThat(volrep(args(endpoint, "enable", "--volume", "vol-0")).exit()).isZero();
        fake.clearCalls();

        fake.failNext(Rpc.PROMOTE_VOLUME, 3, StatusCode.ABORTED);
        Run aborted = volrep(args(endpoint, "promote", "--volume", "vol-0", "--max-attempts", "5"));
        assertThat(aborted.exit()).as(aborted.all()).isZero();
        assertThat(fake.calls(Rpc.PROMOTE_VOLUME)).hasSize(4);
        assertThat(aborted.err())
                .contains("PromoteVolume volume vol-0 attempt 1: 10 ABORTED -> retry in ")
                .contains("attempt 4: 0 OK")
                .doesNotContain(SECRET);

        fake.failNext(Rpc.DEMOTE_VOLUME, 2, StatusCode.UNAVAILABLE);
        Run unavailable = volrep(args(endpoint, "demote", "--volume", "vol-0"));
        assertThat(unavailable.exit()).as(unavailable.all()).isZero();
        assertThat(fake.calls(Rpc.DEMOTE_VOLUME)).hasSize(3);

        fake.failNext(Rpc.RESYNC_VOLUME, 1, StatusCode.UNIMPLEMENTED);
        Run unimplemented = volrep(args(endpoint, "resync", "--volume", "vol-0"));
        assertThat(unimplemented.exit()).isEqualTo(1);
        assertThat(unimplemented.err()).contains("code: 12 UNIMPLEMENTED").contains("Caller MUST NOT retry.");
        assertThat(fake.calls(Rpc.RESYNC_VOLUME)).hasSize(1);

        // vol-1 never had replication enabled: the plugin's own FAILED_PRECONDITION.
        Run precondition = volrep(args(endpoint, "promote", "--volume", "vol-1"));
        assertThat(precondition.exit()).isEqualTo(1);
        assertThat(precondition.err())
                .contains("code: 9 FAILED_PRECONDITION")
                .contains("Caller SHOULD ensure that replication is enabled.")
                .doesNotContain(SECRET);
        assertThat(fake.calls(Rpc.PROMOTE_VOLUME)).hasSize(5);

        int before = fake.calls().size();
        Run empty = volrep(args(endpoint, "promote", "--volume", ""));
        assertThat(empty.exit()).isEqualTo(1);
        assertThat(empty.err())
                .contains("3 INVALID_ARGUMENT")
                .contains("after 0 attempt(s)")
                .contains("replication_source.volume.volume_id");
        assertThat(fake.calls()).hasSize(before);
    }

    @Test
    void abortedThreeTimesThenOkShowsStrictlyGrowingGapsByDefault(@TempDir Path dir) {
        FakePlugin fake = grpc.register(FakePlugin.builder()
                .volumes(1)
                .listen("unix://" + dir.resolve("gaps.sock"))
                .start());
        assertThat(volrep("enable", "--volume", "vol-0", "--endpoint", fake.address())
                        .exit())
                .isZero();
        fake.failNext(Rpc.PROMOTE_VOLUME, 3, StatusCode.ABORTED);
        Run run = volrep("promote", "--volume", "vol-0", "--endpoint", fake.address()); // default --jitter
        assertThat(run.exit()).as(run.all()).isZero();
        var calls = fake.calls(Rpc.PROMOTE_VOLUME);
        assertThat(calls)
                .extracting(c -> c.code())
                .containsExactly(StatusCode.ABORTED, StatusCode.ABORTED, StatusCode.ABORTED, StatusCode.OK);
        List<Duration> gaps = new ArrayList<>();
        for (int i = 1; i < calls.size(); i++) {
            gaps.add(Duration.between(calls.get(i - 1).started(), calls.get(i).started()));
        }
        assertThat(gaps.get(1)).as("gaps seen by the plugin: %s", gaps).isGreaterThan(gaps.get(0));
        assertThat(gaps.get(2)).as("gaps seen by the plugin: %s", gaps).isGreaterThan(gaps.get(1));
    }

    @Test
    void jitterOptionChoosesThePolicysJitter() {
        ClientOptions o = new ClientOptions();
        assertThat(o.retryPolicy().jitter()).as("the CLI's default").isEqualTo(Jitter.EQUAL);
        assertThat(new ClientOptions.JitterConverter().convert("Full")).isEqualTo(Jitter.FULL);
        assertThat(new ClientOptions.JitterConverter().convert("none")).isEqualTo(Jitter.NONE);
        Run bad = volrep("promote", "--volume", "vol-0", "--jitter", "some");
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err()).contains("use full, equal or none");
        assertThat(volrep("promote", "--help").out()).contains("--jitter").contains("Default: equal");
    }

    @Test
    void usageErrors() {
        assertThat(volrep("promote", "--volume", "a", "--volume-group", "b").exit())
                .isEqualTo(2);
        assertThat(volrep("promote").exit()).isEqualTo(2);
        Run badDuration = volrep("resync", "--volume", "a", "--await-ready", "5 minutes");
        assertThat(badDuration.exit()).isEqualTo(2);
        assertThat(badDuration.err()).contains("ISO-8601");
        assertThat(volrep("info", "--help").out())
                .contains("--endpoint")
                .contains("--secret")
                .contains("--timeout");
    }

    @Test
    void timeoutAndMaxAttemptsShapeThePolicy() {
        ClientOptions o = new ClientOptions();
        o.maxAttempts = 2;
        o.timeout = Duration.ofSeconds(5);
        var policy = o.retryPolicy();
        assertThat(policy.maxAttempts()).isEqualTo(2);
        assertThat(policy.totalTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(policy.perAttemptTimeout()).isEqualTo(Duration.ofSeconds(5));
    }
}
