package io.volrep.spi;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.volrep.api.HealReport;
import io.volrep.api.SpecDialect;
import io.volrep.proto.identity.Capability;
import io.volrep.proto.identity.GetCapabilitiesRequest;
import io.volrep.proto.identity.GetIdentityRequest;
import io.volrep.proto.identity.GetIdentityResponse;
import io.volrep.proto.identity.IdentityGrpc;
import io.volrep.proto.identity.ProbeRequest;
import io.volrep.testsupport.GrpcCleanup;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** identity.Identity derived from what the server serves. */
class IdentityServiceTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    private IdentityGrpc.IdentityBlockingStub serve(ReplicationServer.Builder builder) {
        String name = InProcessServerBuilder.generateName();
        grpc.register(builder.listen("inprocess:" + name).build().start());
        return IdentityGrpc.newBlockingStub(
                grpc.register(InProcessChannelBuilder.forName(name).build()));
    }

    private static List<String> capabilities(IdentityGrpc.IdentityBlockingStub stub) {
        return stub.getCapabilities(GetCapabilitiesRequest.getDefaultInstance()).getCapabilitiesList().stream()
                .map(c -> c.getTypeCase() == Capability.TypeCase.SERVICE
                        ? c.getService().getType().name()
                        : c.getTypeCase() + ":"
                                + c.getVolumeReplication().getType().name())
                .toList();
    }

    /** A driver with enable and disable only: no GetReplicationDestinationInfo. */
    private static final ReplicationDriver WITHOUT_DESTINATIONS = new ReplicationDriver() {
        @Override
        public void enable(EnableRequest request) {}

        @Override
        public void disable(DisableRequest request) {}
    };

    @Test
    void theDestinationCapabilityIsAdvertisedExactlyWhenTheDriverDeclaresTheRpc() {
        var stub = serve(ReplicationServer.builder().driver(new ScriptedDriver()));
        assertThat(capabilities(stub))
                .containsExactly(
                        "CONTROLLER_SERVICE",
                        "VOLUME_REPLICATION:VOLUME_REPLICATION",
                        "VOLUME_REPLICATION:GET_REPLICATION_DESTINATION_INFO");
        // The legacy revisions have no such RPC: never advertised there.
        var legacy =
                serve(ReplicationServer.builder().driver(new ScriptedDriver()).dialect(SpecDialect.V0_1_3));
        assertThat(capabilities(legacy)).containsExactly("CONTROLLER_SERVICE", "VOLUME_REPLICATION:VOLUME_REPLICATION");
    }

    @Test
    void replicationServerAdvertisesControllerAndVolumeReplication() {
        var stub =
                serve(ReplicationServer.builder().driver(WITHOUT_DESTINATIONS).identity("rbd.example.com", "1.2.3"));
        GetIdentityResponse identity = stub.getIdentity(GetIdentityRequest.getDefaultInstance());
        assertThat(identity.getName()).isEqualTo("rbd.example.com");
        assertThat(identity.getVendorVersion()).isEqualTo("1.2.3");
        assertThat(capabilities(stub)).containsExactly("CONTROLLER_SERVICE", "VOLUME_REPLICATION:VOLUME_REPLICATION");
        assertThat(stub.probe(ProbeRequest.getDefaultInstance()).getReady().getValue())
                .isTrue();
    }

    @Test
    void healerServerAdvertisesNodeServiceOnlyAndBothAdvertiseAll() {
        var healerOnly = serve(ReplicationServer.builder().healer(r -> HealReport.healthy("ok")));
        assertThat(capabilities(healerOnly)).containsExactly("NODE_SERVICE");
        assertThat(healerOnly
                        .getIdentity(GetIdentityRequest.getDefaultInstance())
                        .getName())
                .isEqualTo(ReplicationServer.Builder.DEFAULT_PLUGIN_NAME);

        var both =
                serve(ReplicationServer.builder().driver(WITHOUT_DESTINATIONS).healer(r -> HealReport.healthy("ok")));
        assertThat(capabilities(both))
                .containsExactlyInAnyOrder(
                        "CONTROLLER_SERVICE", "NODE_SERVICE", "VOLUME_REPLICATION:VOLUME_REPLICATION");
    }

    @Test
    void probeAnswersTheReadinessCheckAndAFailingCheckIsNotReady() {
        AtomicBoolean ready = new AtomicBoolean(false);
        var stub =
                serve(ReplicationServer.builder().driver(new ScriptedDriver()).readiness(ready::get));
        assertThat(stub.probe(ProbeRequest.getDefaultInstance()).getReady().getValue())
                .isFalse();
        ready.set(true);
        assertThat(stub.probe(ProbeRequest.getDefaultInstance()).getReady().getValue())
                .isTrue();

        var failing =
                serve(ReplicationServer.builder().driver(new ScriptedDriver()).readiness(() -> {
                    throw new IllegalStateException("backend down");
                }));
        var probe = failing.probe(ProbeRequest.getDefaultInstance());
        assertThat(probe.hasReady()).isTrue();
        assertThat(probe.getReady().getValue()).isFalse();
    }

    @Test
    void identityCanBeTurnedOff() {
        var stub =
                serve(ReplicationServer.builder().driver(new ScriptedDriver()).serveIdentity(false));
        Status status = InProcessHarness.statusOf(() -> stub.probe(ProbeRequest.getDefaultInstance()));
        assertThat(status.getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
    }
}
