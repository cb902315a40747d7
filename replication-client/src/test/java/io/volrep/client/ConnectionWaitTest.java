package io.volrep.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.volrep.api.DeadlineExceededException;
import io.volrep.api.ReplicationException;
import io.volrep.client.reliability.ReferenceChild;
import io.volrep.spi.ReplicationServer;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testkit.reference.ReferencePlugin;
import io.volrep.testsupport.GrpcCleanup;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A wrong socket path is never a silent wait (issue 34, item 1): while a call waits for a connection the client
 * keeps riding over plugin restarts, but logs a WARN naming the target and why it cannot be reached, the first within
 * 10 s and then periodically, and the call's final exception names the cause. Real gRPC over real unix sockets that
 * are missing, refused and unreadable; the logs are slf4j-simple's, on System.err, captured.
 */
class ConnectionWaitTest {
    private static final Duration SHORT = Duration.ofMillis(200);
    private static final Duration EVERY = Duration.ofMillis(300);

    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    @TempDir
    Path dir;

    /** Everything written to System.err while it is open (slf4j-simple looks System.err up at each line). */
    static final class CapturedLogs implements AutoCloseable {
        private final PrintStream original = System.err;
        private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

        CapturedLogs() {
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        }

        String text() {
            return captured.toString(StandardCharsets.UTF_8);
        }

        List<String> lines(String containing) {
            return text().lines().filter(line -> line.contains(containing)).toList();
        }

        @Override
        public void close() {
            System.setErr(original);
        }
    }

    private static RetryPolicy within(Duration total) {
        return RetryPolicy.spec().toBuilder().totalTimeout(total).build();
    }

    private ReplicationClient client(Path socket, Duration total, boolean shortWarnings) {
        ReplicationClient.Builder b =
                ReplicationClient.builder().target("unix://" + socket).retry(within(total));
        if (shortWarnings) {
            b.connectionWarnings(SHORT, EVERY);
        }
        return grpc.register(b.build());
    }

    @Test
    void aMissingSocketIsWarnedAboutWithinTenSecondsAndTheFailureNamesTheCause() {
        Path missing = dir.resolve("nope.sock");
        // The defaults, as a user gets them: the first warning within the 10 s the Go sidecars use.
        assertThat(CallSettings.ConnectionWarnings.DEFAULT.first()).isLessThanOrEqualTo(Duration.ofSeconds(10));
        ReplicationException failure;
        try (CapturedLogs logs = new CapturedLogs()) {
            ReplicationClient client = client(missing, Duration.ofMillis(6_500), false);
            failure = (ReplicationException) Assertions.catchThrowable(
                    () -> client.volume("vol-0").enable().call());
            List<String> warnings = logs.lines("Still connecting to");
            assertThat(warnings).as(logs.text()).hasSize(1);
            assertThat(warnings.get(0))
                    .contains(
                            "WARN io.volrep.client.ConnectionWatch - Still connecting to unix://" + missing + " after ")
                    .contains(": no such socket file " + missing + ";");
            Matcher after = Pattern.compile("after (\\d+\\.\\d) s").matcher(warnings.get(0));
            assertThat(after.find()).isTrue();
            assertThat(Double.parseDouble(after.group(1))).isBetween(4.5, 10.0);
        }
        assertThat(failure).isInstanceOf(DeadlineExceededException.class);
        assertThat(failure.getMessage())
                .isEqualTo("EnableVolumeReplication for volume vol-0 failed with 4"
                        + " DEADLINE_EXCEEDED: no answer from the plugin at unix://" + missing
                        + " within the call's deadline:"
                        + " it waited for the plugin to accept connections (no such socket file " + missing + ")");
        assertThat(failure.attempts()).isEqualTo(1);
    }

    @Test
    void aRefusedSocketIsWarnedAboutPeriodically() throws IOException {
        Path refused = dir.resolve("refused.sock");
        try (ServerSocketChannel gone = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            gone.bind(UnixDomainSocketAddress.of(refused));
        } // the file stays, nobody listens: what a plugin that died leaves behind
        try (CapturedLogs logs = new CapturedLogs()) {
            ReplicationClient client = client(refused, Duration.ofMillis(1_500), true);
            assertThatThrownBy(() -> client.volume("vol-0").disable().call())
                    .isInstanceOf(DeadlineExceededException.class)
                    .hasMessageEndingWith(
                            "(connection refused on " + refused + " (nobody listens there: is the plugin running?))");
            assertThat(logs.lines("Still connecting to unix://" + refused))
                    .as(logs.text())
                    .hasSizeGreaterThanOrEqualTo(3)
                    .allSatisfy(line -> assertThat(line).contains("WARN").contains("connection refused on " + refused));
        }
    }

    @Test
    void theWaitEndsWhenThePluginComesAndTheLogSaysSo() throws Exception {
        Path later = dir.resolve("later.sock");
        try (CapturedLogs logs = new CapturedLogs()) {
            ReplicationClient client = client(later, Duration.ofSeconds(30), true);
            CompletableFuture<Void> call = client.volume("vol-0").enable().callAsync();
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
            while (logs.lines("Still connecting to").isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(logs.lines("Still connecting to")).as(logs.text()).isNotEmpty();
            ReplicationServer plugin = grpc.register(
                    ReferencePlugin.start(ReferenceDriver.builder().volumes(1).build(), "unix://" + later));
            call.get(5, TimeUnit.MINUTES); // rode over the missing plugin, as over a restart
            deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
            while (logs.lines("Connected to").isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(logs.lines("Connected to"))
                    .as(logs.text())
                    .singleElement()
                    .asString()
                    .contains("INFO io.volrep.client.ConnectionWatch - Connected to unix://" + later + " after ");
            assertThat(plugin.address()).isEqualTo("unix://" + later);
        }
    }

    @Test
    void aConnectionListenerHearsTheSameWithoutAnyLogging() throws Exception {
        // The quickstart's case (issue 49, item 2): nothing listens where the client points, and the application
        // may have no logging binding. The listener hears it within the warning's first interval, with the reason.
        Path socket = dir.resolve("quickstart.sock");
        List<String> heard = new CopyOnWriteArrayList<>();
        ReplicationClient client = grpc.register(ReplicationClient.builder()
                .target("unix://" + socket)
                .retry(within(Duration.ofSeconds(30)))
                .connectionWarnings(SHORT, EVERY)
                .connectionListener(new ConnectionListener() {
                    @Override
                    public void stillConnecting(String target, Duration waited, String why) {
                        heard.add(target + " waited " + (waited.compareTo(SHORT) >= 0) + ": " + why);
                    }

                    @Override
                    public void connected(String target, Duration waited) {
                        heard.add(target + " connected");
                    }
                })
                .build());
        CompletableFuture<Void> call = client.volume("vol-0").enable().callAsync();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (heard.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(heard).first().isEqualTo("unix://" + socket + " waited true: no such socket file " + socket);
        grpc.register(ReferencePlugin.start(ReferenceDriver.builder().volumes(1).build(), "unix://" + socket));
        call.get(20, TimeUnit.SECONDS);
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!heard.contains("unix://" + socket + " connected") && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(heard).endsWith("unix://" + socket + " connected");
    }

    @Test
    void anUnreadableSocketIsNamed() throws Exception {
        Path unreadable = dir.resolve("private.sock");
        try (ServerSocketChannel listening = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            listening.bind(UnixDomainSocketAddress.of(unreadable));
            Files.setPosixFilePermissions(unreadable, PosixFilePermissions.fromString("---------"));
            String output;
            if (!"root".equals(System.getProperty("user.name"))) {
                try (CapturedLogs logs = new CapturedLogs()) {
                    ReplicationClient client = client(unreadable, Duration.ofSeconds(1), true);
                    Throwable failure = Assertions.catchThrowable(
                            () -> client.volume("vol-0").promote().call());
                    output = logs.text() + "\nexception: " + failure.getMessage();
                }
            } else {
                // root connects through any permission bits; in a user namespace of its own, whose root owns nothing
                // that an unmapped user owns, it is refused like anybody else.
                UserPrincipalLookupService users = unreadable.getFileSystem().getUserPrincipalLookupService();
                Files.setOwner(unreadable, users.lookupPrincipalByName("nobody"));
                output = runInOwnUserNamespace(ConnectionWaitChild.class, "unix://" + unreadable);
            }
            assertThat(output)
                    .contains("Still connecting to unix://" + unreadable)
                    .contains("permission denied on " + unreadable)
                    .contains("exception: PromoteVolume for volume vol-0 failed with 4 DEADLINE_EXCEEDED: no answer"
                            + " from the plugin at unix://" + unreadable + " within the call's deadline: it waited for"
                            + " the plugin to accept connections (permission denied on " + unreadable + ")");
        }
    }

    /** Runs {@code main} in a child JVM in a user namespace of its own (root inside, nobody's files unmapped). */
    private String runInOwnUserNamespace(Class<?> main, String... args) throws Exception {
        Path out = dir.resolve("child.out");
        List<String> command = new ArrayList<>(List.of(
                "unshare",
                "-U",
                "--map-root-user",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                ReferenceChild.testClassPath(),
                "-XX:TieredStopAtLevel=1",
                main.getName()));
        command.addAll(List.of(args));
        Process child;
        try {
            child = grpc.register(new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(out.toFile())
                    .start());
        } catch (IOException noUnshare) {
            assumeTrue(false, "unshare is not available: " + noUnshare.getMessage());
            return "";
        }
        assertThat(child.waitFor(5, TimeUnit.MINUTES)).as("the child ended").isTrue();
        String output = Files.readString(out);
        assumeTrue(
                !output.contains("unshare failed") && !output.contains("Operation not permitted"),
                "no user namespaces here: " + output);
        return output;
    }
}
