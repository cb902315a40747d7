package io.volrep.it.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.cli.VolrepCommand;
import io.volrep.it.interop.Interop.Peer;
import io.volrep.it.interop.Interop.Result;
import io.volrep.testsupport.GrpcCleanup;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Issue 4's criterion: {@code volrep enable|promote|...} (the typed client with the spec's retry policy) against
 * independent Node plugins over a unix socket: interop/faulty.js answers scripted codes and records every call;
 * interop/plugin.js has the spec's semantics.
 */
class ClientRetryInteropIT {
    private static final Pattern RETRY_DELAY = Pattern.compile("attempt (\\d+): 10 ABORTED -> retry in (\\d+) ms");

    @RegisterExtension
    final GrpcCleanup cleanup = new GrpcCleanup();

    private final String secretValue =
            "s3cr3t-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());

    @TempDir
    Path dir;

    @BeforeEach
    void requireNode() {
        Interop.assumeNodeAndJar();
    }

    private Peer faulty(Path calls, String... scripts) {
        var socket = Interop.socketPath();
        List<String> args = new ArrayList<>(List.of("--listen", "unix://" + socket, "--calls-file", calls.toString()));
        for (String s : scripts) {
            args.addAll(List.of("--script", s));
        }
        Peer p = Peer.start(socket, Interop.node("faulty.js", args.toArray(String[]::new)));
        cleanup.register(p);
        return p;
    }

    private Result volrep(String command, Peer p, String... extra) {
        List<String> args =
                new ArrayList<>(List.of(command, "--endpoint", p.endpoint(), "--secret", "password=" + secretValue));
        args.addAll(List.of(extra));
        return Interop.run(Interop.volrep(args.toArray(String[]::new)), Interop.RUN_TIMEOUT);
    }

    /**
     * The same command in this JVM (the classes the jar is built from): the failover sequence has seven steps and
     * a JVM start each would dominate the suite. The other tests run the jar and check its whole output.
     */
    private Result inProcess(String command, Peer p, String... extra) {
        List<String> args =
                new ArrayList<>(List.of(command, "--endpoint", p.endpoint(), "--secret", "password=" + secretValue));
        args.addAll(List.of(extra));
        CommandLine cli = VolrepCommand.commandLine();
        StringWriter out = new StringWriter();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(out, true));
        int exit = cli.execute(args.toArray(String[]::new));
        return new Result(exit, out.toString());
    }

    @Test
    void abortedThreeTimesThenOkSucceedsOnAttemptFourWithBackOff() throws IOException {
        Path calls = dir.resolve("calls.json");
        Peer p = faulty(calls, "EnableVolumeReplication=ABORTED*3");

        Result r = volrep("enable", p, "--volume", "vol-0", "-v");

        assertThat(r.exit()).as(r.output()).isZero();
        assertThat(r.output()).contains("attempt 4: 0 OK").doesNotContain(secretValue);
        CallsFile log = CallsFile.read(calls);
        assertThat(log.of("EnableVolumeReplication"))
                .extracting(CallsFile.Call::code)
                .containsExactly("ABORTED", "ABORTED", "ABORTED", "OK");
        assertThat(log.calls()).allSatisfy(c -> assertThat(c.secretKeys()).isEqualTo("\"password\""));
        // Each printed delay stays within the upper half of the policy's exponential cap (500 ms doubling; the
        // CLI's default --jitter equal draws in [cap/2, cap)), the plugin saw at least that gap between the
        // calls, and the gaps grow (the "growing gaps").
        Matcher m = RETRY_DELAY.matcher(r.output());
        List<Long> delays = new ArrayList<>();
        while (m.find()) {
            int attempt = Integer.parseInt(m.group(1));
            long delay = Long.parseLong(m.group(2));
            assertThat(delay)
                    .as("delay after attempt %d", attempt)
                    .isBetween(250L << (attempt - 1), 500L << (attempt - 1));
            delays.add(delay);
        }
        assertThat(delays).as(r.output()).hasSize(3);
        List<CallsFile.Call> c = log.calls();
        List<Long> gaps = new ArrayList<>();
        for (int i = 1; i < c.size(); i++) {
            long gap = c.get(i).atMs() - c.get(i - 1).atMs();
            assertThat(gap).as("gap before call %d", i + 1).isGreaterThanOrEqualTo(delays.get(i - 1) - 5);
            gaps.add(gap);
        }
        assertThat(gaps.get(1)).as("gaps seen by the plugin: %s", gaps).isGreaterThan(gaps.get(0));
        assertThat(gaps.get(2)).as("gaps seen by the plugin: %s", gaps).isGreaterThan(gaps.get(1));
    }

    @Test
    void failedPreconditionMakesExactlyOneCallAndExitsNonZero() throws IOException {
        Path calls = dir.resolve("calls.json");
        Peer p = faulty(calls, "PromoteVolume=FAILED_PRECONDITION*5");

        Result r = volrep("promote", p, "--volume", "vol-0", "-v");

        assertThat(r.exit()).as(r.output()).isNotZero();
        assertThat(r.output())
                .contains("9 FAILED_PRECONDITION")
                .contains("after 1 attempt(s)")
                .doesNotContain(secretValue);
        assertThat(CallsFile.read(calls).of("PromoteVolume")).hasSize(1);
    }

    @Test
    void unimplementedMakesExactlyOneCallAndExitsNonZero() throws IOException {
        Path calls = dir.resolve("calls.json");
        Peer p = faulty(calls, "DemoteVolume=UNIMPLEMENTED*5");

        Result r = volrep("demote", p, "--volume-group", "grp-0", "-v");

        assertThat(r.exit()).as(r.output()).isNotZero();
        assertThat(r.output()).contains("12 UNIMPLEMENTED").doesNotContain(secretValue);
        assertThat(CallsFile.read(calls).of("DemoteVolume")).hasSize(1);
    }

    @Test
    void unavailableTwiceThenOkMakesThreeCallsAndSucceeds() throws IOException {
        Path calls = dir.resolve("calls.json");
        Peer p = faulty(calls, "DisableVolumeReplication=UNAVAILABLE*2");

        Result r = volrep("disable", p, "--volume", "vol-3", "-v");

        assertThat(r.exit()).as(r.output()).isZero();
        assertThat(r.output()).doesNotContain(secretValue);
        assertThat(CallsFile.read(calls).of("DisableVolumeReplication"))
                .extracting(CallsFile.Call::code)
                .containsExactly("UNAVAILABLE", "UNAVAILABLE", "OK");
    }

    @Test
    void emptyVolumeIdMakesNoCall() throws IOException {
        Path calls = dir.resolve("calls.json");
        Peer p = faulty(calls);

        Result r = volrep("enable", p, "--volume", "", "-v");

        assertThat(r.exit()).as(r.output()).isNotZero();
        assertThat(r.output()).contains("INVALID_ARGUMENT").doesNotContain(secretValue);
        assertThat(CallsFile.read(calls).calls()).isEmpty();
    }

    @Test
    void failoverSequenceAgainstTheIndependentPluginNeverPrintsTheSecret() throws IOException {
        var socket = Interop.socketPath();
        Path calls = dir.resolve("calls.json");
        Peer p = Peer.start(
                socket,
                Interop.node(
                        "plugin.js",
                        "--listen",
                        "unix://" + socket,
                        "--secret",
                        "password=" + secretValue,
                        "--calls-file",
                        calls.toString(),
                        "--quiet"));
        cleanup.register(p);

        StringBuilder all = new StringBuilder();
        for (String[] step : List.of(
                new String[] {"enable"},
                new String[] {"promote"},
                new String[] {"demote"},
                new String[] {"resync", "--await-ready", "PT20S"},
                new String[] {"promote"},
                new String[] {"info"},
                new String[] {"disable"})) {
            List<String> extra = new ArrayList<>(List.of(step).subList(1, step.length));
            extra.addAll(List.of("--volume", "vol-2", "-v"));
            Result r = inProcess(step[0], p, extra.toArray(String[]::new));
            all.append(r.output());
            assertThat(r.exit()).as(step[0] + ":\n" + r.output()).isZero();
        }
        assertThat(all.toString()).doesNotContain(secretValue).contains("ready");
        List<CallsFile.Call> resyncs = CallsFile.read(calls).of("ResyncVolume");
        assertThat(resyncs)
                .as("resync --await-ready polls until ready (the plugin is ready on the 2nd call)")
                .hasSizeGreaterThanOrEqualTo(2)
                .allSatisfy(c -> assertThat(c.code()).isEqualTo("OK"));
        assertThat(Files.readString(calls)).doesNotContain(secretValue);
    }
}
