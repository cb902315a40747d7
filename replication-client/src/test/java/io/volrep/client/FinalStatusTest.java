package io.volrep.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Timestamp;
import io.volrep.api.ProtocolViolationException;
import io.volrep.api.ReplicationException;
import io.volrep.api.ResourceExhaustedException;
import io.volrep.api.StatusCode;
import io.volrep.proto.replication.GetVolumeReplicationInfoResponse;
import io.volrep.testkit.fake.RawHttp2Plugin;
import io.volrep.testkit.fake.RawHttp2Plugin.EndOnData;
import io.volrep.testkit.fake.RawHttp2Plugin.Message;
import io.volrep.testkit.fake.RawHttp2Plugin.Script;
import io.volrep.testkit.fake.RawHttp2Plugin.Trailers;
import io.volrep.testsupport.GrpcCleanup;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A call is done only when its final status is OK (issue 13, point 1): answers no gRPC server sends, produced
 * frame by frame by {@link RawHttp2Plugin} over TCP, are errors, never a success.
 */
class FinalStatusTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    private static final byte[] EMPTY = new byte[0];
    private static final byte[] INFO = GetVolumeReplicationInfoResponse.newBuilder()
            .setLastSyncTime(Timestamp.newBuilder().setSeconds(1_700_000_000L))
            .build()
            .toByteArray();

    private static ReplicationClient client(RawHttp2Plugin plugin) {
        return ReplicationClient.builder()
                .target(plugin.target())
                .retry(RetryBehaviourTest.FAST)
                .build();
    }

    @Test
    void aResponseFollowedByInternalIsInternal() throws Exception {
        RawHttp2Plugin plugin =
                grpc.register(new RawHttp2Plugin(Script.of(new Message(EMPTY), new Trailers(13, "boom"))));
        ReplicationClient client = grpc.register(client(plugin));
        assertThatThrownBy(() -> client.volume("vol-1").enable().call())
                .isInstanceOf(ReplicationException.class)
                .hasMessageContaining("boom")
                .satisfies(e -> assertThat(((ReplicationException) e).code()).isEqualTo(StatusCode.INTERNAL));
        assertThatThrownBy(() -> client.volume("vol-1").infoCall().callAsync().get(5, TimeUnit.MINUTES))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(ReplicationException.class)
                .satisfies(e -> assertThat(((ReplicationException) e).code()).isEqualTo(StatusCode.INTERNAL));
        // INTERNAL is INSPECT_LOGS: one request each, no retry.
        assertThat(plugin.requests()).isEqualTo(2);
    }

    @Test
    void aResponseFollowedByTrailersWithoutStatusIsAnError() throws Exception {
        RawHttp2Plugin plugin =
                grpc.register(new RawHttp2Plugin(Script.of(new Message(INFO), new Trailers(null, null))));
        ReplicationClient client = grpc.register(client(plugin));
        assertThatThrownBy(() -> client.volume("vol-1").infoCall().call())
                .isInstanceOf(ReplicationException.class)
                .satisfies(e -> assertThat(((ReplicationException) e).code()).isNotEqualTo(StatusCode.OK));
    }

    @Test
    void aResponseEndingTheStreamWithoutTrailersIsAnError() throws Exception {
        RawHttp2Plugin plugin = grpc.register(new RawHttp2Plugin(Script.of(new Message(EMPTY), new EndOnData())));
        ReplicationClient client = grpc.register(client(plugin));
        assertThatThrownBy(() -> client.volume("vol-1").enable().call())
                .isInstanceOf(ReplicationException.class)
                .satisfies(e -> assertThat(((ReplicationException) e).code()).isNotEqualTo(StatusCode.OK));
    }

    @Test
    void twoResponsesToAUnaryCallAreAProtocolViolation() throws Exception {
        RawHttp2Plugin plugin = grpc.register(
                new RawHttp2Plugin(Script.of(new Message(EMPTY), new Message(EMPTY), new Trailers(0, null))));
        ReplicationClient client = grpc.register(client(plugin));
        assertThatThrownBy(() -> client.volume("vol-1").enable().call())
                .isInstanceOf(ProtocolViolationException.class)
                .hasMessageContaining("EnableVolumeReplication")
                .hasMessageContaining("more than one response");
        assertThat(plugin.requests()).isEqualTo(1);
    }

    @Test
    void okWithoutAResponseIsAProtocolViolation() throws Exception {
        RawHttp2Plugin plugin = grpc.register(new RawHttp2Plugin(Script.of(new Trailers(0, null))));
        ReplicationClient client = grpc.register(client(plugin));
        assertThatThrownBy(() -> client.volume("vol-1").infoCall().call())
                .isInstanceOf(ProtocolViolationException.class)
                .hasMessageContaining("no response");
        assertThat(plugin.requests()).isEqualTo(1);
    }

    @Test
    void aWellFormedAnswerStillSucceeds() throws Exception {
        RawHttp2Plugin plugin = grpc.register(new RawHttp2Plugin(Script.of(new Message(INFO), new Trailers(0, null))));
        ReplicationClient client = grpc.register(client(plugin));
        assertThat(client.volume("vol-1").infoCall().call().lastSyncTime().getEpochSecond())
                .isEqualTo(1_700_000_000L);
    }

    /** An EnableVolumeReplicationResponse of {@code size} bytes: one unknown length-delimited field 15. */
    static byte[] response(int size) {
        int body = size - 5;
        ByteBuffer b = ByteBuffer.allocate(size).put((byte) 0x7a);
        for (int v = body; ; v >>>= 7) {
            if ((v & ~0x7f) == 0) {
                b.put((byte) v);
                break;
            }
            b.put((byte) ((v & 0x7f) | 0x80));
        }
        return Arrays.copyOf(b.array(), b.position() + body);
    }

    @Test
    void aResponseOverTheInboundLimitFailsAtOnceNamingTheLimitAndTheOption() throws Exception {
        // Issue 13 point 9: the client's own limit; downloading it again after a back-off cannot help.
        RawHttp2Plugin plugin =
                grpc.register(new RawHttp2Plugin(Script.of(new Message(response(5 << 20)), new Trailers(0, null))));
        ReplicationClient client = grpc.register(client(plugin));
        assertThatThrownBy(() -> client.volume("vol-1").enable().call())
                .isInstanceOf(ResourceExhaustedException.class)
                .hasMessageContaining("4194304")
                .hasMessageContaining("maxInboundMessageSize")
                .satisfies(
                        e -> assertThat(((ReplicationException) e).attempts()).isEqualTo(1));
        assertThat(plugin.requests()).isEqualTo(1);
    }

    @Test
    void maxInboundMessageSizeRaisesTheLimit() throws Exception {
        RawHttp2Plugin plugin =
                grpc.register(new RawHttp2Plugin(Script.of(new Message(response(5 << 20)), new Trailers(0, null))));
        ReplicationClient client = grpc.register(ReplicationClient.builder()
                .target(plugin.target())
                .retry(RetryBehaviourTest.FAST)
                .maxInboundMessageSize(8 << 20)
                .build());
        client.volume("vol-1").enable().call();
        assertThat(plugin.requests()).isEqualTo(1);
    }
}
