package io.volrep.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.BoolValue;
import io.grpc.stub.StreamObserver;
import io.volrep.api.Recovery;
import io.volrep.api.ReplicationException;
import io.volrep.api.Rpc;
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
import io.volrep.testkit.fake.FakePlugin;
import io.volrep.testkit.fake.RecordedCall;
import io.volrep.testsupport.GrpcCleanup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CSI-Addons Identity calls against a raw Identity service, and against a plugin without one: typed answers,
 * and the same engine as every call (listeners, observers, async variants, retries, wait-for-ready).
 */
class IdentityTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    static final class RawIdentity extends IdentityGrpc.IdentityImplBase {
        volatile ProbeResponse probe = ProbeResponse.getDefaultInstance();
        /** When set, Probe answers only once it is counted down. */
        volatile CountDownLatch probeGate;

        @Override
        public void getIdentity(GetIdentityRequest request, StreamObserver<GetIdentityResponse> o) {
            o.onNext(GetIdentityResponse.newBuilder()
                    .setName("legacy.csi.example.com")
                    .setVendorVersion("0.1.3")
                    .putManifest("commit", "abc123")
                    .build());
            o.onCompleted();
        }

        @Override
        public void getCapabilities(GetCapabilitiesRequest request, StreamObserver<GetCapabilitiesResponse> o) {
            o.onNext(GetCapabilitiesResponse.newBuilder()
                    .addCapabilities(Capability.newBuilder()
                            .setService(Capability.Service.newBuilder()
                                    .setType(Capability.Service.Type.CONTROLLER_SERVICE)))
                    .addCapabilities(Capability.newBuilder()
                            .setVolumeReplication(Capability.VolumeReplication.newBuilder()
                                    .setType(Capability.VolumeReplication.Type.VOLUME_REPLICATION)))
                    .addCapabilities(Capability.newBuilder()
                            .setReclaimSpace(
                                    Capability.ReclaimSpace.newBuilder().setType(Capability.ReclaimSpace.Type.ONLINE)))
                    .build());
            o.onCompleted();
        }

        @Override
        public void probe(ProbeRequest request, StreamObserver<ProbeResponse> o) {
            CountDownLatch gate = probeGate;
            if (gate != null) {
                try {
                    gate.await(5, TimeUnit.MINUTES);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            o.onNext(probe);
            o.onCompleted();
        }
    }

    @Test
    void identityCapabilitiesAndProbeAreTyped(@TempDir Path dir) throws Exception {
        RawIdentity identity = new RawIdentity();
        TestServer server = grpc.register(TestServer.unixSocket(dir.resolve("id.sock"), identity));
        ReplicationClient client = grpc.register(
                ReplicationClient.builder().target(server.target()).build());
        assertThat(client.identity())
                .isEqualTo(new PluginIdentity("legacy.csi.example.com", "0.1.3", Map.of("commit", "abc123")));
        PluginCapabilities caps = client.capabilities();
        assertThat(caps.services()).containsExactly(PluginCapabilities.Service.CONTROLLER_SERVICE);
        assertThat(caps.has(PluginCapabilities.Service.NODE_SERVICE)).isFalse();
        assertThat(caps.volumeReplication()).isTrue();
        assertThat(caps.others()).containsExactly("reclaim_space.ONLINE");

        assertThat(client.probe()).isEqualTo(new ProbeResult(true, false)); // unset: ready
        identity.probe =
                ProbeResponse.newBuilder().setReady(BoolValue.of(false)).build();
        assertThat(client.probe()).isEqualTo(new ProbeResult(false, true));
    }

    @Test
    void aPluginWithoutIdentityIsUnimplemented() throws Exception {
        List<AttemptEvent> events = new CopyOnWriteArrayList<>();
        TestServer server = grpc.register(TestServer.inProcess(new LegacyPlugins.V013("vol-1")));
        ReplicationClient client = grpc.register(ReplicationClient.builder()
                .target(server.target())
                .listener(events::add)
                .build());
        assertThatThrownBy(client::probe).isInstanceOfSatisfying(UnimplementedException.class, e -> {
            assertThat(e.code()).isEqualTo(StatusCode.UNIMPLEMENTED);
            assertThat(e.getMessage())
                    .isEqualTo("the plugin does not serve the CSI-Addons Identity service"
                            + " (12 UNIMPLEMENTED from identity.Identity/Probe)");
            assertThat(e.rpc()).isEqualTo(Rpc.PROBE);
            assertThat(e.attempts()).as("never retried").isEqualTo(1);
            assertThat(e.recovery()).isEqualTo(Recovery.NEVER);
        });
        assertThat(events).singleElement().satisfies(event -> {
            assertThat(event.willRetry()).isFalse();
            assertThat(event.describe()).isEqualTo("Probe attempt 1: 12 UNIMPLEMENTED -> not retried (NEVER)");
        });
        assertThatThrownBy(client::identity).isInstanceOf(UnimplementedException.class);
        assertThatThrownBy(client::capabilities).isInstanceOf(UnimplementedException.class);
        assertThatThrownBy(() -> client.identityAsync().get(5, TimeUnit.MINUTES))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(UnimplementedException.class)
                .hasMessage("the plugin does not serve the CSI-Addons Identity service"
                        + " (12 UNIMPLEMENTED from identity.Identity/GetIdentity)");
    }

    @Test
    void listenersAndObserversSeeIdentityCallsWithoutASource() throws Exception {
        List<AttemptEvent> events = new CopyOnWriteArrayList<>();
        List<String> observed = new CopyOnWriteArrayList<>();
        CallObserver observer = (rpc, source) -> {
            observed.add("accepted " + rpc.fullMethodName() + " " + source);
            return new CallObservation() {
                @Override
                public void onStarted(Duration waited) {
                    observed.add("started " + rpc);
                }

                @Override
                public void onAttempt(AttemptEvent event) {
                    observed.add("attempt " + event.describe());
                }

                @Override
                public void onFinished(StatusCode code, int attempts) {
                    observed.add("finished " + rpc + ": " + code.display() + " after " + attempts);
                }
            };
        };
        TestServer server = grpc.register(TestServer.inProcess(new RawIdentity()));
        ReplicationClient client = grpc.register(ReplicationClient.builder()
                .target(server.target())
                .listener(events::add)
                .observer(observer)
                .build());
        client.identity();
        client.capabilities();
        client.probe();
        assertThat(client.activeSources()).isZero();
        assertThat(events)
                .extracting(AttemptEvent::rpc)
                .containsExactly(Rpc.GET_IDENTITY, Rpc.GET_CAPABILITIES, Rpc.PROBE);
        assertThat(events).allSatisfy(e -> {
            assertThat(e.source()).isEmpty();
            assertThat(e.code()).isEqualTo(StatusCode.OK);
            assertThat(e.attempt()).isEqualTo(1);
        });
        assertThat(observed)
                .containsExactly(
                        "accepted identity.Identity/GetIdentity Optional.empty", "started GetIdentity",
                        "attempt GetIdentity attempt 1: 0 OK", "finished GetIdentity: 0 OK after 1",
                        "accepted identity.Identity/GetCapabilities Optional.empty", "started GetCapabilities",
                        "attempt GetCapabilities attempt 1: 0 OK", "finished GetCapabilities: 0 OK after 1",
                        "accepted identity.Identity/Probe Optional.empty", "started Probe",
                        "attempt Probe attempt 1: 0 OK", "finished Probe: 0 OK after 1");
    }

    @Test
    void asyncVariantsReturnBeforeThePluginAnswers(@TempDir Path dir) throws Exception {
        RawIdentity identity = new RawIdentity();
        identity.probeGate = new CountDownLatch(1);
        TestServer server = grpc.register(TestServer.unixSocket(dir.resolve("id.sock"), identity));
        ReplicationClient client = grpc.register(
                ReplicationClient.builder().target(server.target()).build());
        assertThat(client.identityAsync().get(5, TimeUnit.MINUTES).manifest()).containsEntry("commit", "abc123");
        assertThat(client.capabilitiesAsync().get(5, TimeUnit.MINUTES).volumeReplication())
                .isTrue();
        CompletableFuture<ProbeResult> probe = client.probeAsync();
        Thread.sleep(100);
        assertThat(probe).as("the plugin has not answered yet").isNotDone();
        identity.probeGate.countDown();
        assertThat(probe.get(5, TimeUnit.MINUTES)).isEqualTo(new ProbeResult(true, false));
    }

    @Test
    void transientUnavailableIsRetriedAndOtherCodesAreNot() {
        List<AttemptEvent> events = new CopyOnWriteArrayList<>();
        FakePlugin fake = grpc.register(FakePlugin.builder().volumes(1).start());
        ReplicationClient client = grpc.register(ReplicationClient.builder()
                .target(fake.address())
                .listener(events::add)
                .retry(RetryBehaviourTest.FAST)
                .sourceVerifier(source -> CompletableFuture.completedFuture(true))
                .build());
        fake.failNext(Rpc.PROBE, 2, StatusCode.UNAVAILABLE);
        assertThat(client.probe().ready()).isTrue();
        assertThat(fake.calls(Rpc.PROBE))
                .extracting(RecordedCall::code)
                .containsExactly(StatusCode.UNAVAILABLE, StatusCode.UNAVAILABLE, StatusCode.OK);
        assertThat(events)
                .extracting(AttemptEvent::describe)
                .containsExactly(
                        "Probe attempt 1: 14 UNAVAILABLE -> retry in 20 ms (BACKOFF)",
                        "Probe attempt 2: 14 UNAVAILABLE -> retry in 40 ms (BACKOFF)",
                        "Probe attempt 3: 0 OK");

        // The spec has no Identity table: no source to verify (even with a verifier), nothing pending to wait for.
        for (StatusCode code : new StatusCode[] {StatusCode.NOT_FOUND, StatusCode.ABORTED}) {
            fake.failNext(Rpc.GET_IDENTITY, 1, code);
            assertThatThrownBy(client::identity).isInstanceOfSatisfying(ReplicationException.class, e -> {
                assertThat(e.code()).isEqualTo(code);
                assertThat(e.attempts()).isEqualTo(1);
                assertThat(e.recovery()).isEqualTo(Recovery.INSPECT_LOGS);
                assertThat(e.getMessage())
                        .startsWith("identity.Identity/GetIdentity failed with " + code.display()
                                + ": injected by FakePlugin");
            });
        }
        assertThat(fake.calls(Rpc.GET_IDENTITY)).hasSize(2);
    }

    @Test
    void aPluginThatStartsLateIsWaitedFor(@TempDir Path dir) throws Exception {
        Path socket = dir.resolve("late.sock");
        List<AttemptEvent> events = new CopyOnWriteArrayList<>();
        ReplicationClient client = grpc.register(ReplicationClient.builder()
                .target("unix://" + socket)
                .listener(events::add)
                .retry(RetryPolicy.spec().toBuilder()
                        .totalTimeout(Duration.ofSeconds(30))
                        .build())
                .build());
        CompletableFuture<ProbeResult> probe = client.probeAsync();
        Thread.sleep(300);
        assertThat(probe).as("nobody listens yet: the call waits").isNotDone();
        grpc.register(TestServer.unixSocket(socket, new RawIdentity()));
        assertThat(probe.get(5, TimeUnit.MINUTES)).isEqualTo(new ProbeResult(true, false));
        // Wait-for-ready: the one attempt waited on the channel until the plugin was up, instead of failing.
        assertThat(events).extracting(AttemptEvent::describe).containsExactly("Probe attempt 1: 0 OK");
    }
}
