package io.volrep.it.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.volrep.cli.VolrepCommand;
import io.volrep.it.interop.Interop.Peer;
import io.volrep.it.interop.Interop.Result;
import io.volrep.testsupport.GrpcCleanup;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/**
 * Issue 6's {@code volrep heal} criterion against the independent node plugin (interop/plugin.js), and issue 7's
 * dialect criterion: {@code volrep enable|demote|resync --await-ready --dialect v0.1.3|v0.1.0} driving
 * independent plugins of those revisions (interop/legacy-v013.js, legacy-v010.js). Each test is skipped, with
 * the reason, while the CLI lacks the feature. The CLI runs in-process here (see {@link #cli}); the ClientRetry IT
 * covers the jar's own process output.
 */
class HealAndDialectInteropIT {
    @RegisterExtension
    final GrpcCleanup cleanup = new GrpcCleanup();

    @TempDir
    Path dir;

    @BeforeEach
    void requireNode() {
        Interop.assumeNodeAndJar();
    }

    private Peer start(String script, String... extra) {
        var socket = Interop.socketPath();
        List<String> args = new ArrayList<>(List.of("--listen", "unix://" + socket, "--quiet"));
        args.addAll(List.of(extra));
        Peer p = Peer.start(socket, Interop.node(script, args.toArray(String[]::new)));
        cleanup.register(p);
        return p;
    }

    @Test
    void healAgainstTheIndependentNodePlugin() {
        assumeTrue(Interop.cliSupports("heal", "--staging-path"), "volrep heal has not landed (issue 6)");
        Peer p = start("plugin.js", "--abnormal-volume", "vol-7", "--secret", "user=admin");
        String[] common = {"--endpoint", p.endpoint(), "--secret", "user=admin"};

        Result healthy = cli(concat(
                new String[] {"heal", "--volume", "vol-0", "--path", "/var/lib/kubelet/pods/i/vol-0", "--mount", "ext4"
                },
                common));
        assertThat(healthy.exit()).as(healthy.output()).isZero();
        assertThat(healthy.output()).contains("healthy").doesNotContain("admin");

        Result abnormal = cli(
                concat(new String[] {"heal", "--volume", "vol-7", "--path", "/var/lib/kubelet/pods/i/vol-7"}, common));
        assertThat(abnormal.exit()).as(abnormal.output()).isEqualTo(3);
        assertThat(abnormal.output()).contains("abnormal: volume vol-7 has I/O errors");

        Result missing = cli(concat(
                new String[] {"heal", "--volume", "no-such-volume", "--path", "/var/lib/kubelet/pods/i/x"}, common));
        assertThat(missing.exit()).as(missing.output()).isNotIn(0, 3);
        assertThat(missing.output()).contains("5 NOT_FOUND");

        Result relative = cli(concat(
                new String[] {
                    "heal",
                    "--volume",
                    "vol-0",
                    "--path",
                    "/var/lib/kubelet/pods/i/vol-0",
                    "--staging-path",
                    "staging/vol-0"
                },
                common));
        assertThat(relative.exit()).as(relative.output()).isNotIn(0, 3);
        assertThat(relative.output()).contains("3 INVALID_ARGUMENT").contains("staging");
    }

    @ParameterizedTest(name = "--dialect {0} against {1}")
    @CsvSource({"v0.1.3, legacy-v013.js", "v0.1.0, legacy-v010.js"})
    void dialectDrivesTheLegacyPluginThroughEnableDemoteResyncUntilReady(String dialect, String script)
            throws IOException {
        assumeTrue(Interop.cliSupports("enable", "--dialect"), "volrep has no --dialect yet (issue 7)");
        Path calls = dir.resolve("calls.json");
        Peer p = start(script, "--secret", "user=admin", "--calls-file", calls.toString());

        for (String[] step : List.of(
                new String[] {"enable"},
                new String[] {"promote"},
                new String[] {"demote"},
                new String[] {"resync", "--await-ready", "PT20S"},
                new String[] {"promote"},
                new String[] {"disable"})) {
            List<String> args = new ArrayList<>(List.of(step));
            args.addAll(List.of(
                    "--endpoint", p.endpoint(), "--dialect", dialect, "--volume", "vol-1", "--secret", "user=admin"));
            Result r = cli(args.toArray(String[]::new));
            assertThat(r.exit())
                    .as(String.join(" ", step) + " --dialect " + dialect + ":\n" + r.output())
                    .isZero();
        }
        CallsFile log = CallsFile.read(calls);
        assertThat(log.calls())
                .as("every call reached the plugin as volume vol-1 and succeeded")
                .allSatisfy(c -> {
                    assertThat(c.source()).isEqualTo("volume vol-1");
                    assertThat(c.code()).isEqualTo("OK");
                });
        assertThat(log.of("ResyncVolume")).hasSizeGreaterThanOrEqualTo(2);
    }

    @Test
    void v013DialectAddressesGroupsWithThatRevisionsFieldNumbers() throws IOException {
        assumeTrue(Interop.cliSupports("enable", "--dialect"), "volrep has no --dialect yet (issue 7)");
        Path calls = dir.resolve("calls.json");
        Peer p = start("legacy-v013.js", "--calls-file", calls.toString());

        Result group = cli("enable", "--endpoint", p.endpoint(), "--dialect", "v0.1.3", "--volume-group", "grp-1");
        assertThat(group.exit()).as(group.output()).isZero();
        Result disable = cli("disable", "--endpoint", p.endpoint(), "--dialect", "v0.1.3", "--volume-group", "grp-1");
        assertThat(disable.exit()).as(disable.output()).isZero();
        assertThat(CallsFile.read(calls).calls())
                .extracting(CallsFile.Call::source)
                .containsExactly("volumegroup grp-1", "volumegroup grp-1");

        // The wire hazard: a current-dialect volume source (volume = 1) reads as a volume group to v0.1.3.
        Result wrongDialect = cli("enable", "--endpoint", p.endpoint(), "--volume", "vol-1", "--max-attempts", "1");
        assertThat(wrongDialect.exit()).as(wrongDialect.output()).isNotZero();
        assertThat(CallsFile.read(calls).calls().get(2).source()).isEqualTo("volumegroup vol-1");
    }

    @Test
    void infoUnderV010FailsBeforeSending() throws IOException {
        assumeTrue(Interop.cliSupports("info", "--dialect"), "volrep has no --dialect yet (issue 7)");
        Path calls = dir.resolve("calls.json");
        Peer p = start("legacy-v010.js", "--calls-file", calls.toString());

        Result r = cli("info", "--endpoint", p.endpoint(), "--dialect", "v0.1.0", "--volume", "vol-0");

        assertThat(r.exit()).as(r.output()).isNotZero();
        assertThat(CallsFile.read(calls).calls()).isEmpty();
    }

    /**
     * Runs {@code volrep args} in this JVM (the same command classes the jar holds): a JVM start per step would
     * cost more than the steps. Output and error streams are captured together.
     */
    private static Result cli(String... args) {
        CommandLine cli = VolrepCommand.commandLine();
        StringWriter out = new StringWriter();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(out, true));
        int exit = cli.execute(args);
        return new Result(exit, out.toString());
    }

    private static String[] concat(String[] a, String[] b) {
        String[] out = new String[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
