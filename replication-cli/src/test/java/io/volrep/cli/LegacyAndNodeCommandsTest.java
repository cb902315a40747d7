package io.volrep.cli;

import static io.volrep.cli.CallCommandsTest.volrep;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Message;
import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.stub.StreamObserver;
import io.volrep.api.SpecDialect;
import io.volrep.cli.CallCommandsTest.Run;
import io.volrep.proto.healer.HealerNodeGrpc;
import io.volrep.proto.healer.NodeHealerRequest;
import io.volrep.proto.healer.NodeHealerResponse;
import io.volrep.proto.identity.Capability;
import io.volrep.proto.identity.GetCapabilitiesRequest;
import io.volrep.proto.identity.GetCapabilitiesResponse;
import io.volrep.proto.identity.GetIdentityRequest;
import io.volrep.proto.identity.GetIdentityResponse;
import io.volrep.proto.identity.IdentityGrpc;
import io.volrep.proto.identity.ProbeRequest;
import io.volrep.proto.identity.ProbeResponse;
import io.volrep.proto.replication.v0_1_3.ReplicationSource;
import io.volrep.proto.replication.v0_1_3.ReplicationSource.TypeCase;
import io.volrep.spi.ReplicationServer;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testkit.reference.ReferencePlugin;
import io.volrep.testsupport.GrpcCleanup;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --dialect}, {@code volrep heal} and {@code volrep probe} against independent plugins written on the
 * generated stubs (legacy replication revisions, a node plugin, an Identity service), on real unix sockets.
 */
class LegacyAndNodeCommandsTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    /** A raw gRPC server on a unix socket. */
    record Served(Server server, EventLoopGroup loop, String endpoint) implements AutoCloseable {
        static Served on(Path socket, BindableService... services) throws Exception {
            EventLoopGroup loop = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
            NettyServerBuilder b = NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                    .channelType(EpollServerDomainSocketChannel.class)
                    .bossEventLoopGroup(loop)
                    .workerEventLoopGroup(loop);
            for (BindableService s : services) {
                b.addService(s);
            }
            return new Served(b.build().start(), loop, "unix://" + socket.toAbsolutePath());
        }

        @Override
        public void close() throws Exception {
            server.shutdownNow();
            server.awaitTermination(5, TimeUnit.MINUTES);
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.MINUTES);
        }
    }

    /** Per volume_id: "disabled", "primary", "secondary"; resync is ready on the second poll. */
    static final class States {
        final Map<String, String> state = new ConcurrentHashMap<>(Map.of("vol-1", "disabled"));
        final Map<String, Integer> polls = new ConcurrentHashMap<>();
        final List<Message> requests = new CopyOnWriteArrayList<>();

        <T> void apply(Message request, String volumeId, String op, StreamObserver<T> o, T response) {
            requests.add(request);
            String s = state.get(volumeId);
            if (s == null) {
                o.onError(Status.NOT_FOUND
                        .withDescription("no volume '" + volumeId + "'")
                        .asRuntimeException());
                return;
            }
            if (!op.equals("enable") && !op.equals("resync") && s.equals("disabled")) {
                o.onError(Status.FAILED_PRECONDITION
                        .withDescription("not enabled")
                        .asRuntimeException());
                return;
            }
            switch (op) {
                case "enable", "promote" -> state.put(volumeId, "primary");
                case "demote" -> state.put(volumeId, "secondary");
                default -> {}
            }
            o.onNext(response);
            o.onCompleted();
        }

        boolean resyncReady(String volumeId) {
            return polls.merge(volumeId, 1, Integer::sum) >= 2;
        }
    }

    static final class V013 extends io.volrep.proto.replication.v0_1_3.ControllerGrpc.ControllerImplBase {
        final States states = new States();

        @Override
        public void enableVolumeReplication(
                io.volrep.proto.replication.v0_1_3.EnableVolumeReplicationRequest r,
                StreamObserver<io.volrep.proto.replication.v0_1_3.EnableVolumeReplicationResponse> o) {
            states.apply(
                    r,
                    r.getVolumeId(),
                    "enable",
                    o,
                    io.volrep.proto.replication.v0_1_3.EnableVolumeReplicationResponse.getDefaultInstance());
        }

        @Override
        public void demoteVolume(
                io.volrep.proto.replication.v0_1_3.DemoteVolumeRequest r,
                StreamObserver<io.volrep.proto.replication.v0_1_3.DemoteVolumeResponse> o) {
            states.apply(
                    r,
                    r.getVolumeId(),
                    "demote",
                    o,
                    io.volrep.proto.replication.v0_1_3.DemoteVolumeResponse.getDefaultInstance());
        }

        @Override
        public void resyncVolume(
                io.volrep.proto.replication.v0_1_3.ResyncVolumeRequest r,
                StreamObserver<io.volrep.proto.replication.v0_1_3.ResyncVolumeResponse> o) {
            states.apply(
                    r,
                    r.getVolumeId(),
                    "resync",
                    o,
                    io.volrep.proto.replication.v0_1_3.ResyncVolumeResponse.newBuilder()
                            .setReady(states.resyncReady(r.getVolumeId()))
                            .build());
        }
    }

    static final class V010 extends io.volrep.proto.replication.v0_1_0.ControllerGrpc.ControllerImplBase {
        final States states = new States();

        @Override
        public void enableVolumeReplication(
                io.volrep.proto.replication.v0_1_0.EnableVolumeReplicationRequest r,
                StreamObserver<io.volrep.proto.replication.v0_1_0.EnableVolumeReplicationResponse> o) {
            states.apply(
                    r,
                    r.getVolumeId(),
                    "enable",
                    o,
                    io.volrep.proto.replication.v0_1_0.EnableVolumeReplicationResponse.getDefaultInstance());
        }

        @Override
        public void demoteVolume(
                io.volrep.proto.replication.v0_1_0.DemoteVolumeRequest r,
                StreamObserver<io.volrep.proto.replication.v0_1_0.DemoteVolumeResponse> o) {
            states.apply(
                    r,
                    r.getVolumeId(),
                    "demote",
                    o,
                    io.volrep.proto.replication.v0_1_0.DemoteVolumeResponse.getDefaultInstance());
        }

        @Override
        public void resyncVolume(
                io.volrep.proto.replication.v0_1_0.ResyncVolumeRequest r,
                StreamObserver<io.volrep.proto.replication.v0_1_0.ResyncVolumeResponse> o) {
            states.apply(
                    r,
                    r.getVolumeId(),
                    "resync",
                    o,
                    io.volrep.proto.replication.v0_1_0.ResyncVolumeResponse.newBuilder()
                            .setReady(states.resyncReady(r.getVolumeId()))
                            .build());
        }
    }

    static Run run(String endpoint, String... args) {
        String[] all = new String[args.length + 2];
        System.arraycopy(args, 0, all, 0, args.length);
        all[args.length] = "--endpoint";
        all[args.length + 1] = endpoint;
        return volrep(all);
    }

    @Test
    void enableDemoteResyncWithDialectV013(@TempDir Path dir) throws Exception {
        V013 plugin = new V013();
        Served s = grpc.register(Served.on(dir.resolve("v013.sock"), plugin));
        for (String[] cmd : List.of(
                new String[] {"enable", "--volume", "vol-1"},
                new String[] {"demote", "--volume", "vol-1"},
                new String[] {"resync", "--volume", "vol-1", "--await-ready", "PT20S"})) {
            String[] args = new String[cmd.length + 2];
            System.arraycopy(cmd, 0, args, 0, cmd.length);
            args[cmd.length] = "--dialect";
            args[cmd.length + 1] = "v0.1.3";
            Run r = run(s.endpoint(), args);
            assertThat(r.exit()).as(r.all()).isZero();
        }
        Run info = run(s.endpoint(), "info", "--volume", "vol-1", "--dialect", "v0.1.3");
        assertThat(info.exit()).isEqualTo(1); // this plugin does not implement it
        assertThat(info.err()).contains("12 UNIMPLEMENTED").contains("Caller MUST NOT retry.");
        assertThat(plugin.states.state).containsEntry("vol-1", "secondary");
        assertThat(plugin.states.requests).hasSize(4); // enable, demote, 2 resync polls
        assertThat(plugin.states.requests).allSatisfy(m -> {
            var source = (ReplicationSource) m.getField(m.getDescriptorForType().findFieldByName("replication_source"));
            assertThat(source.getTypeCase()).isEqualTo(TypeCase.VOLUME);
            assertThat(m.getField(m.getDescriptorForType().findFieldByName("volume_id")))
                    .isEqualTo("vol-1");
        });
    }

    @Test
    void enableDemoteResyncWithDialectV010AndWhatItCannotExpress(@TempDir Path dir) throws Exception {
        V010 plugin = new V010();
        Served s = grpc.register(Served.on(dir.resolve("v010.sock"), plugin));
        assertThat(run(s.endpoint(), "enable", "--volume", "vol-1", "--dialect", "v0.1.0")
                        .exit())
                .isZero();
        assertThat(run(s.endpoint(), "demote", "--volume", "vol-1", "--dialect", "v0.1.0")
                        .exit())
                .isZero();
        Run resync = run(s.endpoint(), "resync", "--volume", "vol-1", "--await-ready", "PT20S", "--dialect", "v0.1.0");
        assertThat(resync.exit()).as(resync.all()).isZero();
        assertThat(resync.out()).contains("ready=true");

        int before = plugin.states.requests.size();
        Run info = run(s.endpoint(), "info", "--volume", "vol-1", "--dialect", "v0.1.0");
        assertThat(info.exit()).isEqualTo(1);
        assertThat(info.err())
                .contains("cannot be expressed in spec revision v0.1.0")
                .contains("after 0 attempt(s)");
        Run group = run(s.endpoint(), "enable", "--volume-group", "vg-1", "--dialect", "v0.1.0");
        assertThat(group.exit()).isEqualTo(1);
        assertThat(group.err()).contains("volumegroup source cannot be expressed");
        assertThat(plugin.states.requests).hasSize(before);

        Run missing = run(s.endpoint(), "demote", "--volume", "vol-9", "--dialect", "v0.1.0");
        assertThat(missing.exit()).isEqualTo(1);
        // The v0.1.0 table's recovery text speaks of volume_id, not replication_source.
        assertThat(missing.err()).contains("5 NOT_FOUND").contains("verify that the `volume_id` is correct");
        var demote = (io.volrep.proto.replication.v0_1_0.DemoteVolumeRequest) plugin.states.requests.get(1);
        assertThat(demote.getVolumeId()).isEqualTo("vol-1");
        assertThat(demote.getUnknownFields().asMap()).isEmpty();
    }

    @Test
    void unknownDialectIsAUsageError() {
        Run r = volrep("enable", "--volume", "vol-1", "--dialect", "v9");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("unknown spec dialect 'v9'").contains("current, upstream-2026, v0.1.3, v0.1.0");
    }

    /** vol-ok healthy, vol-bad abnormal, anything else NOT_FOUND. */
    static final class NodePlugin extends HealerNodeGrpc.HealerNodeImplBase {
        final List<NodeHealerRequest> requests = new CopyOnWriteArrayList<>();

        @Override
        public void nodeHealer(NodeHealerRequest r, StreamObserver<NodeHealerResponse> o) {
            requests.add(r);
            switch (r.getVolumeId()) {
                case "vol-ok" -> {
                    o.onNext(NodeHealerResponse.newBuilder().setMessage("clean").build());
                    o.onCompleted();
                }
                case "vol-bad" -> {
                    o.onNext(NodeHealerResponse.newBuilder()
                            .setAbnormal(true)
                            .setMessage("I/O errors")
                            .build());
                    o.onCompleted();
                }
                default ->
                    o.onError(Status.NOT_FOUND
                            .withDescription("no volume " + r.getVolumeId())
                            .asRuntimeException());
            }
        }
    }

    @Test
    void healPrintsHealthyOrAbnormalWithExitCodes(@TempDir Path dir) throws Exception {
        NodePlugin plugin = new NodePlugin();
        Served s = grpc.register(Served.on(dir.resolve("node.sock"), plugin));
        Run ok = run(
                s.endpoint(),
                "heal",
                "--volume",
                "vol-ok",
                "--path",
                "/mnt/vol-ok",
                "--staging-path",
                "/staging/vol-ok",
                "--mount",
                "xfs",
                "--access-mode",
                "SINGLE_NODE_MULTI_WRITER",
                "--secret",
                "key=Sup3r-s3cret-value",
                "--context",
                "pool=a");
        assertThat(ok.exit()).as(ok.all()).isZero();
        assertThat(ok.out().strip()).isEqualTo("healthy");
        assertThat(ok.all()).doesNotContain("Sup3r-s3cret-value");

        Run bad = run(s.endpoint(), "heal", "--volume", "vol-bad", "--path", "/mnt/vol-bad", "--block");
        assertThat(bad.exit()).isEqualTo(3);
        assertThat(bad.out().strip()).isEqualTo("abnormal: I/O errors");

        Run missing = run(s.endpoint(), "heal", "--volume", "vol-9", "--path", "/mnt/vol-9");
        assertThat(missing.exit()).isEqualTo(1);
        assertThat(missing.err())
                .contains("5 NOT_FOUND from NodeHealer after 1 attempt(s)")
                .contains("verify that the `volume_id` is correct");

        int before = plugin.requests.size();
        Run relative = run(
                s.endpoint(),
                "heal",
                "--volume",
                "vol-ok",
                "--path",
                "/mnt/vol-ok",
                "--staging-path",
                "staging/vol-ok");
        assertThat(relative.exit()).isEqualTo(1);
        assertThat(relative.err())
                .contains("staging_target_path: must be an absolute path")
                .contains("3 INVALID_ARGUMENT")
                .contains("after 0 attempt(s)");
        assertThat(plugin.requests).hasSize(before);

        Run both = run(s.endpoint(), "heal", "--volume", "vol-ok", "--path", "/p", "--block", "--mount", "ext4");
        assertThat(both.exit()).isEqualTo(2);
        NodeHealerRequest first = plugin.requests.get(0);
        assertThat(first.getStagingTargetPath()).isEqualTo("/staging/vol-ok");
        assertThat(first.getVolumeCapability().getMount().getFsType()).isEqualTo("xfs");
        assertThat(first.getVolumeCapability().getAccessMode().getModeValue()).isEqualTo(7);
        assertThat(first.getVolumeContextMap()).containsEntry("pool", "a");
        assertThat(first.getSecretsMap()).containsEntry("key", "Sup3r-s3cret-value");
        assertThat(plugin.requests.get(1).getVolumeCapability().hasBlock()).isTrue();
        assertThat(plugin.requests.get(2).hasVolumeCapability()).isFalse();
    }

    static final class Identity extends IdentityGrpc.IdentityImplBase {
        @Override
        public void getIdentity(GetIdentityRequest request, StreamObserver<GetIdentityResponse> o) {
            o.onNext(GetIdentityResponse.newBuilder()
                    .setName("example.csi.io")
                    .setVendorVersion("2.4.1")
                    .build());
            o.onCompleted();
        }

        @Override
        public void getCapabilities(GetCapabilitiesRequest request, StreamObserver<GetCapabilitiesResponse> o) {
            o.onNext(GetCapabilitiesResponse.newBuilder()
                    .addCapabilities(Capability.newBuilder()
                            .setService(Capability.Service.newBuilder().setType(Capability.Service.Type.NODE_SERVICE)))
                    .addCapabilities(Capability.newBuilder()
                            .setVolumeReplication(Capability.VolumeReplication.newBuilder()
                                    .setType(Capability.VolumeReplication.Type.VOLUME_REPLICATION)))
                    .build());
            o.onCompleted();
        }

        @Override
        public void probe(ProbeRequest request, StreamObserver<ProbeResponse> o) {
            o.onNext(ProbeResponse.getDefaultInstance());
            o.onCompleted();
        }
    }

    @Test
    void probePrintsIdentityOrSaysThereIsNone(@TempDir Path dir) throws Exception {
        Served withIdentity = grpc.register(Served.on(dir.resolve("id.sock"), new Identity(), new NodePlugin()));
        Run r = run(withIdentity.endpoint(), "probe");
        assertThat(r.exit()).as(r.all()).isZero();
        assertThat(r.out())
                .contains("name:         example.csi.io")
                .contains("version:      2.4.1")
                .contains("capabilities: NODE_SERVICE, VOLUME_REPLICATION")
                .contains("ready:        true (not reported; ready by default)");
        Served withoutIdentity = grpc.register(Served.on(dir.resolve("noid.sock"), new V013()));
        Run none = run(withoutIdentity.endpoint(), "probe");
        assertThat(none.exit()).isEqualTo(1);
        assertThat(none.err()).contains("the plugin does not serve the CSI-Addons Identity service (12 UNIMPLEMENTED");
    }

    @Test
    void againstTheReferencePluginServingALegacyDialectWithItsHealer(@TempDir Path dir) {
        ReferenceDriver driver =
                ReferenceDriver.builder().volumes(2).abnormalVolume("vol-1").build();
        ReplicationServer server =
                grpc.register(ReferencePlugin.start(driver, "unix://" + dir.resolve("ref.sock"), SpecDialect.V0_1_3));
        String endpoint = server.address();
        assertThat(run(endpoint, "enable", "--volume", "vol-0", "--dialect", "v0.1.3")
                        .exit())
                .isZero();
        assertThat(run(endpoint, "demote", "--volume", "vol-0", "--dialect", "v0.1.3")
                        .exit())
                .isZero();
        Run resync = run(endpoint, "resync", "--volume", "vol-0", "--dialect", "v0.1.3", "--await-ready", "PT20S");
        assertThat(resync.exit()).as(resync.all()).isZero();
        Run info = run(endpoint, "info", "--volume", "vol-0", "--dialect", "v0.1.3");
        assertThat(info.exit()).as(info.all()).isEqualTo(1); // demoted: the info precondition
        assertThat(info.err()).contains("Caller SHOULD ensure that replication is enabled and the image is promoted.");

        assertThat(run(endpoint, "heal", "--volume", "vol-0", "--path", "/mnt/vol-0")
                        .out()
                        .strip())
                .isEqualTo("healthy");
        Run abnormal = run(endpoint, "heal", "--volume", "vol-1", "--path", "/mnt/vol-1");
        assertThat(abnormal.exit()).isEqualTo(3);
        assertThat(abnormal.out()).startsWith("abnormal: ").contains("vol-1");
        assertThat(run(endpoint, "heal", "--volume", "vol-7", "--path", "/mnt/vol-7")
                        .exit())
                .isEqualTo(1);

        Run probe = run(endpoint, "probe");
        assertThat(probe.exit()).as(probe.all()).isZero();
        assertThat(probe.out()).contains("VOLUME_REPLICATION").contains("ready:        true");
    }
}
