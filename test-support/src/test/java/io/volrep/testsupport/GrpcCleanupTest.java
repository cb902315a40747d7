package io.volrep.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * The extension on real in-process gRPC and real child processes: each fixture class below is run through the JUnit
 * Platform (they are disabled anywhere else) and its outcome checked, so a leak must actually fail a test.
 */
class GrpcCleanupTest {
    private static volatile boolean launching;
    /** A server or channel the fixtures share with the test that runs them, which releases it itself. */
    private static volatile Server sharedServer;

    private static volatile ManagedChannel sharedChannel;
    private static volatile String sharedName;

    static boolean launched() {
        return launching;
    }

    /** Runs {@code fixture} through the JUnit Platform; each test's and container's result by display name. */
    private static Map<String, TestExecutionResult> run(Class<?> fixture) {
        Map<String, TestExecutionResult> results = new ConcurrentHashMap<>();
        launching = true;
        try {
            LauncherFactory.create()
                    .execute(
                            LauncherDiscoveryRequestBuilder.request()
                                    .selectors(selectClass(fixture))
                                    .build(),
                            new TestExecutionListener() {
                                @Override
                                public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                                    results.put(id.getDisplayName(), result);
                                }
                            });
        } finally {
            launching = false;
        }
        return results;
    }

    private static String failureOf(TestExecutionResult result) {
        assertThat(result.getStatus()).isEqualTo(TestExecutionResult.Status.FAILED);
        return result.getThrowable().orElseThrow().getMessage();
    }

    @AfterEach
    void releaseShared() throws InterruptedException {
        if (sharedChannel != null) {
            sharedChannel.shutdownNow().awaitTermination(5, TimeUnit.MINUTES);
            sharedChannel = null;
        }
        if (sharedServer != null) {
            sharedServer.shutdownNow().awaitTermination(5, TimeUnit.MINUTES);
            sharedServer = null;
        }
    }

    // A unary method on strings: "echo" is answered at once, anything else stays in flight until cancelled.

    private static final MethodDescriptor.Marshaller<String> UTF8 = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(String value) {
            return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public String parse(InputStream stream) {
            try {
                return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };
    private static final MethodDescriptor<String, String> CALL = MethodDescriptor.<String, String>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName("test.Cleanup/Call")
            .setRequestMarshaller(UTF8)
            .setResponseMarshaller(UTF8)
            .build();

    private static Server startServer(String name) throws IOException {
        ServerCallHandler<String, String> handler = (call, headers) -> {
            call.request(1);
            return new ServerCall.Listener<>() {
                @Override
                public void onMessage(String message) {
                    if (message.equals("echo")) {
                        call.sendHeaders(new Metadata());
                        call.sendMessage(message);
                        call.close(Status.OK, new Metadata());
                    }
                }
            };
        };
        return InProcessServerBuilder.forName(name)
                .addService(ServerServiceDefinition.builder("test.Cleanup")
                        .addMethod(CALL, handler)
                        .build())
                .build()
                .start();
    }

    /** Starts a call; its answer, or the status it failed with. */
    private static CompletableFuture<String> call(ManagedChannel channel, String message) {
        CompletableFuture<String> answer = new CompletableFuture<>();
        ClientCall<String, String> call = channel.newCall(CALL, CallOptions.DEFAULT);
        call.start(
                new ClientCall.Listener<>() {
                    @Override
                    public void onMessage(String m) {
                        answer.complete(m);
                    }

                    @Override
                    public void onClose(Status status, Metadata trailers) {
                        answer.complete(status.getCode().name());
                    }
                },
                new Metadata());
        call.sendMessage(message);
        call.halfClose();
        call.request(1);
        return answer;
    }

    @EnabledIf("io.volrep.testsupport.GrpcCleanupTest#launched")
    static class CleanRun {
        static final List<String> closed = Collections.synchronizedList(new ArrayList<>());
        static Server server;
        static ManagedChannel channel;

        @RegisterExtension
        final GrpcCleanup grpc = new GrpcCleanup();

        @Test
        void answersAndLeavesNothingRunning() throws Exception {
            grpc.register((AutoCloseable) () -> closed.add("registered first"));
            String name = InProcessServerBuilder.generateName();
            server = grpc.register(startServer(name));
            channel = grpc.register(InProcessChannelBuilder.forName(name).build());
            grpc.register(channel);
            grpc.register((AutoCloseable) () -> closed.add("registered last"));
            assertThat(call(channel, "echo").get(5, TimeUnit.MINUTES)).isEqualTo("echo");
            assertThat(closed).isEmpty();
        }
    }

    @Test
    void resourcesThatTerminateAreReleasedLastFirstAndTheTestPasses() {
        Map<String, TestExecutionResult> results = run(CleanRun.class);

        assertThat(results.get("answersAndLeavesNothingRunning()").getStatus())
                .isEqualTo(TestExecutionResult.Status.SUCCESSFUL);
        assertThat(CleanRun.closed).containsExactly("registered last", "registered first");
        assertThat(CleanRun.server.isTerminated()).isTrue();
        assertThat(CleanRun.channel.isTerminated()).isTrue();
    }

    @EnabledIf("io.volrep.testsupport.GrpcCleanupTest#launched")
    static class ChannelWithACallInFlight {
        static ManagedChannel channel;

        @RegisterExtension
        final GrpcCleanup grpc = new GrpcCleanup(Duration.ofMillis(200));

        @Test
        void leavesACallInFlight() {
            channel = grpc.register(InProcessChannelBuilder.forName(sharedName).build());
            call(channel, "hold");
        }
    }

    @Test
    void aChannelThatDoesNotTerminateGracefullyFailsTheTestNamingItAndIsForced() throws Exception {
        sharedName = InProcessServerBuilder.generateName();
        sharedServer = startServer(sharedName);

        String failure = failureOf(run(ChannelWithACallInFlight.class).get("leavesACallInFlight()"));

        assertThat(failure)
                .contains("1 resource(s) not released cleanly")
                .contains("channel " + ChannelWithACallInFlight.channel)
                .contains("not terminated 200 ms after shutdown(); shutdownNow() ended it");
        assertThat(ChannelWithACallInFlight.channel.isTerminated()).isTrue();
    }

    @EnabledIf("io.volrep.testsupport.GrpcCleanupTest#launched")
    static class ServerWithACallInFlight {
        static Server server;

        @RegisterExtension
        final GrpcCleanup grpc = new GrpcCleanup(Duration.ofMillis(200));

        @Test
        void leavesACallInFlight() throws Exception {
            String name = InProcessServerBuilder.generateName();
            server = grpc.register(startServer(name));
            sharedChannel = InProcessChannelBuilder.forName(name).build();
            call(sharedChannel, "hold");
        }
    }

    @Test
    void aServerThatDoesNotTerminateGracefullyFailsTheTestNamingItAndIsForced() throws Exception {
        String failure = failureOf(run(ServerWithACallInFlight.class).get("leavesACallInFlight()"));

        assertThat(failure)
                .contains("server " + ServerWithACallInFlight.server)
                .contains("not terminated 200 ms after shutdown(); shutdownNow() ended it");
        assertThat(ServerWithACallInFlight.server.isTerminated()).isTrue();
    }

    @EnabledIf("io.volrep.testsupport.GrpcCleanupTest#launched")
    static class ProcessIgnoringSigterm {
        static Process process;
        static List<ProcessHandle> descendants;

        @RegisterExtension
        final GrpcCleanup grpc = new GrpcCleanup(Duration.ofMillis(300));

        @Test
        void startsAShellThatIgnoresSigterm() throws IOException {
            // The trap is in place (and the sleep started) once "ready" is printed.
            process = grpc.register(new ProcessBuilder("sh", "-c", "trap '' TERM; sleep 60 & echo ready; wait")
                    .redirectErrorStream(true)
                    .start());
            String ready = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))
                    .readLine();
            assertThat(ready).isEqualTo("ready");
            descendants = process.descendants().toList();
            assertThat(descendants).isNotEmpty();
        }
    }

    @Test
    void aProcessThatIgnoresSigtermFailsTheTestAndIsKilledWithItsDescendants() throws Exception {
        String failure = failureOf(run(ProcessIgnoringSigterm.class).get("startsAShellThatIgnoresSigterm()"));

        assertThat(failure)
                .contains("process " + ProcessIgnoringSigterm.process.pid())
                .contains("not terminated 300 ms after destroy(); destroyForcibly() ended it");
        assertThat(ProcessIgnoringSigterm.process.isAlive()).isFalse();
        for (ProcessHandle h : ProcessIgnoringSigterm.descendants) {
            h.onExit().get(5, TimeUnit.MINUTES);
            assertThat(h.isAlive()).as("descendant %s", h.pid()).isFalse();
        }
    }

    @EnabledIf("io.volrep.testsupport.GrpcCleanupTest#launched")
    static class Closeables {
        static final CountDownLatch interrupted = new CountDownLatch(1);

        @RegisterExtension
        final GrpcCleanup grpc = new GrpcCleanup(Duration.ofMillis(200));

        @Test
        void oneHangsInCloseOneThrows() {
            grpc.register(new AutoCloseable() {
                @Override
                public void close() {
                    throw new IllegalStateException("disk gone");
                }

                @Override
                public String toString() {
                    return "throwing";
                }
            });
            grpc.register(new AutoCloseable() {
                @Override
                public void close() {
                    try {
                        new CountDownLatch(1).await();
                    } catch (InterruptedException e) {
                        interrupted.countDown();
                    }
                }

                @Override
                public String toString() {
                    return "hanging";
                }
            });
        }
    }

    @Test
    void aCloseThatHangsOrThrowsFailsTheTestNamingIt() throws Exception {
        String failure = failureOf(run(Closeables.class).get("oneHangsInCloseOneThrows()"));

        assertThat(failure)
                .contains("2 resource(s) not released cleanly")
                .contains("hanging: not terminated 200 ms after close(); an interrupt of close() ended it")
                .contains("throwing: close() threw java.lang.IllegalStateException: disk gone");
        assertThat(Closeables.interrupted.await(5, TimeUnit.MINUTES)).isTrue();
    }

    @EnabledIf("io.volrep.testsupport.GrpcCleanupTest#launched")
    static class FailingTest {
        static final CountDownLatch interrupted = new CountDownLatch(1);

        @RegisterExtension
        final GrpcCleanup grpc = new GrpcCleanup();

        @Test
        void failsWithACloseThatWouldHang() {
            grpc.register((AutoCloseable) () -> {
                try {
                    new CountDownLatch(1).await();
                } catch (InterruptedException e) {
                    interrupted.countDown();
                }
            });
            throw new AssertionError("the test's own failure");
        }
    }

    @Test
    void afterAFailedTestEverythingIsForcedAtOnceAndOnlyTheTestsFailureIsReported() throws Exception {
        long start = System.nanoTime();
        TestExecutionResult result = run(FailingTest.class).get("failsWithACloseThatWouldHang()");

        assertThat(failureOf(result)).isEqualTo("the test's own failure");
        assertThat(result.getThrowable().orElseThrow().getSuppressed()).isEmpty();
        assertThat(FailingTest.interrupted.await(5, TimeUnit.MINUTES)).isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - start))
                .as("no graceful wait of 10 s")
                .isLessThan(GrpcCleanup.DEFAULT_TIMEOUT);
    }

    @EnabledIf("io.volrep.testsupport.GrpcCleanupTest#launched")
    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    static class StaticRegistration {
        @RegisterExtension
        static final GrpcCleanup GRPC = new GrpcCleanup();

        static Server classServer;
        static final CountDownLatch testResourceClosed = new CountDownLatch(1);

        @BeforeAll
        static void startShared() throws IOException {
            classServer = GRPC.register(startServer(InProcessServerBuilder.generateName()));
        }

        @Test
        @Order(1)
        void registersAResourceOfItsOwn() {
            GRPC.register((AutoCloseable) testResourceClosed::countDown);
            assertThat(classServer.isShutdown()).isFalse();
        }

        @Test
        @Order(2)
        void seesItReleasedAndTheClassResourceStillRunning() {
            assertThat(testResourceClosed.getCount()).isZero();
            assertThat(classServer.isShutdown()).isFalse();
        }
    }

    @Test
    void throughAStaticFieldWhatBeforeAllRegisteredLivesUntilAfterAll() {
        Map<String, TestExecutionResult> results = run(StaticRegistration.class);

        assertThat(results.get("registersAResourceOfItsOwn()").getStatus())
                .isEqualTo(TestExecutionResult.Status.SUCCESSFUL);
        assertThat(results.get("seesItReleasedAndTheClassResourceStillRunning()")
                        .getStatus())
                .isEqualTo(TestExecutionResult.Status.SUCCESSFUL);
        assertThat(StaticRegistration.classServer.isTerminated()).isTrue();
    }

    @Test
    void theTimeoutMustBePositive() {
        Assertions.assertThatThrownBy(() -> new GrpcCleanup(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
