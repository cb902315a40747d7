package io.volrep.client.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Message;
import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.client.ReplicationClient;
import io.volrep.client.SecretsProvider;
import io.volrep.proto.identity.Capability.VolumeReplication;
import io.volrep.proto.identity.GetCapabilitiesResponse;
import io.volrep.proto.replication.GetReplicationDestinationInfoResponse;
import io.volrep.proto.replication.ReplicationDestination;
import io.volrep.proto.replication.ReplicationDestination.VolumeDestination;
import io.volrep.proto.replication.ReplicationDestination.VolumeGroupDestination;
import io.volrep.spi.ReplicationServer;
import io.volrep.testkit.fake.FakePlugin;
import io.volrep.testkit.fake.FaultInjector;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testsupport.GrpcCleanup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where a failover's destination comes from when the caller gives none: site A's GetReplicationDestinationInfo,
 * never a guess. Site A is the reference plugin behind a fault injector and an answer rewriter (so that it can
 * answer 14, 13, 12, a malformed or an oversized destination over real gRPC); site B holds the true destination
 * {@code b-vol-0} and an unrelated volume that happens to be called {@code vol-0}. Every failure of the look-up
 * must leave both sites as they were: A not demoted, nothing promoted on B.
 */
class FailoverDestinationTest {
    static final ReplicationSource VOL0 = ReplicationSource.volume("vol-0");
    static final ReplicationSource B_VOL0 = ReplicationSource.volume("b-vol-0");

    @TempDir
    Path dir;

    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    ReferenceDriver driverA;
    ReferenceDriver driverB;
    FaultInjector faultsA;
    /** What site A's destination and capability answers become (identity: as the reference driver answers). */
    volatile UnaryOperator<Message> destinationAnswer = UnaryOperator.identity();

    volatile UnaryOperator<Message> capabilitiesAnswer = UnaryOperator.identity();
    ReplicationServer siteA;
    FakePlugin siteB;

    @BeforeEach
    void twoSites() {
        driverA = ReferenceDriver.builder()
                .volume("vol-0")
                .requiredSecret("user", "admin")
                .build();
        driverB = ReferenceDriver.builder()
                .volume("b-vol-0")
                .volume("vol-0")
                .requiredSecret("user", "admin")
                .build();
        faultsA = grpc.register(new FaultInjector());
        siteA = grpc.register(ReplicationServer.builder()
                .driver(driverA)
                .interceptor(faultsA)
                .interceptor(new Rewriter())
                .listen("unix://" + dir.resolve("a.sock"))
                .gracePeriod(Duration.ZERO)
                .build()
                .start());
        siteB = grpc.register(FakePlugin.builder()
                .driver(driverB)
                .listen("unix://" + dir.resolve("b.sock"))
                .start());
        ReplicationClient a = grpc.register(client(siteA.address()));
        ReplicationClient b = grpc.register(client(siteB.address()));
        a.source(VOL0).enable().call(); // primary on A
        for (ReplicationSource s : List.of(B_VOL0, VOL0)) { // both secondary on B; only b-vol-0 is vol-0's
            b.source(s).enable().call();
            b.source(s).demote().call();
        }
        // By default site A names b-vol-0 as vol-0's destination.
        destinationAnswer = answer -> destination(
                VolumeDestination.newBuilder().setVolumeId("b-vol-0").build());
        faultsA.clearCalls();
        siteB.clearCalls();
    }

    private ReplicationClient client(String target) {
        return grpc.register(ReplicationClient.builder()
                .target(target)
                .retry(FailoverTest.FAST)
                .secrets(SecretsProvider.of(Map.of("user", "admin")))
                .build());
    }

    /** A failover of vol-0 without any destination given: site A is asked. */
    private SourceFailover failoverWithoutDestinations() {
        FailoverReport report = Failover.builder()
                .from(client(siteA.address()))
                .to(client(siteB.address()))
                .source(VOL0)
                .callBudget(Duration.ofSeconds(5))
                .build()
                .run();
        assertThat(report.sources()).hasSize(1);
        return report.sources().get(0);
    }

    private static Message destination(VolumeDestination volume) {
        return GetReplicationDestinationInfoResponse.newBuilder()
                .setReplicationDestination(ReplicationDestination.newBuilder().setVolume(volume))
                .build();
    }

    /** The failover failed before anything changed: A still primary and not asked to demote, B untouched. */
    private void nothingChanged(SourceFailover s, String why) {
        assertThat(s.step()).as(s.toString()).isEqualTo(FailoverStep.FAILED);
        assertThat(s.siteA()).isEqualTo(SourceFailover.SiteA.NOT_TRIED);
        assertThat(s.whyNot())
                .hasValueSatisfying(w -> assertThat(w).contains(why).endsWith("nothing changed on either site"));
        assertThat(faultsA.calls(Rpc.DEMOTE_VOLUME)).isEmpty();
        assertThat(driverA.state(VOL0).role()).isEqualTo(ReferenceDriver.Role.PRIMARY);
        assertThat(siteB.calls(Rpc.PROMOTE_VOLUME)).isEmpty();
        assertThat(siteB.calls(Rpc.GET_VOLUME_REPLICATION_INFO)).isEmpty();
        assertThat(driverB.state(VOL0).role()).isEqualTo(ReferenceDriver.Role.SECONDARY);
        assertThat(driverB.state(B_VOL0).role()).isEqualTo(ReferenceDriver.Role.SECONDARY);
    }

    @Test
    void unavailableIsRetriedWithBackOffThenSiteAsAnswerIsUsed() {
        faultsA.failNext(Rpc.GET_REPLICATION_DESTINATION_INFO, 2, StatusCode.UNAVAILABLE);

        SourceFailover s = failoverWithoutDestinations();

        assertThat(s.step()).as(s.toString()).isEqualTo(FailoverStep.PRIMARY_ON_B);
        assertThat(s.destination().orElseThrow().source()).isEqualTo(B_VOL0);
        assertThat(s.destinationOrigin()).hasValue(Destination.Origin.SITE_A);
        assertThat(s.calls()).first().isEqualTo("A GetReplicationDestinationInfo: OK");
        assertThat(faultsA.calls(Rpc.GET_REPLICATION_DESTINATION_INFO))
                .extracting(c -> c.code())
                .containsExactly(StatusCode.UNAVAILABLE, StatusCode.UNAVAILABLE, StatusCode.OK);
        assertThat(driverB.state(B_VOL0).role()).isEqualTo(ReferenceDriver.Role.PRIMARY);
        assertThat(driverB.state(VOL0).role()).isEqualTo(ReferenceDriver.Role.SECONDARY);
        assertThat(driverA.state(VOL0).role()).isEqualTo(ReferenceDriver.Role.SECONDARY);
    }

    @Test
    void unavailableUntilTheBudgetEndsFailsTheSourceBeforeAnythingChanges() {
        faultsA.failNext(Rpc.GET_REPLICATION_DESTINATION_INFO, 1000, StatusCode.UNAVAILABLE);

        nothingChanged(
                failoverWithoutDestinations(), "GetReplicationDestinationInfo on site A answered 14 UNAVAILABLE");
        assertThat(faultsA.calls(Rpc.GET_REPLICATION_DESTINATION_INFO)).hasSizeGreaterThan(1); // retried
    }

    @Test
    void internalFailsTheSourceBeforeAnythingChanges() {
        faultsA.failNext(Rpc.GET_REPLICATION_DESTINATION_INFO, 1000, StatusCode.INTERNAL);

        nothingChanged(failoverWithoutDestinations(), "GetReplicationDestinationInfo on site A answered 13 INTERNAL");
    }

    @Test
    void aMalformedAnswerFailsTheSourceBeforeAnythingChanges() {
        // A group destination for a volume source.
        destinationAnswer = answer -> GetReplicationDestinationInfoResponse.newBuilder()
                .setReplicationDestination(ReplicationDestination.newBuilder()
                        .setVolumegroup(VolumeGroupDestination.newBuilder().setVolumeGroupId("b-grp-0")))
                .build();

        nothingChanged(failoverWithoutDestinations(), "GetReplicationDestinationInfo on site A answered");
    }

    @Test
    void anAnswerWithoutDestinationFailsTheSourceBeforeAnythingChanges() {
        destinationAnswer = answer -> GetReplicationDestinationInfoResponse.getDefaultInstance();

        nothingChanged(failoverWithoutDestinations(), "GetReplicationDestinationInfo on site A answered");
    }

    @Test
    void anOversizedAnswerFailsTheSourceBeforeAnythingChanges() {
        // Over the client's 4 MiB inbound limit.
        destinationAnswer = answer -> destination(
                VolumeDestination.newBuilder().setVolumeId("b".repeat(5 << 20)).build());

        nothingChanged(failoverWithoutDestinations(), "GetReplicationDestinationInfo on site A answered");
    }

    @Test
    void unimplementedFromAPluginThatAdvertisesTheRpcFailsTheSourceBeforeAnythingChanges() {
        faultsA.failNext(Rpc.GET_REPLICATION_DESTINATION_INFO, 1000, StatusCode.UNIMPLEMENTED);

        nothingChanged(
                failoverWithoutDestinations(),
                "site A advertises GET_REPLICATION_DESTINATION_INFO but answered 12 UNIMPLEMENTED");
    }

    @Test
    void unimplementedFromAPluginThatDoesNotAdvertiseTheRpcMeansTheSameIds() {
        faultsA.failNext(Rpc.GET_REPLICATION_DESTINATION_INFO, 1000, StatusCode.UNIMPLEMENTED);
        capabilitiesAnswer = FailoverDestinationTest::withoutDestinationInfo;

        SourceFailover s = failoverWithoutDestinations();

        assertThat(s.step()).as(s.toString()).isEqualTo(FailoverStep.PRIMARY_ON_B);
        assertThat(s.destination().orElseThrow().source()).isEqualTo(VOL0);
        assertThat(s.destinationOrigin()).hasValue(Destination.Origin.SAME_IDS);
        assertThat(s.calls()).startsWith("A GetReplicationDestinationInfo: 12 UNIMPLEMENTED", "A GetCapabilities: OK");
        assertThat(faultsA.calls(Rpc.GET_REPLICATION_DESTINATION_INFO)).hasSize(1); // 12 is never retried
        assertThat(driverB.state(VOL0).role()).isEqualTo(ReferenceDriver.Role.PRIMARY);
    }

    @Test
    void theSameIdsOnlyWhenAskedForAndThenSiteAIsNotAsked() {
        FailoverReport report = Failover.builder()
                .from(client(siteA.address()))
                .to(client(siteB.address()))
                .source(VOL0)
                .assumeSameIds(true)
                .callBudget(Duration.ofSeconds(5))
                .build()
                .run();

        SourceFailover s = report.sources().get(0);
        assertThat(s.step()).as(s.toString()).isEqualTo(FailoverStep.PRIMARY_ON_B);
        assertThat(s.destinationOrigin()).hasValue(Destination.Origin.SAME_IDS);
        assertThat(faultsA.calls(Rpc.GET_REPLICATION_DESTINATION_INFO)).isEmpty();
        assertThat(driverB.state(VOL0).role()).isEqualTo(ReferenceDriver.Role.PRIMARY);
    }

    @Test
    void aMapFromTheCallerIsReportedAsTheCallersAndSiteAIsNotAsked() {
        FailoverReport report = Failover.builder()
                .from(client(siteA.address()))
                .to(client(siteB.address()))
                .source(VOL0)
                .resolver(DestinationResolver.ids(Map.of("vol-0", "b-vol-0")))
                .callBudget(Duration.ofSeconds(5))
                .build()
                .run();

        SourceFailover s = report.sources().get(0);
        assertThat(s.step()).as(s.toString()).isEqualTo(FailoverStep.PRIMARY_ON_B);
        assertThat(s.destinationOrigin()).hasValue(Destination.Origin.CALLER);
        assertThat(faultsA.calls(Rpc.GET_REPLICATION_DESTINATION_INFO)).isEmpty();
    }

    /** Rewrites site A's GetReplicationDestinationInfo and GetCapabilities answers. */
    private final class Rewriter implements ServerInterceptor {
        @Override
        public <Q, A> ServerCall.Listener<Q> interceptCall(
                ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
            String method = call.getMethodDescriptor().getFullMethodName();
            UnaryOperator<Message> rewrite = method.equals(Rpc.GET_REPLICATION_DESTINATION_INFO.fullMethodName())
                    ? destinationAnswer
                    : method.equals(Rpc.GET_CAPABILITIES.fullMethodName()) ? capabilitiesAnswer : null;
            if (rewrite == null) {
                return next.startCall(call, headers);
            }
            return next.startCall(
                    new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
                        @Override
                        @SuppressWarnings("unchecked")
                        public void sendMessage(A message) {
                            super.sendMessage((A) rewrite.apply((Message) message));
                        }
                    },
                    headers);
        }
    }

    /** Site A's capabilities without GET_REPLICATION_DESTINATION_INFO. */
    static Message withoutDestinationInfo(Message answer) {
        GetCapabilitiesResponse caps = (GetCapabilitiesResponse) answer;
        return caps.toBuilder()
                .clearCapabilities()
                .addAllCapabilities(caps.getCapabilitiesList().stream()
                        .filter(c -> !c.hasVolumeReplication()
                                || c.getVolumeReplication().getType()
                                        != VolumeReplication.Type.GET_REPLICATION_DESTINATION_INFO)
                        .toList())
                .build();
    }
}
