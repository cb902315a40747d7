package io.volrep.spi;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.volrep.api.HealReport;
import io.volrep.api.SourceNotFoundException;
import io.volrep.api.UnauthenticatedException;
import io.volrep.api.VolumeCapability;
import io.volrep.api.internal.wire.WireMapping;
import io.volrep.proto.healer.HealerNodeGrpc;
import io.volrep.proto.healer.NodeHealerRequest;
import io.volrep.proto.healer.NodeHealerResponse;
import io.volrep.proto.replication.ControllerGrpc;
import io.volrep.proto.replication.EnableVolumeReplicationRequest;
import io.volrep.testsupport.GrpcCleanup;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** healer.HealerNode through the runtime: validation before the driver, mapping, the per-volume guard. */
@SuppressWarnings("deprecation") // sends or reads the deprecated volume_id (field 1) on purpose
class HealerServiceTest {
    private final List<HealRequest> seen = new CopyOnWriteArrayList<>();
    private volatile Function<HealRequest, HealReport> answer = r -> HealReport.healthy("clean");

    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    private ReplicationServer server;
    private ManagedChannel channel;
    private HealerNodeGrpc.HealerNodeBlockingStub stub;

    @BeforeEach
    void start() {
        String name = InProcessServerBuilder.generateName();
        server = grpc.register(ReplicationServer.builder()
                .healer(r -> {
                    seen.add(r);
                    return answer.apply(r);
                })
                .listen("inprocess:" + name)
                .build()
                .start());
        channel = grpc.register(InProcessChannelBuilder.forName(name).build());
        stub = HealerNodeGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
    }

    private static NodeHealerRequest.Builder valid() {
        return NodeHealerRequest.newBuilder().setVolumeId("vol-1").setVolumePath("/var/lib/kubelet/pods/x/vol-1");
    }

    private Status status(NodeHealerRequest request) {
        return InProcessHarness.statusOf(() -> stub.nodeHealer(request));
    }

    @Test
    void healthyVolumeAnswersTheDriversReportWithEveryFieldTyped() {
        NodeHealerResponse response = stub.nodeHealer(valid().setStagingTargetPath("/staging/vol-1")
                .setVolumeCapability(WireMapping.toProto(
                        VolumeCapability.mount("ext4", VolumeCapability.AccessMode.SINGLE_NODE_WRITER)
                                .withMountFlags(List.of("noatime"))))
                .putSecrets("user", "admin")
                .putVolumeContext("pool", "rbd")
                .build());

        assertThat(response.getAbnormal()).isFalse();
        assertThat(response.getMessage()).isEqualTo("clean");
        HealRequest r = seen.get(0);
        assertThat(r.volumeId()).isEqualTo("vol-1");
        assertThat(r.volumePath()).isEqualTo("/var/lib/kubelet/pods/x/vol-1");
        assertThat(r.stagingTargetPath()).contains("/staging/vol-1");
        assertThat(r.capability())
                .contains(VolumeCapability.mount("ext4", VolumeCapability.AccessMode.SINGLE_NODE_WRITER)
                        .withMountFlags(List.of("noatime")));
        assertThat(r.secrets().get("user")).contains("admin");
        assertThat(r.volumeContext()).containsEntry("pool", "rbd");
        assertThat(r.toString()).doesNotContain("admin");
    }

    @Test
    void optionalFieldsAbsentArriveEmpty() {
        stub.nodeHealer(valid().build());
        HealRequest r = seen.get(0);
        assertThat(r.stagingTargetPath()).isEmpty();
        assertThat(r.capability()).isEmpty();
        assertThat(r.secrets().isEmpty()).isTrue();
        assertThat(r.volumeContext()).isEmpty();
    }

    @Test
    void abnormalReportIsAnswered() {
        answer = r -> HealReport.abnormal("journal replay needed");
        NodeHealerResponse response = stub.nodeHealer(valid().build());
        assertThat(response.getAbnormal()).isTrue();
        assertThat(response.getMessage()).isEqualTo("journal replay needed");
    }

    @Test
    void eachValidationRuleAnswersInvalidArgumentNamingTheFieldBeforeTheDriver() {
        Map<NodeHealerRequest, String> cases = Map.of(
                valid().clearVolumeId().build(),
                "volume_id",
                valid().setVolumeId("v".repeat(129)).build(),
                "volume_id",
                valid().clearVolumePath().build(),
                "volume_path",
                valid().setStagingTargetPath("relative/staging").build(),
                "staging_target_path",
                valid().setVolumePath("/" + "p".repeat(HealRequest.MAX_PATH_BYTES))
                        .build(),
                "volume_path",
                valid().setStagingTargetPath("/" + "s".repeat(HealRequest.MAX_PATH_BYTES))
                        .build(),
                "staging_target_path",
                valid().setVolumePath("/mnt/a\0b").build(),
                "volume_path",
                valid().setVolumeCapability(io.volrep.proto.csi.VolumeCapability.getDefaultInstance())
                        .build(),
                "volume_capability",
                valid().putSecrets("k", "x".repeat(5000)).build(),
                "secrets",
                valid().putVolumeContext("k", "x".repeat(5000)).build(),
                "volume_context");
        cases.forEach((request, field) -> {
            Status status = status(request);
            assertThat(status.getCode()).as(field).isEqualTo(Status.Code.INVALID_ARGUMENT);
            assertThat(status.getDescription()).as(field).startsWith(field);
        });
        assertThat(seen).isEmpty();
    }

    @Test
    void pathsUpToTheBoundAreAcceptedDespiteCsisStringLimit() {
        String path = "/" + "p".repeat(HealRequest.MAX_PATH_BYTES - 1);
        String staging = "/" + "s".repeat(HealRequest.MAX_PATH_BYTES - 1);
        assertThat(path.length()).isEqualTo(4096);

        stub.nodeHealer(
                valid().setVolumePath(path).setStagingTargetPath(staging).build());

        assertThat(seen.get(0).volumePath()).isEqualTo(path);
        assertThat(seen.get(0).stagingTargetPath()).contains(staging);
    }

    @Test
    void driverExceptionsMapToTheirCodes() {
        answer = r -> {
            throw new SourceNotFoundException("volume " + r.volumeId() + " does not exist");
        };
        Status notFound = status(valid().build());
        assertThat(notFound.getCode()).isEqualTo(Status.Code.NOT_FOUND);
        assertThat(notFound.getDescription()).isEqualTo("volume vol-1 does not exist");

        answer = r -> {
            throw new UnauthenticatedException("bad secret s3cret-value");
        };
        Status unauthenticated =
                status(valid().putSecrets("password", "s3cret-value").build());
        assertThat(unauthenticated.getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
        assertThat(unauthenticated.getDescription()).doesNotContain("s3cret-value");

        answer = r -> {
            throw new IllegalStateException("boom");
        };
        Status unknown = status(valid().build());
        assertThat(unknown.getCode()).isEqualTo(Status.Code.UNKNOWN);
        assertThat(unknown.getDescription()).contains("incident");
    }

    @Test
    void invalidReportsAnswerUnknownInvalidResponse() {
        answer = r -> null;
        Status nullReport = status(valid().build());
        assertThat(nullReport.getCode()).isEqualTo(Status.Code.UNKNOWN);
        assertThat(nullReport.getDescription()).startsWith("driver returned an invalid response");

        // The report carries what the driver said; the runtime judges it by the spec's rules, as the client does.
        for (String message : new String[] {"", " \t"}) {
            answer = r -> new HealReport(true, message);
            Status emptyMessage = status(valid().build());
            assertThat(emptyMessage.getCode()).isEqualTo(Status.Code.UNKNOWN);
            assertThat(emptyMessage.getDescription())
                    .isEqualTo("driver returned an invalid response: message: REQUIRED but empty");
        }
    }

    @Test
    void secondConcurrentCallForTheSameVolumeIsAbortedOtherVolumesAreNot() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        answer = r -> {
            if (r.volumeId().equals("vol-1")) {
                entered.countDown();
                try {
                    release.await(5, TimeUnit.MINUTES);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return HealReport.healthy("ok");
        };
        CompletableFuture<Status> first = CompletableFuture.supplyAsync(() -> status(valid().build()));
        assertThat(entered.await(5, TimeUnit.MINUTES)).isTrue();
        Status second = status(valid().build());
        Status other = status(valid().setVolumeId("vol-2").build());
        release.countDown();

        assertThat(second.getCode()).isEqualTo(Status.Code.ABORTED);
        assertThat(second.getDescription()).isEqualTo("operation pending for volume vol-1");
        assertThat(other.getCode()).isEqualTo(Status.Code.OK);
        assertThat(first.get(5, TimeUnit.MINUTES).getCode()).isEqualTo(Status.Code.OK);
        assertThat(server.busySources()).isZero();
    }

    @Test
    void healerOnlyServerDoesNotServeReplication() {
        ControllerGrpc.ControllerBlockingStub controller = ControllerGrpc.newBlockingStub(channel);
        Status status = InProcessHarness.statusOf(() -> controller.enableVolumeReplication(
                EnableVolumeReplicationRequest.newBuilder().setVolumeId("v").build()));
        assertThat(status.getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
    }

    @Test
    void aServerNeedsADriverOrAHealer() {
        Assertions.assertThatThrownBy(
                        () -> ReplicationServer.builder().listen("inprocess:x").build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("healer");
    }
}
