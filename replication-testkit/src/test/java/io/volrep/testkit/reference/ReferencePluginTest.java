package io.volrep.testkit.reference;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.volrep.api.ReplicationSource;
import io.volrep.api.internal.wire.WireMapping;
import io.volrep.proto.replication.ControllerGrpc;
import io.volrep.proto.replication.DemoteVolumeRequest;
import io.volrep.proto.replication.DisableVolumeReplicationRequest;
import io.volrep.proto.replication.EnableVolumeReplicationRequest;
import io.volrep.proto.replication.GetVolumeReplicationInfoRequest;
import io.volrep.proto.replication.PromoteVolumeRequest;
import io.volrep.proto.replication.ResyncVolumeRequest;
import io.volrep.spi.ReplicationServer;
import io.volrep.testsupport.GrpcCleanup;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The reference plugin over a real unix socket, as another language's client would see it, and its SIGTERM drain. */
@SuppressWarnings("deprecation") // sends or reads the deprecated volume_id (field 1) on purpose
class ReferencePluginTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    private static final Map<String, String> GOOD = Map.of("user", "admin");

    @TempDir
    Path dir;

    private static ManagedChannel channel(String address) {
        return Grpc.newChannelBuilder(address, InsecureChannelCredentials.create())
                .overrideAuthority("localhost")
                .build();
    }

    private static Status.Code code(Supplier<?> call) {
        try {
            Object answer = call.get();
            return answer != null ? Status.Code.OK : Status.Code.INTERNAL;
        } catch (StatusRuntimeException e) {
            return e.getStatus().getCode();
        }
    }

    @Test
    void specCasesOverAUnixSocket() throws Exception {
        ReferenceDriver driver = ReferenceDriver.builder()
                .volumes(16)
                .groups(2)
                .requiredSecret("user", "admin")
                .build();
        Path socket = dir.resolve("ref.sock");
        ReplicationServer server = grpc.register(ReferencePlugin.start(driver, "unix://" + socket));
        ManagedChannel channel = grpc.register(channel(server.address()));
        var stub = ControllerGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
        for (ReplicationSource source :
                List.of(ReplicationSource.volume("vol-15"), ReplicationSource.volumeGroup("grp-1"))) {
            var wire = WireMapping.toProto(source);
            var enable = EnableVolumeReplicationRequest.newBuilder()
                    .setReplicationSource(wire)
                    .putAllSecrets(GOOD)
                    .build();
            var promote = PromoteVolumeRequest.newBuilder()
                    .setReplicationSource(wire)
                    .putAllSecrets(GOOD)
                    .build();
            var demote = DemoteVolumeRequest.newBuilder()
                    .setReplicationSource(wire)
                    .putAllSecrets(GOOD)
                    .build();
            var resync = ResyncVolumeRequest.newBuilder()
                    .setReplicationSource(wire)
                    .putAllSecrets(GOOD)
                    .build();
            var info = GetVolumeReplicationInfoRequest.newBuilder()
                    .setReplicationSource(wire)
                    .putAllSecrets(GOOD)
                    .build();
            var disable = DisableVolumeReplicationRequest.newBuilder()
                    .setReplicationSource(wire)
                    .putAllSecrets(GOOD)
                    .build();

            assertThat(code(() -> stub.promoteVolume(promote))).isEqualTo(Status.Code.FAILED_PRECONDITION);
            assertThat(code(() -> stub.getVolumeReplicationInfo(info))).isEqualTo(Status.Code.FAILED_PRECONDITION);
            assertThat(code(() -> stub.enableVolumeReplication(
                            enable.toBuilder().clearSecrets().build())))
                    .isEqualTo(Status.Code.UNAUTHENTICATED);
            assertThat(code(() -> stub.enableVolumeReplication(
                            enable.toBuilder().putSecrets("user", "root").build())))
                    .isEqualTo(Status.Code.UNAUTHENTICATED);
            for (int i = 0; i < 2; i++) {
                assertThat(code(() -> stub.enableVolumeReplication(enable))).isEqualTo(Status.Code.OK);
            }
            assertThat(stub.getVolumeReplicationInfo(info).hasLastSyncTime()).isTrue();
            assertThat(code(() -> stub.resyncVolume(resync))).isEqualTo(Status.Code.FAILED_PRECONDITION);
            for (int i = 0; i < 2; i++) {
                assertThat(code(() -> stub.demoteVolume(demote))).isEqualTo(Status.Code.OK);
            }
            assertThat(stub.resyncVolume(resync).getReady()).isFalse();
            assertThat(stub.resyncVolume(resync).getReady()).isTrue();
            for (int i = 0; i < 2; i++) {
                assertThat(code(() -> stub.promoteVolume(promote))).isEqualTo(Status.Code.OK);
            }
            for (int i = 0; i < 2; i++) {
                assertThat(code(() -> stub.disableVolumeReplication(disable))).isEqualTo(Status.Code.OK);
            }
        }
        assertThat(code(() -> stub.enableVolumeReplication(EnableVolumeReplicationRequest.newBuilder()
                        .setReplicationSource(WireMapping.toProto(ReplicationSource.volume("vol-16")))
                        .putAllSecrets(GOOD)
                        .build())))
                .isEqualTo(Status.Code.NOT_FOUND);
        assertThat(code(() -> stub.enableVolumeReplication(EnableVolumeReplicationRequest.newBuilder()
                        .setVolumeId("vol-3")
                        .putAllSecrets(GOOD)
                        .build())))
                .as("deprecated volume_id")
                .isEqualTo(Status.Code.OK);
        assertThat(driver.state(ReplicationSource.volume("vol-3")).enabled()).isTrue();
    }

    @Test
    void concurrentCallsOnOneSourceAreOkOrAborted() throws Exception {
        ReferenceDriver driver = ReferenceDriver.builder()
                .volumes(1)
                .latency(Duration.ofMillis(50))
                .build();
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            ReplicationServer server = grpc.register(ReferencePlugin.start(driver, "unix://" + dir.resolve("c.sock")));
            ManagedChannel channel = grpc.register(channel(server.address()));
            var stub = ControllerGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
            var enable = EnableVolumeReplicationRequest.newBuilder()
                    .setReplicationSource(WireMapping.toProto(ReplicationSource.volume("vol-0")))
                    .build();
            List<CompletableFuture<Status.Code>> calls = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                calls.add(CompletableFuture.supplyAsync(() -> code(() -> stub.enableVolumeReplication(enable)), pool));
            }
            int ok = 0;
            for (var call : calls) {
                Status.Code c = call.get(5, TimeUnit.MINUTES);
                assertThat(c).isIn(Status.Code.OK, Status.Code.ABORTED);
                ok += c == Status.Code.OK ? 1 : 0;
            }
            assertThat(ok).isPositive();
            assertThat(driver.effects()).hasSize(1); // enable is idempotent: one applied change
            assertThat(server.busySources()).isZero();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void sigtermDrainsCallsInFlightAndRemovesTheSocket() throws Exception {
        Path socket = dir.resolve("t.sock");
        Path stderr = dir.resolve("child.err");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = grpc.register(new ProcessBuilder(
                        java,
                        "-cp",
                        System.getProperty("java.class.path"),
                        ServeReferenceMain.class.getName(),
                        "unix://" + socket,
                        "PT2.5S")
                .redirectError(stderr.toFile())
                .start());
        BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<String> firstLine = CompletableFuture.supplyAsync(() -> {
            try {
                return out.readLine();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        assertThat(firstLine.get(5, TimeUnit.MINUTES)).isEqualTo("listening on unix://" + socket);
        assertThat(socket).exists();

        ManagedChannel channel = grpc.register(channel("unix://" + socket));
        var stub = ControllerGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
        var enable = EnableVolumeReplicationRequest.newBuilder()
                .setVolumeId("vol-0")
                .putAllSecrets(GOOD)
                .build();
        CompletableFuture<Status.Code> inFlight =
                CompletableFuture.supplyAsync(() -> code(() -> stub.enableVolumeReplication(enable)));
        Thread.sleep(1200); // the call is now inside the driver's 2.5 s latency
        child.destroy(); // SIGTERM
        assertThat(inFlight.get(5, TimeUnit.MINUTES))
                .as("the call in flight finishes")
                .isEqualTo(Status.Code.OK);
        assertThat(child.waitFor(5, TimeUnit.MINUTES)).isTrue();
        // A clean drain exits 0 (not 128 + 15, what a JVM stopped through its shutdown hooks reports).
        assertThat(child.exitValue()).isZero();
        assertThat(socket).doesNotExist();
        assertThat(Files.readString(stderr))
                .contains("shutting down (")
                .doesNotContain("WARN")
                .contains("EnableVolumeReplication volume vol-0 -> OK")
                .doesNotContain("admin");
    }
}
