package io.volrep.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.client.ReplicationClient;
import io.volrep.client.RetryPolicy;
import io.volrep.proto.volumegroup.ControllerGrpc;
import io.volrep.proto.volumegroup.CreateVolumeGroupRequest;
import io.volrep.proto.volumegroup.ModifyVolumeGroupMembershipRequest;
import io.volrep.spi.ReplicationServer;
import io.volrep.testkit.fake.FaultInjector;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testsupport.GrpcCleanup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * No caller can create metric series without limit (issue 45, item 3): every tag value comes from a closed set, so many
 * distinct bad requests, or a plugin's answers that drive many retries, end in as many series as a few of them do.
 * Before the fix, each CreateVolumeGroup with an empty id at another index made a
 * {@code volrep.server.rejections{field="volume_ids[N]"}} series of its own, and each attempt number a client
 * observation event counter of its own.
 */
class MetricSeriesTest {
    private static final int REQUESTS = 300;

    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    @Test
    void distinctBadRequestsShareOneRejectionSeriesPerField() {
        MeterRegistry meters = new SimpleMeterRegistry();
        ReferenceDriver reference =
                ReferenceDriver.builder().volumes(2).groups(1).build();
        String name = InProcessServerBuilder.generateName();
        grpc.register(VolrepServerMetrics.of(meters, ObservationRegistry.NOOP)
                .bind(ReplicationServer.builder()
                        .driver(reference)
                        .volumeGroups(reference)
                        .listen("inprocess:" + name))
                .build()
                .start());
        ManagedChannel channel =
                grpc.register(InProcessChannelBuilder.forName(name).build());
        ControllerGrpc.ControllerBlockingStub groups =
                ControllerGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);

        int seriesAfterTen = 0;
        for (int i = 0; i < REQUESTS; i++) {
            // An empty id at index i, then an id given twice at index i + 1: two distinct bad requests per round.
            List<String> ids = new ArrayList<>();
            for (int k = 0; k < i; k++) {
                ids.add("vol-" + k);
            }
            List<String> empty = new ArrayList<>(ids);
            empty.add("");
            String groupName = "group-" + i;
            assertInvalid(() -> groups.createVolumeGroup(CreateVolumeGroupRequest.newBuilder()
                    .setName(groupName)
                    .addAllVolumeIds(empty)
                    .build()));
            List<String> twice = new ArrayList<>(ids);
            twice.add("vol-x");
            twice.add("vol-x");
            assertInvalid(() -> groups.modifyVolumeGroupMembership(ModifyVolumeGroupMembershipRequest.newBuilder()
                    .setVolumeGroupId("grp-0")
                    .addAllVolumeIds(twice)
                    .build()));
            if (i == 9) {
                seriesAfterTen = meters.getMeters().size();
            }
        }

        assertThat(meters.getMeters()).hasSize(seriesAfterTen);
        List<Meter> rejections =
                List.copyOf(meters.find(VolrepServerMetrics.REJECTIONS).meters());
        Set<String> fields = new TreeSet<>();
        rejections.forEach(m ->
                fields.add(m.getId().getTag(RpcTags.METHOD) + " " + m.getId().getTag("field")));
        assertThat(fields).containsExactly("CreateVolumeGroup volume_ids", "ModifyVolumeGroupMembership volume_ids");
        assertThat(meters.get(VolrepServerMetrics.REJECTIONS)
                        .tags(RpcTags.METHOD, "CreateVolumeGroup")
                        .counter()
                        .count())
                .isEqualTo(REQUESTS);
    }

    @Test
    void retriesDrivenByAPluginsAnswersAddNoSeriesPerAttempt() {
        MeterRegistry meters = new SimpleMeterRegistry();
        ObservationRegistry observations = ObservationRegistry.create();
        // What Spring Boot and most setups register: every observation and observation event becomes a meter.
        observations.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
        FaultInjector faults = grpc.register(new FaultInjector());
        String name = InProcessServerBuilder.generateName();
        grpc.register(ReplicationServer.builder()
                .driver(ReferenceDriver.builder().volumes(1).build())
                .interceptor(faults)
                .listen("inprocess:" + name)
                .build()
                .start());
        ReplicationClient client = grpc.register(VolrepClientMetrics.of(meters, observations)
                .bind(ReplicationClient.builder()
                        .target("inprocess:" + name)
                        .retry(RetryPolicy.spec().toBuilder()
                                .initialBackoff(Duration.ofMillis(1))
                                .maxBackoff(Duration.ofMillis(2))
                                .maxAttempts(30)
                                .build()))
                .build());

        int before = -1;
        for (int failures : new int[] {2, 29}) {
            // The plugin answers 14 UNAVAILABLE until the last attempt: 3 attempts, then 30.
            faults.failNext(Rpc.ENABLE_VOLUME_REPLICATION, failures, StatusCode.UNAVAILABLE);
            client.volume("vol-0").enable().call();
            assertThat(faults.pendingFailures(Rpc.ENABLE_VOLUME_REPLICATION)).isZero();
            if (before < 0) {
                before = meters.getMeters().size();
            }
        }

        assertThat(meters.getMeters()).hasSize(before);
        assertThat(meters.getMeters())
                .extracting(m -> m.getId().getName())
                .noneMatch(n -> n.matches(".*\\.attempt\\.[0-9]+"));
    }

    private static void assertInvalid(Runnable call) {
        assertThatThrownBy(call::run)
                .isInstanceOfSatisfying(
                        StatusRuntimeException.class,
                        e -> assertThat(e.getStatus().getCode().value()).isEqualTo(3));
    }
}
