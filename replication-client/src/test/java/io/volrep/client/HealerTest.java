package io.volrep.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.volrep.api.HealReport;
import io.volrep.api.InvalidArgumentException;
import io.volrep.api.ProtocolViolationException;
import io.volrep.api.Recovery;
import io.volrep.api.Rpc;
import io.volrep.api.SourceNotFoundException;
import io.volrep.api.StatusCode;
import io.volrep.api.UnimplementedException;
import io.volrep.api.VolumeCapability;
import io.volrep.api.VolumeCapability.AccessMode;
import io.volrep.proto.csi.VolumeCapability.AccessTypeCase;
import io.volrep.proto.healer.HealerNodeGrpc;
import io.volrep.proto.healer.NodeHealerRequest;
import io.volrep.proto.healer.NodeHealerResponse;
import io.volrep.testsupport.GrpcCleanup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** NodeHealer through the client against an independent node plugin written on the generated healer stub. */
class HealerTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    static final RetryPolicy FAST = RetryPolicy.spec().toBuilder()
            .initialBackoff(Duration.ofMillis(10))
            .multiplier(2)
            .maxBackoff(Duration.ofMillis(40))
            .jitter(RetryPolicy.Jitter.NONE)
            .maxAttempts(5)
            .build();

    /**
     * vol-ok is healthy, vol-bad abnormal, vol-flaky answers ABORTED {@code flakyFailures} times then healthy,
     * vol-silent answers without the REQUIRED message, anything else is NOT_FOUND.
     */
    static final class NodePlugin extends HealerNodeGrpc.HealerNodeImplBase {
        final List<NodeHealerRequest> requests = new CopyOnWriteArrayList<>();
        final AtomicInteger flakyFailures = new AtomicInteger(2);

        @Override
        public void nodeHealer(NodeHealerRequest r, StreamObserver<NodeHealerResponse> o) {
            requests.add(r);
            switch (r.getVolumeId()) {
                case "vol-ok" -> reply(o, false, "filesystem clean");
                case "vol-bad" -> reply(o, true, "journal corrupt; fsck scheduled");
                case "vol-silent" -> reply(o, false, "");
                case "vol-flaky" -> {
                    if (flakyFailures.getAndDecrement() > 0) {
                        o.onError(Status.ABORTED
                                .withDescription("heal in progress")
                                .asRuntimeException());
                    } else {
                        reply(o, false, "healed");
                    }
                }
                default ->
                    o.onError(Status.NOT_FOUND
                            .withDescription("no volume " + r.getVolumeId())
                            .asRuntimeException());
            }
        }

        private static void reply(StreamObserver<NodeHealerResponse> o, boolean abnormal, String message) {
            o.onNext(NodeHealerResponse.newBuilder()
                    .setAbnormal(abnormal)
                    .setMessage(message)
                    .build());
            o.onCompleted();
        }
    }

    final List<AttemptEvent> events = Collections.synchronizedList(new ArrayList<>());

    ReplicationClient client(String target) {
        return ReplicationClient.builder()
                .target(target)
                .retry(FAST)
                .listener(events::add)
                .secrets(SecretsProvider.of(Map.of("node-key", "n0de-s3cret")))
                .build();
    }

    @Test
    void healthyVolumeWithEveryOptionalField() throws Exception {
        NodePlugin plugin = new NodePlugin();
        TestServer server = grpc.register(TestServer.inProcess(plugin));
        ReplicationClient client = grpc.register(client(server.target()));
        HealReport report = client.node()
                .heal("vol-ok", Path.of("/mnt/vol-ok"))
                .stagingPath(Path.of("/var/lib/staging/vol-ok"))
                .capability(VolumeCapability.mount("ext4", AccessMode.SINGLE_NODE_WRITER))
                .context("pool", "replicapool")
                .context(Map.of("tier", "gold"))
                .call();
        assertThat(report).isEqualTo(HealReport.healthy("filesystem clean"));
        NodeHealerRequest wire = plugin.requests.get(0);
        assertThat(wire.getVolumeId()).isEqualTo("vol-ok");
        assertThat(wire.getVolumePath()).isEqualTo("/mnt/vol-ok");
        assertThat(wire.getStagingTargetPath()).isEqualTo("/var/lib/staging/vol-ok");
        assertThat(wire.getVolumeCapability().getAccessTypeCase()).isEqualTo(AccessTypeCase.MOUNT);
        assertThat(wire.getVolumeCapability().getMount().getFsType()).isEqualTo("ext4");
        assertThat(wire.getVolumeCapability().getAccessMode().getModeValue())
                .isEqualTo(AccessMode.SINGLE_NODE_WRITER.wireNumber());
        assertThat(wire.getVolumeContextMap())
                .containsEntry("pool", "replicapool")
                .containsEntry("tier", "gold");
        assertThat(wire.getSecretsMap()).containsEntry("node-key", "n0de-s3cret");
    }

    @Test
    void abnormalVolumeOverAUnixSocket(@TempDir Path dir) throws Exception {
        NodePlugin plugin = new NodePlugin();
        TestServer server = grpc.register(TestServer.unixSocket(dir.resolve("node.sock"), plugin));
        ReplicationClient client = grpc.register(client(server.target()));
        HealReport report = client.node()
                .heal("vol-bad", Path.of("/mnt/vol-bad"))
                .capability(VolumeCapability.block(AccessMode.SINGLE_NODE_WRITER))
                .callAsync()
                .get();
        assertThat(report.abnormal()).isTrue();
        assertThat(report.message()).isEqualTo("journal corrupt; fsck scheduled");
        assertThat(plugin.requests.get(0).getVolumeCapability().getAccessTypeCase())
                .isEqualTo(AccessTypeCase.BLOCK);
        assertThat(plugin.requests.get(0).getStagingTargetPath()).isEmpty();
    }

    @Test
    void notFoundIsSurfacedWithoutAVerifier() throws Exception {
        NodePlugin plugin = new NodePlugin();
        TestServer server = grpc.register(TestServer.inProcess(plugin));
        ReplicationClient client = grpc.register(client(server.target()));
        assertThatThrownBy(
                        () -> client.node().heal("vol-gone", Path.of("/mnt/x")).call())
                .isInstanceOfSatisfying(SourceNotFoundException.class, e -> {
                    assertThat(e.rpc()).isEqualTo(Rpc.NODE_HEALER);
                    assertThat(e.attempts()).isEqualTo(1);
                    assertThat(e.recovery()).isEqualTo(Recovery.VERIFY_THEN_BACKOFF);
                    assertThat(e.getMessage())
                            .contains("NodeHealer for volume vol-gone")
                            .contains("no volume");
                });
        assertThat(plugin.requests).hasSize(1);
    }

    @Test
    void abortedIsRetriedWithBackoffPerTheHealerRows() throws Exception {
        NodePlugin plugin = new NodePlugin();
        TestServer server = grpc.register(TestServer.inProcess(plugin));
        ReplicationClient client = grpc.register(client(server.target()));
        assertThat(client.node().heal("vol-flaky", Path.of("/mnt/f")).call().message())
                .isEqualTo("healed");
        assertThat(plugin.requests).hasSize(3);
        assertThat(events)
                .extracting(AttemptEvent::code)
                .containsExactly(StatusCode.ABORTED, StatusCode.ABORTED, StatusCode.OK);
        assertThat(events.get(0).rpc()).isEqualTo(Rpc.NODE_HEALER);
        assertThat(events.get(0).retryDelay()).contains(Duration.ofMillis(10));
    }

    @Test
    void callsForOneVolumeAreNeverConcurrent() throws Exception {
        NodePlugin plugin = new NodePlugin();
        plugin.flakyFailures.set(0);
        TestServer server = grpc.register(TestServer.inProcess(plugin));
        ReplicationClient client = grpc.register(client(server.target()));
        List<CompletableFuture<HealReport>> calls = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            calls.add(client.node().heal("vol-ok", Path.of("/mnt/vol-ok")).callAsync());
        }
        CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get();
        assertThat(client.activeSources()).isZero();
        assertThat(plugin.requests).hasSize(20);
    }

    @Test
    void invalidRequestsAreRejectedBeforeSending() throws Exception {
        NodePlugin plugin = new NodePlugin();
        TestServer server = grpc.register(TestServer.inProcess(plugin));
        ReplicationClient client = grpc.register(client(server.target()));
        NodeClient node = client.node();
        assertInvalid(
                () -> node.heal("vol-ok", Path.of("/mnt/vol-ok"))
                        .stagingPath(Path.of("staging/vol-ok"))
                        .call(),
                "staging_target_path");
        assertInvalid(() -> node.heal("vol-ok", null).call(), "volume_path");
        assertInvalid(() -> node.heal("vol-ok", Path.of("")).call(), "volume_path");
        assertInvalid(() -> node.heal("v".repeat(129), Path.of("/mnt/x")).call(), "volume_id");
        assertInvalid(() -> node.heal("", Path.of("/mnt/x")).call(), "volume_id");
        assertInvalid(
                () -> node.heal("vol-ok", Path.of("/mnt/x"))
                        .context("k", "v".repeat(5000))
                        .call(),
                "volume_context");
        assertThat(plugin.requests).isEmpty();

        // Both paths are exempt from the 128-byte limit.
        String longPath = "/" + "p".repeat(4095);
        assertThat(node.heal("vol-ok", Path.of(longPath))
                        .stagingPath(Path.of(longPath))
                        .call()
                        .abnormal())
                .isFalse();
        assertThat(plugin.requests.get(0).getVolumePath()).hasSize(4096);
    }

    private static void assertInvalid(Runnable call, String field) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(InvalidArgumentException.class, e -> {
            assertThat(e.getMessage()).startsWith(field + ":");
            assertThat(e.attempts()).isZero();
            assertThat(e.rpc()).isEqualTo(Rpc.NODE_HEALER);
        });
    }

    @Test
    void aResponseWithoutMessageIsAProtocolViolation() throws Exception {
        NodePlugin plugin = new NodePlugin();
        TestServer server = grpc.register(TestServer.inProcess(plugin));
        ReplicationClient client = grpc.register(client(server.target()));
        assertThatThrownBy(() ->
                        client.node().heal("vol-silent", Path.of("/mnt/s")).call())
                .isInstanceOfSatisfying(
                        ProtocolViolationException.class,
                        e -> assertThat(e.field()).contains("message"))
                .hasMessage("message: REQUIRED but empty");
    }

    @Test
    void aPluginWithoutTheHealerServiceIsUnimplemented() throws Exception {
        TestServer server = grpc.register(TestServer.inProcess(new LegacyPlugins.V010("vol-1")));
        ReplicationClient client = grpc.register(client(server.target()));
        assertThatThrownBy(() -> client.node().heal("vol-1", Path.of("/mnt/1")).call())
                .isInstanceOfSatisfying(
                        UnimplementedException.class,
                        e -> assertThat(e.attempts()).isEqualTo(1));
    }
}
