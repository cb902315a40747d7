package io.volrep.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.BoolValue;
import io.grpc.stub.StreamObserver;
import io.volrep.api.StatusCode;
import io.volrep.api.UnimplementedException;
import io.volrep.proto.identity.Capability;
import io.volrep.proto.identity.GetCapabilitiesRequest;
import io.volrep.proto.identity.GetCapabilitiesResponse;
import io.volrep.proto.identity.GetIdentityRequest;
import io.volrep.proto.identity.GetIdentityResponse;
import io.volrep.proto.identity.IdentityGrpc;
import io.volrep.proto.identity.ProbeRequest;
import io.volrep.proto.identity.ProbeResponse;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CSI-Addons Identity calls against a raw Identity service, and against a plugin without one. */
class IdentityTest {

    static final class RawIdentity extends IdentityGrpc.IdentityImplBase {
        volatile ProbeResponse probe = ProbeResponse.getDefaultInstance();

        @Override
        public void getIdentity(GetIdentityRequest request, StreamObserver<GetIdentityResponse> o) {
            o.onNext(GetIdentityResponse.newBuilder().setName("legacy.csi.example.com").setVendorVersion("0.1.3")
                    .putManifest("commit", "abc123").build());
            o.onCompleted();
        }

        @Override
        public void getCapabilities(GetCapabilitiesRequest request, StreamObserver<GetCapabilitiesResponse> o) {
            o.onNext(GetCapabilitiesResponse.newBuilder()
                    .addCapabilities(Capability.newBuilder().setService(Capability.Service.newBuilder()
                            .setType(Capability.Service.Type.CONTROLLER_SERVICE)))
                    .addCapabilities(Capability.newBuilder().setVolumeReplication(Capability.VolumeReplication
                            .newBuilder().setType(Capability.VolumeReplication.Type.VOLUME_REPLICATION)))
                    .addCapabilities(Capability.newBuilder().setReclaimSpace(Capability.ReclaimSpace.newBuilder()
                            .setType(Capability.ReclaimSpace.Type.ONLINE)))
                    .build());
            o.onCompleted();
        }

        @Override
        public void probe(ProbeRequest request, StreamObserver<ProbeResponse> o) {
            o.onNext(probe);
            o.onCompleted();
        }
    }

    @Test
    void identityCapabilitiesAndProbeAreTyped(@TempDir Path dir) throws Exception {
        RawIdentity identity = new RawIdentity();
        try (TestServer server = TestServer.unixSocket(dir.resolve("id.sock"), identity);
             ReplicationClient client = ReplicationClient.builder().target(server.target()).build()) {
            assertThat(client.identity()).isEqualTo(
                    new PluginIdentity("legacy.csi.example.com", "0.1.3", Map.of("commit", "abc123")));
            PluginCapabilities caps = client.capabilities();
            assertThat(caps.services()).containsExactly(PluginCapabilities.Service.CONTROLLER_SERVICE);
            assertThat(caps.has(PluginCapabilities.Service.NODE_SERVICE)).isFalse();
            assertThat(caps.volumeReplication()).isTrue();
            assertThat(caps.others()).containsExactly("reclaim_space.ONLINE");

            assertThat(client.probe()).isEqualTo(new ProbeResult(true, false)); // unset: ready
            identity.probe = ProbeResponse.newBuilder().setReady(BoolValue.of(false)).build();
            assertThat(client.probe()).isEqualTo(new ProbeResult(false, true));
        }
    }

    @Test
    void aPluginWithoutIdentityIsUnimplemented() throws Exception {
        try (TestServer server = TestServer.inProcess(new LegacyPlugins.V013("vol-1"));
             ReplicationClient client = ReplicationClient.builder().target(server.target()).build()) {
            assertThatThrownBy(client::probe).isInstanceOfSatisfying(UnimplementedException.class, e -> {
                assertThat(e.code()).isEqualTo(StatusCode.UNIMPLEMENTED);
                assertThat(e.getMessage()).isEqualTo("the plugin does not serve the CSI-Addons Identity service"
                        + " (12 UNIMPLEMENTED from identity.Identity/Probe)");
            });
            assertThatThrownBy(client::identity).isInstanceOf(UnimplementedException.class);
            assertThatThrownBy(client::capabilities).isInstanceOf(UnimplementedException.class);
        }
    }
}
