package io.volrep.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Message;
import com.google.protobuf.Timestamp;
import io.grpc.stub.StreamObserver;
import io.volrep.api.ErrorScheme;
import io.volrep.api.PreconditionFailedException;
import io.volrep.api.ProtocolViolationException;
import io.volrep.api.ReplicationException;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.Rpc;
import io.volrep.api.SpecDialect;
import io.volrep.api.StatusCode;
import io.volrep.api.UnimplementedException;
import io.volrep.proto.replication.v0_1_0.DemoteVolumeRequest;
import io.volrep.proto.replication.v0_1_3.GetVolumeReplicationInfoRequest;
import io.volrep.proto.replication.v0_1_3.GetVolumeReplicationInfoResponse;
import io.volrep.proto.replication.v0_1_3.ReplicationSource.TypeCase;
import io.volrep.proto.replication.v0_1_3.ResyncVolumeRequest;
import io.volrep.testsupport.GrpcCleanup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The client against independent plugins of the legacy revisions, and what a wrong dialect does on the wire. */
@SuppressWarnings("deprecation") // sends or reads the deprecated volume_id (field 1) on purpose
class DialectTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    static final RetryPolicy FAST = RetryPolicy.spec().toBuilder()
            .initialBackoff(Duration.ofMillis(10))
            .multiplier(2)
            .maxBackoff(Duration.ofMillis(40))
            .jitter(RetryPolicy.Jitter.NONE)
            .maxAttempts(3)
            .build();

    static ReplicationClient client(String target, SpecDialect dialect) {
        return ReplicationClient.builder()
                .target(target)
                .retry(FAST)
                .dialect(dialect)
                .build();
    }

    @Test
    void v013PluginIsDrivenThroughEnableDemoteResyncAndInfo() throws Exception {
        LegacyPlugins.V013 plugin = new LegacyPlugins.V013("vol-1", "vg-1");
        TestServer server = grpc.register(TestServer.inProcess(plugin));
        ReplicationClient client = grpc.register(client(server.target(), SpecDialect.V0_1_3));
        client.volume("vol-1").enable().parameter("mode", "snapshot").call();
        ReplicationInfo info = client.volume("vol-1").info();
        client.volume("vol-1").demote().call();
        ResyncStatus status = client.volume("vol-1").resync().awaitReadyBlocking(Duration.ofSeconds(10));
        client.volumeGroup("vg-1").enable().call();

        assertThat(status.ready()).isTrue();
        assertThat(info.lastSyncTime().getEpochSecond()).isEqualTo(1_700_000_000L);
        assertThat(info.lastSyncDuration()).isEmpty();
        assertThat(info.lastSyncBytes()).isEmpty();

        List<Message> wire = plugin.volumes.requests;
        assertThat(wire).hasSize(7); // enable, info, demote, 3 resync polls, group enable
        var enable = (io.volrep.proto.replication.v0_1_3.EnableVolumeReplicationRequest) wire.get(0);
        assertThat(enable.getVolumeId()).isEqualTo("vol-1");
        assertThat(enable.getReplicationSource().getTypeCase()).isEqualTo(TypeCase.VOLUME);
        assertThat(enable.getReplicationSource().getVolume().getVolumeId()).isEqualTo("vol-1");
        assertThat(enable.getParametersMap()).containsEntry("mode", "snapshot");
        var resync = (ResyncVolumeRequest) wire.get(5);
        assertThat(resync.getVolumeId()).isEqualTo("vol-1");
        assertThat(resync.getReplicationSource().getTypeCase()).isEqualTo(TypeCase.VOLUME);
        var group = (io.volrep.proto.replication.v0_1_3.EnableVolumeReplicationRequest) wire.get(6);
        // volume_id is REQUIRED in v0.1.3: it carries the group id, and the source says it names a group.
        assertThat(group.getVolumeId()).isEqualTo("vg-1");
        assertThat(group.getReplicationSource().getTypeCase()).isEqualTo(TypeCase.VOLUMEGROUP);
        assertThat(group.getReplicationSource().getVolumegroup().getVolumeGroupId())
                .isEqualTo("vg-1");
    }

    @Test
    void v010PluginIsDrivenOverAUnixSocket(@TempDir Path dir) throws Exception {
        LegacyPlugins.V010 plugin = new LegacyPlugins.V010("vol-1");
        TestServer server = grpc.register(TestServer.unixSocket(dir.resolve("v010.sock"), plugin));
        ReplicationClient client = grpc.register(client(server.target(), SpecDialect.V0_1_0));
        client.volume("vol-1").enable().call();
        client.volume("vol-1").demote().force().call();
        assertThat(client.volume("vol-1")
                        .resync()
                        .awaitReady(Duration.ofSeconds(10))
                        .get()
                        .ready())
                .isTrue();
        client.volume("vol-1").promote().call();

        assertThat(plugin.volumes.states).containsEntry("vol-1", LegacyPlugins.VolumeStates.State.PRIMARY);
        var demote = (DemoteVolumeRequest) plugin.volumes.requests.get(1);
        assertThat(demote.getVolumeId()).isEqualTo("vol-1");
        assertThat(demote.getForce()).isTrue();
        assertThat(plugin.volumes.requests)
                .allSatisfy(m -> assertThat(m.getUnknownFields().asMap()).isEmpty());
    }

    @Test
    void whatARevisionCannotExpressFailsBeforeSending() throws Exception {
        LegacyPlugins.V010 v010 = new LegacyPlugins.V010("vol-1");
        LegacyPlugins.V013 v013 = new LegacyPlugins.V013("vol-1");
        TestServer s010 = grpc.register(TestServer.inProcess(v010));
        TestServer s013 = grpc.register(TestServer.inProcess(v013));
        ReplicationClient c010 = grpc.register(client(s010.target(), SpecDialect.V0_1_0));
        ReplicationClient c013 = grpc.register(client(s013.target(), SpecDialect.V0_1_3));
        assertUnsupported(() -> c010.volume("vol-1").info(), Rpc.GET_VOLUME_REPLICATION_INFO, "v0.1.0");
        assertUnsupported(() -> c010.volumeGroup("vg-1").enable().call(), Rpc.ENABLE_VOLUME_REPLICATION, "volumegroup");
        assertUnsupported(() -> c010.volumeSnapshot("snap-1").promote().call(), Rpc.PROMOTE_VOLUME, "volumesnapshot");
        assertUnsupported(
                () -> c010.volume("vol-1").enable().replicationId("rid").call(),
                Rpc.ENABLE_VOLUME_REPLICATION,
                "replication_id");
        assertUnsupported(
                () -> c013.volumeSnapshot("snap-1").enable().call(), Rpc.ENABLE_VOLUME_REPLICATION, "volumesnapshot");
        assertThat(v010.volumes.requests).isEmpty();
        assertThat(v013.volumes.requests).isEmpty();
    }

    private static void assertUnsupported(Runnable call, Rpc rpc, String what) {
        assertThatThrownBy(call::run)
                .isInstanceOf(UnsupportedByDialectException.class)
                .isInstanceOf(UnimplementedException.class)
                .hasMessageContaining(what)
                .satisfies(t -> {
                    UnsupportedByDialectException e = (UnsupportedByDialectException) t;
                    assertThat(e.attempts()).isZero();
                    assertThat(e.code()).isEqualTo(StatusCode.UNIMPLEMENTED);
                    assertThat(e.rpc()).isEqualTo(rpc);
                });
    }

    @Test
    void aLegacyTimestampOutOfRangeIsAProtocolViolation() throws Exception {
        var plugin = new io.volrep.proto.replication.v0_1_3.ControllerGrpc.ControllerImplBase() {
            @Override
            public void getVolumeReplicationInfo(
                    GetVolumeReplicationInfoRequest r, StreamObserver<GetVolumeReplicationInfoResponse> o) {
                o.onNext(GetVolumeReplicationInfoResponse.newBuilder()
                        .setLastSyncTime(Timestamp.newBuilder().setSeconds(1).setNanos(-3))
                        .build());
                o.onCompleted();
            }
        };
        TestServer server = grpc.register(TestServer.inProcess(plugin));
        ReplicationClient client = grpc.register(client(server.target(), SpecDialect.V0_1_3));
        assertThatThrownBy(() -> client.volume("vol-1").info())
                .isInstanceOf(ProtocolViolationException.class)
                .hasMessageContaining("last_sync_time.nanos")
                .hasMessageContaining("out of range");
    }

    @Test
    void legacyErrorsCarryTheRevisionsPreconditionText() throws Exception {
        LegacyPlugins.V013 plugin = new LegacyPlugins.V013("vol-1");
        TestServer server = grpc.register(TestServer.inProcess(plugin));
        ReplicationClient client = grpc.register(client(server.target(), SpecDialect.V0_1_3));
        assertThatThrownBy(() -> client.volume("vol-1").resync().call())
                .isInstanceOf(PreconditionFailedException.class)
                .hasMessageContaining("is not demoted")
                .hasMessageContaining("Caller SHOULD ensure that replication is enabled and the image is demoted.")
                .satisfies(e -> {
                    // Issue 20 point 4: the exception reads the table of the revision the call was made in,
                    // and keeps it (and its subclass) when re-attributed.
                    ReplicationException r = (ReplicationException) e;
                    String v013 = SpecDialect.V0_1_3
                            .errorScheme()
                            .recoveryText(Rpc.RESYNC_VOLUME, StatusCode.FAILED_PRECONDITION);
                    assertThat(v013)
                            .isNotEqualTo(
                                    ErrorScheme.spec().recoveryText(Rpc.RESYNC_VOLUME, StatusCode.FAILED_PRECONDITION));
                    assertThat(r.recoveryText()).isEqualTo(v013);
                    ReplicationException copy = r.withContext(Rpc.RESYNC_VOLUME, 7);
                    assertThat(copy).isInstanceOf(PreconditionFailedException.class);
                    assertThat(copy.attempts()).isEqualTo(7);
                    assertThat(copy.recoveryText()).isEqualTo(v013);
                });
    }

    /** Records the raw v0.1.3 requests that arrive, whatever the sender meant. */
    static final class RecordingV013 extends io.volrep.proto.replication.v0_1_3.ControllerGrpc.ControllerImplBase {
        final List<io.volrep.proto.replication.v0_1_3.EnableVolumeReplicationRequest> enables =
                new CopyOnWriteArrayList<>();

        @Override
        public void enableVolumeReplication(
                io.volrep.proto.replication.v0_1_3.EnableVolumeReplicationRequest r,
                StreamObserver<io.volrep.proto.replication.v0_1_3.EnableVolumeReplicationResponse> o) {
            enables.add(r);
            o.onNext(io.volrep.proto.replication.v0_1_3.EnableVolumeReplicationResponse.getDefaultInstance());
            o.onCompleted();
        }
    }

    @Test
    void aCurrentVolumeSourceReadsAsAVolumeGroupToAV013Plugin() throws Exception {
        RecordingV013 plugin = new RecordingV013();
        TestServer server = grpc.register(TestServer.inProcess(plugin));
        ReplicationClient bare = grpc.register(ReplicationClient.builder()
                .target(server.target())
                .retry(FAST)
                .alsoSendDeprecatedVolumeId(false)
                .build());
        ReplicationClient withVolumeId = grpc.register(client(server.target(), SpecDialect.CURRENT));
        bare.volume("vol-1").enable().call();
        withVolumeId.volume("vol-1").enable().call();
        var parsed = plugin.enables.get(0);
        // What the current revision calls replication_source.volume (field 1) is volumegroup in v0.1.3.
        assertThat(HexFormat.ofDelimiter(" ").formatHex(parsed.toByteArray()))
                .isEqualTo("2a 09 0a 07 0a 05 76 6f 6c 2d 31");
        assertThat(parsed.getReplicationSource().getTypeCase()).isEqualTo(TypeCase.VOLUMEGROUP);
        assertThat(parsed.getReplicationSource().getVolumegroup().getVolumeGroupId())
                .isEqualTo("vol-1");
        assertThat(parsed.getVolumeId()).isEmpty();
        // With the deprecated volume_id also sent, the plugin sees a volume id AND a group: contradictory.
        var both = plugin.enables.get(1);
        assertThat(HexFormat.ofDelimiter(" ").formatHex(both.toByteArray()))
                .isEqualTo("0a 05 76 6f 6c 2d 31 2a 09 0a 07 0a 05 76 6f 6c 2d 31");
        assertThat(both.getVolumeId()).isEqualTo("vol-1");
        assertThat(both.getReplicationSource().getTypeCase()).isEqualTo(TypeCase.VOLUMEGROUP);
    }

    /** Records current-revision requests. */
    static final class RecordingCurrent extends io.volrep.proto.replication.ControllerGrpc.ControllerImplBase {
        final List<io.volrep.proto.replication.EnableVolumeReplicationRequest> enables = new CopyOnWriteArrayList<>();

        @Override
        public void enableVolumeReplication(
                io.volrep.proto.replication.EnableVolumeReplicationRequest r,
                StreamObserver<io.volrep.proto.replication.EnableVolumeReplicationResponse> o) {
            enables.add(r);
            o.onNext(io.volrep.proto.replication.EnableVolumeReplicationResponse.getDefaultInstance());
            o.onCompleted();
        }
    }

    @Test
    void aV013VolumeSourceReadsAsAVolumeGroupToACurrentPlugin() throws Exception {
        RecordingCurrent plugin = new RecordingCurrent();
        TestServer server = grpc.register(TestServer.inProcess(plugin));
        ReplicationClient client = grpc.register(client(server.target(), SpecDialect.V0_1_3));
        client.volume("vol-1").enable().call();
        var parsed = plugin.enables.get(0);
        assertThat(HexFormat.ofDelimiter(" ").formatHex(parsed.toByteArray()))
                .isEqualTo("0a 05 76 6f 6c 2d 31 2a 09 12 07 0a 05 76 6f 6c 2d 31");
        assertThat(parsed.getReplicationSource().getTypeCase())
                .isEqualTo(io.volrep.proto.replication.ReplicationSource.TypeCase.VOLUMEGROUP);
        assertThat(parsed.getVolumeId()).isEqualTo("vol-1");
    }

    @Test
    void currentDialectAlsoSendsTheDeprecatedVolumeIdForVolumesOnly() throws Exception {
        RecordingCurrent plugin = new RecordingCurrent();
        TestServer server = grpc.register(TestServer.inProcess(plugin));
        ReplicationClient client = grpc.register(client(server.target(), SpecDialect.CURRENT));
        ReplicationClient off = grpc.register(ReplicationClient.builder()
                .target(server.target())
                .alsoSendDeprecatedVolumeId(false)
                .build());
        client.volume("vol-1").enable().call();
        client.volumeGroup("vg-1").enable().call();
        off.volume("vol-2").enable().call();
        assertThat(plugin.enables.get(0).getVolumeId()).isEqualTo("vol-1");
        assertThat(plugin.enables.get(0).getReplicationSource().getVolume().getVolumeId())
                .isEqualTo("vol-1");
        assertThat(plugin.enables.get(1).getVolumeId()).isEmpty();
        assertThat(plugin.enables.get(1).getReplicationSource().getVolumegroup().getVolumeGroupId())
                .isEqualTo("vg-1");
        assertThat(plugin.enables.get(2).getVolumeId()).isEmpty();
        assertThat(plugin.enables.get(2).getReplicationSource().getVolume().getVolumeId())
                .isEqualTo("vol-2");
    }
}
