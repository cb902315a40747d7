package io.volrep.cli;

import static io.volrep.cli.CallCommandsTest.volrep;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.volrep.cli.CallCommandsTest.Run;
import io.volrep.spi.ReplicationServer;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testkit.reference.ReferencePlugin;
import io.volrep.testsupport.GrpcCleanup;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** What a new user trips over (issue 17 points 1-4 and 9, issue 13 point 5), run as the user would. */
class NewUserStumblesTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    static final String SECRET = "Sup3r-s3cret-value";

    /** A usage error is the error and one line pointing to --help: no stack trace, no whole help. */
    static void assertOneLineUsageError(Run run, String command, String... fragments) {
        assertThat(run.exit()).as(run.all()).isEqualTo(2);
        assertThat(run.err())
                .as(run.all())
                .contains(fragments)
                .doesNotContain("\tat ")
                .doesNotContain("Usage:")
                .doesNotContain("Exception");
        assertThat(run.err().lines().toList())
                .as(run.err())
                .hasSizeLessThanOrEqualTo(3)
                .last()
                .isEqualTo("Try '" + command + " --help' for the options.");
        assertThat(run.out()).isEmpty();
    }

    @Test
    void aPlainAbsolutePathIsAUnixSocket(@TempDir Path dir) {
        ReferenceDriver driver = ReferenceDriver.builder().volumes(1).build();
        Path socket = dir.resolve("csi-addons.sock");
        try (ReplicationServer server = ReferencePlugin.start(driver, "unix://" + socket)) {
            Run enable = volrep("enable", "--endpoint", socket.toString(), "--volume", "vol-0");
            assertThat(enable.exit()).as(enable.all()).isZero();
            assertThat(enable.out()).contains("EnableVolumeReplication volume vol-0: OK");
            Run probe = volrep("probe", "--endpoint", socket.toString());
            assertThat(probe.exit()).as(probe.all()).isZero();
        }
        Run conformance = volrep("conformance", "--endpoint", socket.toString(), "--volume", "vol-0");
        assertThat(conformance.exit())
                .as("nothing listens any more: one line, exit 2")
                .isEqualTo(2);
        assertThat(conformance.err().strip())
                .isEqualTo("volrep conformance: cannot reach the plugin at unix://" + socket + ": no such socket file "
                        + socket);
        assertThat(conformance.out()).doesNotContain("FAILED").doesNotContain("check");
    }

    @Test
    void anUnusableEndpointIsOneLineAndExit2() {
        assertOneLineUsageError(
                volrep("info", "--volume", "v", "--endpoint", "csi.sock"),
                "volrep info",
                "unusable endpoint \"csi.sock\"",
                "a relative path?");
        assertOneLineUsageError(
                volrep("info", "--volume", "v", "--endpoint", "http://localhost:80"),
                "volrep info",
                "unknown scheme \"http\"");
        assertOneLineUsageError(
                volrep("probe", "--endpoint", "localhost:http"), "volrep probe", "the port must be a number");
        assertOneLineUsageError(
                volrep("conformance", "--endpoint", "unix://relative/x.sock", "--volume", "v"),
                "volrep conformance",
                "unix:// must be followed by an absolute path");
    }

    @Test
    void aKeyValueOptionWithoutEqualsSaysSoOnceAndNeverEchoesTheValue() {
        // issue 34 item 5: picocli said "Value for option option '--secret' ... but was <the value>"
        Run secret = volrep("info", "--volume", "v", "--secret", SECRET);
        assertOneLineUsageError(secret, "volrep info", "--secret", "KEY=VALUE");
        assertThat(secret.err()).doesNotContain("option option").doesNotContain(SECRET);
        Run parameter = volrep("enable", "--volume", "v", "--parameter", "schedulingInterval");
        assertOneLineUsageError(parameter, "volrep enable", "--parameter", "KEY=VALUE");
        assertThat(parameter.err()).doesNotContain("option option");
    }

    @Test
    void listenNeverCreatesADirectory(@TempDir Path dir) {
        Path missing = dir.resolve("no-such-dir");
        assertOneLineUsageError(
                volrep("serve-reference", "--listen", missing.resolve("x.sock").toString()),
                "volrep serve-reference",
                "the directory " + missing + " does not exist");
        assertOneLineUsageError(
                volrep("serve-exec", "--driver", "/bin/true", "--listen", "unix://" + missing.resolve("x.sock")),
                "volrep serve-exec",
                "does not exist");
        assertOneLineUsageError(
                volrep("serve-reference", "--listen", "ftp://host:21"),
                "volrep serve-reference",
                "unknown scheme \"ftp\"");
        assertThat(missing).doesNotExist();
    }

    @Test
    void aLiveSocketIsOneLineAndExit2(@TempDir Path dir) {
        ReferenceDriver driver = ReferenceDriver.builder().volumes(1).build();
        grpc.register(ReferencePlugin.start(driver, "unix://" + dir.resolve("live.sock")));
        Run second =
                volrep("serve-reference", "--listen", dir.resolve("live.sock").toString());
        assertThat(second.exit()).as(second.all()).isEqualTo(2);
        assertThat(second.err().lines().toList())
                .hasSize(1)
                .first()
                .asString()
                .startsWith("volrep serve-reference: cannot listen on")
                .contains("another server");
    }

    @Test
    void anUnreachablePluginIsNamedWithItsReasonAndTheWaitShows(@TempDir Path dir) throws IOException {
        Path missing = dir.resolve("missing.sock");
        // The client waits for a plugin it cannot reach (a restart, issue 21) within the call's budget.
        Run noFile = volrep("info", "--volume", "vol-0", "--endpoint", missing.toString(), "--timeout", "3s");
        assertThat(noFile.exit()).as(noFile.all()).isEqualTo(1);
        assertThat(noFile.err())
                .contains("unreachable: the plugin at unix://" + missing + ": no such socket file " + missing)
                .containsPattern("code: (14 UNAVAILABLE|4 DEADLINE_EXCEEDED)");
        // three seconds of waiting: the wait showed without -v
        // (waiting for the plugin, gRPC holds the attempt until its deadline: no answer comes in between)
        assertThat(noFile.err())
                // the line says what the call waits for, and why the plugin cannot be reached, found by looking
                .contains("waiting for the plugin at unix://" + missing + " to accept connections: no such socket file "
                        + missing + " (")
                .containsPattern("\\d\\.\\d s elapsed; each call gives up after 3 s, see --timeout\\)")
                .doesNotContain(" attempt 1: ") // the -v line format: not printed without -v
                .doesNotContain("Name resolution delay"); // gRPC's internal dump, replaced by what happened
        assertThat(noFile.out()).isEmpty();

        Path stale = dir.resolve("stale.sock");
        try (ServerSocketChannel gone = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            gone.bind(UnixDomainSocketAddress.of(stale));
        } // closed: the file stays, nobody listens
        Run refused = volrep("promote", "--volume", "vol-0", "--endpoint", "unix://" + stale, "--timeout", "2s");
        assertThat(refused.err()).contains("unreachable: the plugin at unix://" + stale + ": connection refused");

        assertThat(Endpoint.whyUnreachable("unix://" + dir)).hasValue(dir + " is not a socket");
        assertThat(Endpoint.whyUnreachable("127.0.0.1:1")).get().asString().startsWith("connection refused");
    }

    @Test
    void permissionDeniedIsNamed(@TempDir Path dir) throws IOException {
        assumeFalse("root".equals(System.getProperty("user.name")), "root connects through any permission");
        Path socket = dir.resolve("private.sock");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(socket));
            Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("---------"));
            assertThat(Endpoint.whyUnreachable("unix://" + socket))
                    .get()
                    .asString()
                    .startsWith("permission denied");
        }
    }

    @Test
    void resyncAwaitReadyShowsItsPollsOnStderrOnly(@TempDir Path dir) {
        ReferenceDriver driver =
                ReferenceDriver.builder().volumes(1).resyncCallsUntilReady(3).build();
        ReplicationServer server = grpc.register(ReferencePlugin.start(driver, "unix://" + dir.resolve("ref.sock")));
        String endpoint = server.address();
        assertThat(volrep("enable", "--endpoint", endpoint, "--volume", "vol-0").exit())
                .isZero();
        assertThat(volrep("demote", "--endpoint", endpoint, "--volume", "vol-0").exit())
                .isZero();
        Run resync = volrep("resync", "--endpoint", endpoint, "--volume", "vol-0", "--await-ready", "30s");
        assertThat(resync.exit()).as(resync.all()).isZero();
        assertThat(resync.out()).isEqualTo("ResyncVolume volume vol-0: ready=true" + System.lineSeparator());
        assertThat(resync.err())
                .contains("waiting for volrep resync volume vol-0 at " + endpoint)
                .containsPattern("\\d\\.\\d s elapsed, last answer ready=false \\(poll 2\\), next poll in");
    }

    @Test
    void oneNamePerOptionAndHelpLabelsThatMatch() {
        for (String command : new String[] {"enable", "disable", "promote", "demote", "resync", "conformance"}) {
            String help = volrep(command, "--help").out().replaceAll("\\s+", " ");
            assertThat(help)
                    .as(command)
                    .contains("--param, --parameter=KEY=VALUE")
                    .contains("--secrets-file=PATH")
                    .contains("VISIBLE TO OTHER USERS")
                    .doesNotContain("ISO-8601-DURATION");
        }
        assertThat(volrep("resync", "--help").out())
                .contains("--await-ready=DURATION")
                .contains("30s, 5m or PT5M");
        assertThat(volrep("probe", "--help").out()).contains("--timeout=DURATION");
        assertOneLineUsageError(volrep("info", "--volume"), "volrep info", "error: missing required parameter");
        assertOneLineUsageError(volrep("info", "--volume", "v", "--nope"), "volrep info", "error: unknown option");
        Run none = volrep();
        assertThat(none.exit()).isEqualTo(2);
        assertThat(none.err()).contains("a command is required");
        assertThat(none.out()).isEmpty();
    }

    @Test
    void healWithARelativeStagingPathSaysSo() {
        Run heal = volrep(
                "heal", "--endpoint", "/tmp/none.sock", "--volume", "v", "--path", "/mnt/v", "--staging-path", "rel/x");
        assertThat(heal.exit()).isEqualTo(1);
        assertThat(heal.err())
                .contains("staging_target_path: must be an absolute path")
                .contains("recovery: fix the request as the error says; nothing was sent to the plugin")
                .doesNotContain("missing required field")
                .doesNotContain("\tat ");
        Run empty = volrep("promote", "--endpoint", "/tmp/none.sock", "--volume", "");
        assertThat(empty.err())
                .contains("recovery: fix the request as the error says; nothing was sent")
                .doesNotContain("missing required field");
    }

    @Test
    void secretsFromAFileOrAKubernetesSecretDirectory(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("secrets"), "# replication secrets\n\npassword=" + SECRET + "\n");
        Path mounted = Files.createDirectories(dir.resolve("mounted"));
        Path data = Files.createDirectories(mounted.resolve("..2026_11_23_08_00_00.1"));
        Files.writeString(data.resolve("password"), SECRET);
        Files.createSymbolicLink(mounted.resolve("..data"), data.getFileName());
        Files.createSymbolicLink(mounted.resolve("password"), Path.of("..data/password"));
        assertThat(SecretOptions.read(mounted, warning -> {})).containsExactly(Map.entry("password", SECRET));

        ReferenceDriver driver = ReferenceDriver.builder()
                .volumes(1)
                .requiredSecret("password", SECRET)
                .build();
        ReplicationServer server = grpc.register(ReferencePlugin.start(driver, "unix://" + dir.resolve("ref.sock")));
        String endpoint = server.address();
        Run fromFile =
                volrep("enable", "--endpoint", endpoint, "--volume", "vol-0", "--secrets-file", file.toString(), "-v");
        assertThat(fromFile.exit()).as(fromFile.all()).isZero();
        Run fromDir =
                volrep("promote", "--endpoint", endpoint, "--volume", "vol-0", "--secrets-file", mounted.toString());
        assertThat(fromDir.exit()).as(fromDir.all()).isZero();
        Run overridden = volrep(
                "promote",
                "--endpoint",
                endpoint,
                "--volume",
                "vol-0",
                "--secrets-file",
                file.toString(),
                "--secret",
                "password=wrong",
                "--max-attempts",
                "1");
        assertThat(overridden.err()).contains("16 UNAUTHENTICATED");
        for (Run r : new Run[] {fromFile, fromDir, overridden}) {
            assertThat(r.all()).doesNotContain(SECRET);
        }
        Run conformance = volrep("conformance", "--secrets-file", file.toString(), "--include-tag", "required");
        assertThat(conformance.exit()).as(conformance.all()).isZero();
        assertThat(conformance.all()).doesNotContain(SECRET);

        Path bad = Files.writeString(dir.resolve("bad"), "password " + SECRET + "\n");
        Run badRun = volrep("info", "--endpoint", "/tmp/none.sock", "--volume", "v", "--secrets-file", bad.toString());
        assertOneLineUsageError(badRun, "volrep info", "--secrets-file " + bad + ", line 1: expected KEY=VALUE");
        assertThat(badRun.all()).doesNotContain(SECRET);
        assertOneLineUsageError(
                volrep("serve-reference", "--secrets-file", dir.resolve("none").toString()),
                "volrep serve-reference",
                "no such file");
    }
}
