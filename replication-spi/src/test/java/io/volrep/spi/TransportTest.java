package io.volrep.spi;

import static io.volrep.spi.InProcessHarness.statusOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.TlsChannelCredentials;
import io.volrep.api.Rpc;
import io.volrep.proto.replication.ControllerGrpc;
import io.volrep.testsupport.GrpcCleanup;
import java.io.FileInputStream;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.Key;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Real sockets: unix socket life cycle, TCP with an ephemeral port, TLS and mutual TLS, graceful shutdown. */
class TransportTest {
    @TempDir
    Path dir;

    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    private ManagedChannel channel;

    private ControllerGrpc.ControllerBlockingStub stub(String target, ChannelCredentials credentials) {
        var builder = Grpc.newChannelBuilder(target, credentials);
        if (target.startsWith("unix:")) {
            builder.overrideAuthority("localhost");
        }
        channel = grpc.register(builder.build());
        return ControllerGrpc.newBlockingStub(channel).withDeadlineAfter(20, TimeUnit.SECONDS);
    }

    private static Status.Code enable(ControllerGrpc.ControllerBlockingStub stub) {
        return statusOf(() -> WireCalls.call(stub, Rpc.ENABLE_VOLUME_REPLICATION, WireCalls.Fields.volume("vol-1")))
                .getCode();
    }

    @Test
    void unixSocketLifeCycle() throws Exception {
        Path socket = dir.resolve("p.sock");
        ReplicationServer server = ReplicationServer.builder()
                .driver(new ScriptedDriver())
                .listen("unix://" + socket)
                .build()
                .start();
        try {
            assertThat(server.address()).isEqualTo("unix://" + socket);
            assertThat(server.port()).isEqualTo(-1);
            assertThat(Files.getPosixFilePermissions(socket)).isEqualTo(PosixFilePermissions.fromString("rw-rw----"));
            assertThat(enable(stub(server.address(), InsecureChannelCredentials.create())))
                    .isEqualTo(Status.Code.OK);

            // A second server must not steal the socket of a live one, nor delete it.
            ReplicationServer thief = ReplicationServer.builder()
                    .driver(new ScriptedDriver())
                    .listen("unix://" + socket)
                    .build();
            assertThatThrownBy(thief::start)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("another server is listening");
            thief.close();
            assertThat(socket).exists();
            assertThat(enable(ControllerGrpc.newBlockingStub(channel))).isEqualTo(Status.Code.OK);
        } finally {
            server.close();
        }
        assertThat(server.isTerminated()).isTrue();
        assertThat(socket).doesNotExist();
    }

    @Test
    void aStaleSocketFileIsReplaced() throws Exception {
        Path socket = dir.resolve("s.sock");
        // A socket file nobody listens on any more, as a crashed plugin leaves behind.
        try (ServerSocketChannel dead = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            dead.bind(UnixDomainSocketAddress.of(socket));
        }
        assertThat(socket).exists();
        try (ReplicationServer server = ReplicationServer.builder()
                .driver(new ScriptedDriver())
                .listen("unix://" + socket)
                .build()
                .start()) {
            assertThat(enable(stub(server.address(), InsecureChannelCredentials.create())))
                    .isEqualTo(Status.Code.OK);
        }
        assertThat(socket).doesNotExist();
    }

    @Test
    void aRegularFileIsNeverRemoved() throws Exception {
        Path file = dir.resolve("f.sock");
        Files.writeString(file, "precious");
        ReplicationServer server = ReplicationServer.builder()
                .driver(new ScriptedDriver())
                .listen("unix://" + file)
                .build();
        assertThatThrownBy(server::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not a socket");
        server.close();
        assertThat(file).hasContent("precious");
    }

    @Test
    void tcpWithAnEphemeralPort() {
        ReplicationServer server = grpc.register(ReplicationServer.builder()
                .driver(new ScriptedDriver())
                .listen("127.0.0.1:0")
                .build()
                .start());
        assertThat(server.port()).isPositive();
        assertThat(server.address()).isEqualTo("127.0.0.1:" + server.port());
        assertThat(enable(stub(server.address(), InsecureChannelCredentials.create())))
                .isEqualTo(Status.Code.OK);
    }

    @Test
    void tlsAndMutualTls() throws Exception {
        Path[] pem = selfSignedPem();
        Path cert = pem[0];
        Path key = pem[1];
        ReplicationServer tls = grpc.register(ReplicationServer.builder()
                .driver(new ScriptedDriver())
                .listen("127.0.0.1:0")
                .tls(cert, key)
                .build()
                .start());
        String target = "localhost:" + tls.port();
        assertThat(enable(stub(
                        target,
                        TlsChannelCredentials.newBuilder()
                                .trustManager(cert.toFile())
                                .build())))
                .isEqualTo(Status.Code.OK);
        channel.shutdownNow();
        assertThat(enable(stub(target, InsecureChannelCredentials.create()))).isEqualTo(Status.Code.UNAVAILABLE);
        ReplicationServer mutualTls = grpc.register(ReplicationServer.builder()
                .driver(new ScriptedDriver())
                .listen("127.0.0.1:0")
                .mutualTls(cert, key, cert)
                .build()
                .start());
        String mutualTarget = "localhost:" + mutualTls.port();
        assertThat(enable(stub(
                        mutualTarget,
                        TlsChannelCredentials.newBuilder()
                                .trustManager(cert.toFile())
                                .build())))
                .as("no client certificate")
                .isEqualTo(Status.Code.UNAVAILABLE);
        channel.shutdownNow();
        assertThat(enable(stub(
                        mutualTarget,
                        TlsChannelCredentials.newBuilder()
                                .trustManager(cert.toFile())
                                .keyManager(cert.toFile(), key.toFile())
                                .build())))
                .isEqualTo(Status.Code.OK);
    }

    @Test
    void closeDrainsCallsInFlightAndRefusesNewOnes() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ScriptedDriver driver = new ScriptedDriver();
        driver.onCall = () -> {
            entered.countDown();
            await(release);
        };
        Path socket = dir.resolve("d.sock");
        ReplicationServer server = ReplicationServer.builder()
                .driver(driver)
                .listen("unix://" + socket)
                .gracePeriod(Duration.ofSeconds(20))
                .build()
                .start();
        var stub = stub(server.address(), InsecureChannelCredentials.create());
        CompletableFuture<Status.Code> inFlight = CompletableFuture.supplyAsync(() -> enable(stub));
        assertThat(entered.await(5, TimeUnit.MINUTES)).isTrue();
        CompletableFuture<Void> closing = CompletableFuture.runAsync(server::close);
        Thread.sleep(200);
        assertThat(closing).isNotDone();
        driver.onCall = () -> {};
        assertThat(statusOf(() ->
                                WireCalls.call(stub, Rpc.DISABLE_VOLUME_REPLICATION, WireCalls.Fields.volume("vol-2")))
                        .getCode())
                .isEqualTo(Status.Code.UNAVAILABLE);
        release.countDown();
        assertThat(inFlight.get(5, TimeUnit.MINUTES)).isEqualTo(Status.Code.OK);
        closing.get(5, TimeUnit.MINUTES);
        assertThat(socket).doesNotExist();
    }

    @Test
    void callsStillRunningAfterTheGracePeriodAnswerUnavailableSoClientsRetry() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ScriptedDriver driver = new ScriptedDriver();
        driver.onCall = () -> {
            entered.countDown();
            await(release);
        };
        ReplicationServer server = ReplicationServer.builder()
                .driver(driver)
                .listen("127.0.0.1:0")
                .gracePeriod(Duration.ofMillis(200))
                .build()
                .start();
        try {
            var stub = stub(server.address(), InsecureChannelCredentials.create());
            CompletableFuture<Status> inFlight = CompletableFuture.supplyAsync(() -> statusOf(
                    () -> WireCalls.call(stub, Rpc.ENABLE_VOLUME_REPLICATION, WireCalls.Fields.volume("vol-1"))));
            assertThat(entered.await(5, TimeUnit.MINUTES)).isTrue();
            long start = System.nanoTime();
            server.close();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(8));
            // 14 UNAVAILABLE is retryable (1 CANCELLED is not): a plugin restart never makes a client give up.
            Status status = inFlight.get(5, TimeUnit.MINUTES);
            assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
            assertThat(status.getDescription()).contains("plugin shutting down");
        } finally {
            release.countDown();
        }
    }

    @Test
    void badAddressesAreRejectedAtBuild() {
        for (String bad : new String[] {
            "dns:///x", "unix://relative", "localhost", "host:99999", "inprocess:", "unix:///" + "d".repeat(120)
        }) {
            assertThatThrownBy(() -> ReplicationServer.builder()
                            .driver(new ScriptedDriver())
                            .listen(bad)
                            .build())
                    .as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("listen address");
        }
        assertThatThrownBy(
                        () -> ReplicationServer.builder().listen("inprocess:x").build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("driver");
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(5, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A self-signed certificate for localhost/127.0.0.1 and its key, as PEM files (made with the JDK's keytool). */
    private Path[] selfSignedPem() throws Exception {
        Path store = dir.resolve("tls.p12");
        Process keytool = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "keytool")
                                .toString(),
                        "-genkeypair",
                        "-alias",
                        "volrep",
                        "-keyalg",
                        "RSA",
                        "-keysize",
                        "2048",
                        "-validity",
                        "2",
                        "-dname",
                        "CN=localhost",
                        "-ext",
                        "SAN=dns:localhost,ip:127.0.0.1",
                        "-storetype",
                        "PKCS12",
                        "-keystore",
                        store.toString(),
                        "-storepass",
                        "changeit",
                        "-keypass",
                        "changeit")
                .redirectErrorStream(true)
                .start();
        keytool.getInputStream().readAllBytes();
        assertThat(keytool.waitFor(5, TimeUnit.MINUTES)).isTrue();
        assertThat(keytool.exitValue()).isZero();
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = new FileInputStream(store.toFile())) {
            ks.load(in, "changeit".toCharArray());
        }
        Key key = ks.getKey("volrep", "changeit".toCharArray());
        Certificate cert = ks.getCertificate("volrep");
        Path certPem = dir.resolve("cert.pem");
        Path keyPem = dir.resolve("key.pem");
        Files.writeString(certPem, pem("CERTIFICATE", cert.getEncoded()), StandardCharsets.US_ASCII);
        Files.writeString(keyPem, pem("PRIVATE KEY", key.getEncoded()), StandardCharsets.US_ASCII);
        return new Path[] {certPem, keyPem};
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                        .encodeToString(der) + "\n-----END " + type + "-----\n";
    }
}
