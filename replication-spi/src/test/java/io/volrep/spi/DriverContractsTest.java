package io.volrep.spi;

import static io.volrep.spi.InProcessHarness.statusOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.volrep.api.HealReport;
import io.volrep.api.ReplicationDestination;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.Secrets;
import io.volrep.api.VolumeGroup;
import io.volrep.api.VolumeGroupCapability;
import io.volrep.proto.healer.HealerNodeGrpc;
import io.volrep.proto.healer.NodeHealerRequest;
import io.volrep.proto.identity.GetCapabilitiesRequest;
import io.volrep.proto.identity.IdentityGrpc;
import io.volrep.proto.replication.ControllerGrpc;
import io.volrep.proto.replication.GetReplicationDestinationInfoRequest;
import io.volrep.proto.replication.PromoteVolumeRequest;
import io.volrep.proto.replication.ReplicationSource.VolumeSource;
import io.volrep.proto.volumegroup.CreateVolumeGroupRequest;
import io.volrep.proto.volumegroup.ModifyVolumeGroupMembershipRequest;
import io.volrep.testsupport.GrpcCleanup;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The SPI's explicit contracts (issue 48, item 4): every request carries the time the driver has, from the caller's
 * gRPC deadline and the server's own limit; what a driver serves is what it declares, never what its class happens to
 * override, for the runtime and for Identity alike; {@link ForwardingReplicationDriver} and
 * {@link ForwardingVolumeGroupDriver} pass the declarations on. Real gRPC, in-process.
 */
class DriverContractsTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    private static final io.volrep.proto.replication.ReplicationSource VOL_1 =
            io.volrep.proto.replication.ReplicationSource.newBuilder()
                    .setVolume(VolumeSource.newBuilder().setVolumeId("vol-1"))
                    .build();

    /** Records every request it is given; implements every method, declares what it is told to. */
    static class RecordingDriver implements ReplicationDriver, VolumeGroupDriver, HealerDriver {
        final List<DriverRequest> requests = new CopyOnWriteArrayList<>() {
            @Override
            public boolean add(DriverRequest r) {
                remainingOnArrival.add(r.deadline().remaining());
                return super.add(r);
            }
        };
        /** What each request's deadline had left when it reached the driver. */
        final List<Duration> remainingOnArrival = new CopyOnWriteArrayList<>();

        private final Set<Rpc> rpcs;
        private final Set<VolumeGroupCapability> groupRpcs;

        RecordingDriver(Set<Rpc> rpcs, Set<VolumeGroupCapability> groupRpcs) {
            this.rpcs = rpcs;
            this.groupRpcs = groupRpcs;
        }

        @Override
        public void enable(EnableRequest r) {
            requests.add(r);
        }

        @Override
        public void disable(DisableRequest r) {
            requests.add(r);
        }

        @Override
        public void promote(PromoteRequest r) {
            requests.add(r);
        }

        @Override
        public ReplicationDestination destination(DestinationRequest r) {
            requests.add(r);
            return ReplicationDestination.volume(r.source().id() + "-b");
        }

        @Override
        public Set<Rpc> servedRpcs() {
            return rpcs;
        }

        @Override
        public VolumeGroup create(CreateGroupRequest r) {
            requests.add(r);
            return VolumeGroup.of("vg-1", r.volumeIds());
        }

        @Override
        public void delete(DeleteGroupRequest r) {
            requests.add(r);
        }

        @Override
        public VolumeGroup modify(ModifyGroupRequest r) {
            requests.add(r);
            return VolumeGroup.of(r.volumeGroupId(), r.volumeIds());
        }

        @Override
        public Set<VolumeGroupCapability> served() {
            return groupRpcs;
        }

        @Override
        public HealReport heal(HealRequest r) {
            requests.add(r);
            return HealReport.healthy("fine");
        }
    }

    /** A server for {@code driver} (replication, groups, healer) with {@code limit} as its driver timeout. */
    private ManagedChannel serve(RecordingDriver driver, Duration limit) {
        String name = InProcessServerBuilder.generateName();
        ReplicationServer.Builder b = ReplicationServer.builder()
                .driver(driver)
                .volumeGroups(driver)
                .healer(driver)
                .listen("inprocess:" + name);
        if (limit != null) {
            b.driverTimeout(limit);
        }
        grpc.register(b.build().start());
        return grpc.register(InProcessChannelBuilder.forName(name).build());
    }

    private static ManagedChannel serve(GrpcCleanup grpc, ReplicationDriver driver) {
        String name = InProcessServerBuilder.generateName();
        grpc.register(ReplicationServer.builder()
                .driver(driver)
                .listen("inprocess:" + name)
                .build()
                .start());
        return grpc.register(InProcessChannelBuilder.forName(name).build());
    }

    private static String capabilities(ManagedChannel channel) {
        return IdentityGrpc.newBlockingStub(channel)
                .withDeadlineAfter(30, TimeUnit.SECONDS)
                .getCapabilities(GetCapabilitiesRequest.getDefaultInstance())
                .toString();
    }

    @Test
    void everyRequestCarriesTheCallersDeadlineLessAMargin() {
        RecordingDriver driver =
                new RecordingDriver(ReplicationDriver.DEFAULT_RPCS, EnumSet.of(VolumeGroupCapability.VOLUME_GROUP));
        ManagedChannel channel = serve(driver, null);
        ControllerGrpc.newBlockingStub(channel)
                .withDeadlineAfter(60, TimeUnit.SECONDS)
                .promoteVolume(PromoteVolumeRequest.newBuilder()
                        .setReplicationSource(VOL_1)
                        .build());
        io.volrep.proto.volumegroup.ControllerGrpc.newBlockingStub(channel)
                .withDeadlineAfter(60, TimeUnit.SECONDS)
                .createVolumeGroup(CreateVolumeGroupRequest.newBuilder()
                        .setName("g")
                        .addVolumeIds("vol-1")
                        .build());
        HealerNodeGrpc.newBlockingStub(channel)
                .withDeadlineAfter(60, TimeUnit.SECONDS)
                .nodeHealer(NodeHealerRequest.newBuilder()
                        .setVolumeId("vol-1")
                        .setVolumePath("/mnt/vol-1")
                        .build());
        // Without a deadline of the caller's and without a limit of the server's: none.
        ControllerGrpc.newBlockingStub(channel)
                .promoteVolume(PromoteVolumeRequest.newBuilder()
                        .setReplicationSource(VOL_1)
                        .build());

        assertThat(driver.requests).hasSize(4);
        for (int i = 0; i < 3; i++) {
            // 60 s less the margin for the answer (1 s: a tenth, at most 1 s), less the time the call took to arrive.
            DriverRequest r = driver.requests.get(i);
            assertThat(r.deadline().isBounded()).as("%s", r).isTrue();
            assertThat(driver.remainingOnArrival.get(i))
                    .as("%s", r)
                    .isLessThanOrEqualTo(Duration.ofSeconds(59))
                    .isGreaterThan(Duration.ofSeconds(30));
        }
        assertThat(driver.requests.get(3).deadline()).isSameAs(CallDeadline.none());
    }

    @Test
    void theServersDriverTimeoutBoundsTheDeadline() {
        RecordingDriver driver =
                new RecordingDriver(ReplicationDriver.DEFAULT_RPCS, EnumSet.of(VolumeGroupCapability.VOLUME_GROUP));
        ManagedChannel channel = serve(driver, Duration.ofSeconds(3));
        ControllerGrpc.newBlockingStub(channel)
                .withDeadlineAfter(60, TimeUnit.SECONDS)
                .promoteVolume(PromoteVolumeRequest.newBuilder()
                        .setReplicationSource(VOL_1)
                        .build());
        ControllerGrpc.newBlockingStub(channel)
                .promoteVolume(PromoteVolumeRequest.newBuilder()
                        .setReplicationSource(VOL_1)
                        .build());

        for (DriverRequest r : driver.requests) {
            assertThat(r.deadline().isBounded()).isTrue();
        }
        assertThat(driver.remainingOnArrival)
                .allSatisfy(left -> assertThat(left)
                        .isLessThanOrEqualTo(Duration.ofSeconds(3))
                        .isGreaterThan(Duration.ZERO));
        assertThatThrownBy(() -> ReplicationServer.builder().driverTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("driverTimeout");
    }

    @Test
    void whatADriverServesIsWhatItDeclaresNotWhatItOverrides() {
        // Implements destination() and modify(), declares neither: neither is called nor advertised.
        RecordingDriver undeclared =
                new RecordingDriver(ReplicationDriver.DEFAULT_RPCS, EnumSet.of(VolumeGroupCapability.VOLUME_GROUP));
        ManagedChannel channel = serve(undeclared, null);
        Status destination = statusOf(() -> ControllerGrpc.newBlockingStub(channel)
                .withDeadlineAfter(30, TimeUnit.SECONDS)
                .getReplicationDestinationInfo(GetReplicationDestinationInfoRequest.newBuilder()
                        .setReplicationSource(VOL_1)
                        .build()));
        Status modify = statusOf(() -> io.volrep.proto.volumegroup.ControllerGrpc.newBlockingStub(channel)
                .withDeadlineAfter(30, TimeUnit.SECONDS)
                .modifyVolumeGroupMembership(ModifyVolumeGroupMembershipRequest.newBuilder()
                        .setVolumeGroupId("vg-1")
                        .build()));
        assertThat(destination.getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
        assertThat(modify.getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
        assertThat(undeclared.requests).isEmpty();
        assertThat(capabilities(channel))
                .doesNotContain("GET_REPLICATION_DESTINATION_INFO")
                .doesNotContain("MODIFY_VOLUME_GROUP")
                .contains("VOLUME_REPLICATION");

        // Declares PromoteVolume out: answered 12 without reaching the driver, which implements it.
        Set<Rpc> noPromote = EnumSet.copyOf(ReplicationDriver.DEFAULT_RPCS);
        noPromote.remove(Rpc.PROMOTE_VOLUME);
        RecordingDriver withoutPromote = new RecordingDriver(noPromote, EnumSet.of(VolumeGroupCapability.VOLUME_GROUP));
        ManagedChannel second = serve(withoutPromote, null);
        assertThat(statusOf(() -> ControllerGrpc.newBlockingStub(second)
                                .withDeadlineAfter(30, TimeUnit.SECONDS)
                                .promoteVolume(PromoteVolumeRequest.newBuilder()
                                        .setReplicationSource(VOL_1)
                                        .build()))
                        .getCode())
                .isEqualTo(Status.Code.UNIMPLEMENTED);
        assertThat(withoutPromote.requests).isEmpty();

        // Declared: served and advertised.
        RecordingDriver declared = new RecordingDriver(
                ReplicationDriver.defaultRpcsAnd(Rpc.GET_REPLICATION_DESTINATION_INFO),
                EnumSet.of(VolumeGroupCapability.VOLUME_GROUP, VolumeGroupCapability.MODIFY_VOLUME_GROUP));
        ManagedChannel third = serve(declared, null);
        assertThat(ControllerGrpc.newBlockingStub(third)
                        .withDeadlineAfter(30, TimeUnit.SECONDS)
                        .getReplicationDestinationInfo(GetReplicationDestinationInfoRequest.newBuilder()
                                .setReplicationSource(VOL_1)
                                .build())
                        .getReplicationDestination()
                        .getVolume()
                        .getVolumeId())
                .isEqualTo("vol-1-b");
        assertThat(capabilities(third)).contains("GET_REPLICATION_DESTINATION_INFO", "MODIFY_VOLUME_GROUP");
    }

    @Test
    void aDeclarationOfAnotherServicesRpcIsRefusedWhenTheServerIsBuilt() {
        RecordingDriver driver = new RecordingDriver(
                EnumSet.of(Rpc.ENABLE_VOLUME_REPLICATION, Rpc.NODE_HEALER),
                EnumSet.of(VolumeGroupCapability.VOLUME_GROUP));
        assertThatThrownBy(() -> ReplicationServer.builder().driver(driver))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("servedRpcs()");
    }

    @Test
    void aForwardingDriverServesAndAdvertisesWhatItWrapsAndMayChangeARequest() {
        RecordingDriver inner = new RecordingDriver(
                ReplicationDriver.defaultRpcsAnd(Rpc.GET_REPLICATION_DESTINATION_INFO),
                EnumSet.of(VolumeGroupCapability.VOLUME_GROUP));
        ReplicationDriver neverForced = new ForwardingReplicationDriver(inner) {
            @Override
            public void promote(PromoteRequest r) {
                super.promote(r.toBuilder().force(false).build());
            }
        };
        ManagedChannel channel = serve(grpc, neverForced);
        assertThat(capabilities(channel)).contains("GET_REPLICATION_DESTINATION_INFO");
        ControllerGrpc.newBlockingStub(channel)
                .withDeadlineAfter(30, TimeUnit.SECONDS)
                .promoteVolume(PromoteVolumeRequest.newBuilder()
                        .setReplicationSource(VOL_1)
                        .setForce(true)
                        .putSecrets("user", "admin")
                        .build());
        ControllerGrpc.newBlockingStub(channel)
                .withDeadlineAfter(30, TimeUnit.SECONDS)
                .getReplicationDestinationInfo(GetReplicationDestinationInfoRequest.newBuilder()
                        .setReplicationSource(VOL_1)
                        .build());

        PromoteRequest promote = (PromoteRequest) inner.requests.get(0);
        assertThat(promote.force()).isFalse();
        assertThat(promote.secrets().get("user")).hasValue("admin");
        assertThat(promote.deadline().isBounded()).isTrue();
        assertThat(inner.requests.get(1)).isInstanceOf(DestinationRequest.class);

        VolumeGroupDriver groups = new ForwardingVolumeGroupDriver(inner) {};
        assertThat(groups.served()).containsExactly(VolumeGroupCapability.VOLUME_GROUP);
    }

    @Test
    void requestsAreValuesWithBuildersAndMaskTheirSecrets() {
        ReplicationSource source = ReplicationSource.volumeGroup("grp-1");
        CallDeadline deadline = CallDeadline.after(Duration.ofSeconds(5));
        PromoteRequest r = PromoteRequest.builder()
                .source(source)
                .parameters(Map.of("mode", "snapshot"))
                .secrets(Secrets.of(Map.of("password", "hunter2-secret")))
                .replicationId("rep-1")
                .force(true)
                .deadline(deadline)
                .build();

        assertThat(r.source()).isEqualTo(source);
        assertThat(r.parameters()).containsEntry("mode", "snapshot");
        assertThat(r.replicationId()).hasValue("rep-1");
        assertThat(r.force()).isTrue();
        assertThat(r.deadline()).isSameAs(deadline);
        assertThat(r.toBuilder().build()).isEqualTo(r).hasSameHashCodeAs(r);
        assertThat(r.toBuilder().force(false).build()).isNotEqualTo(r);
        assertThat(r.toString())
                .startsWith("PromoteRequest[source=")
                .contains("force=true", "password=***", "deadline=in ")
                .doesNotContain("hunter2-secret");
        assertThat(PromoteRequest.of(source))
                .isEqualTo(PromoteRequest.builder().source(source).build());
        assertThatThrownBy(() -> PromoteRequest.builder().build())
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("source");
        assertThat(InfoRequest.builder()
                        .source(source)
                        .replicationId("")
                        .build()
                        .replicationId())
                .isEmpty();
        assertThat(HealRequest.of("vol-1", "/mnt").stagingTargetPath()).isEmpty();
    }

    @Test
    void aDeadlineSaysHowMuchTimeIsLeft() throws Exception {
        CallDeadline later = CallDeadline.after(Duration.ofHours(1));
        assertThat(later.isBounded()).isTrue();
        assertThat(later.remaining(Duration.ofSeconds(10))).isEqualTo(Duration.ofSeconds(10));
        assertThat(later.remaining()).isLessThanOrEqualTo(Duration.ofHours(1)).isGreaterThan(Duration.ofMinutes(59));
        CallDeadline soon = CallDeadline.after(Duration.ofMillis(50));
        assertThat(soon.remaining(Duration.ofSeconds(10))).isLessThanOrEqualTo(Duration.ofMillis(50));
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!soon.isExpired() && System.nanoTime() < end) {
            Thread.sleep(10);
        }
        assertThat(soon.isExpired()).isTrue();
        assertThat(soon.remaining()).isZero();
        assertThat(CallDeadline.none().isExpired()).isFalse();
        assertThat(CallDeadline.none().remaining().toNanos()).isEqualTo(Long.MAX_VALUE);
        assertThat(CallDeadline.none().remaining(Duration.ofSeconds(7))).isEqualTo(Duration.ofSeconds(7));
        assertThat(CallDeadline.none()).hasToString("none");
    }
}
