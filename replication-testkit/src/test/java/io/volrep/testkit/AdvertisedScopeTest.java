package io.volrep.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.inprocess.InProcessServerBuilder;
import io.volrep.api.Rpc;
import io.volrep.proto.identity.GetCapabilitiesResponse;
import io.volrep.spi.ReplicationServer;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testsupport.GrpcCleanup;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A plugin is judged on what its Identity advertises (issue 47, item 9): one that serves only volumegroup.Controller and
 * Identity, advertising CONTROLLER_SERVICE and the VolumeGroup capabilities but not VOLUME_REPLICATION, gets its
 * replication checks reported not applicable, and is compliant when its volume groups are.
 */
class AdvertisedScopeTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    @Test
    void aVolumeGroupOnlyPluginIsJudgedOnWhatItAdvertises() {
        ReferenceDriver groups = ReferenceDriver.builder()
                .volumes(2)
                .groups(1)
                .requiredSecrets(Defect.SECRETS)
                .build();
        String name = "volume-groups-only-" + InProcessServerBuilder.generateName();
        grpc.register(ReplicationServer.builder()
                .volumeGroups(groups)
                .listen("inprocess:" + name)
                .build()
                .start());

        ComplianceReport report = ConformanceRunner.of(ConformanceConfig.builder()
                        .endpoint("inprocess:" + name)
                        .volumes("vol-0", "vol-1")
                        .secrets(Defect.SECRETS)
                        .build())
                .run();

        assertThat(report.failed()).as("%s", report.failed()).isEmpty();
        assertThat(report.compliant()).isTrue();
        assertThat(report.notApplicableServices()).containsExactly("replication.Controller");
        assertThat(report.result(IdentityChecks.REPLICATION).orElseThrow().outcome())
                .isEqualTo(CheckOutcome.NOT_APPLICABLE);
        assertThat(report.result(IdentityChecks.CONTROLLER).orElseThrow().outcome())
                .isEqualTo(CheckOutcome.PASSED);
        assertThat(report.results())
                .filteredOn(r -> r.id().startsWith("CreateVolumeGroup/"))
                .isNotEmpty()
                .allSatisfy(r -> assertThat(r.outcome()).isIn(CheckOutcome.PASSED, CheckOutcome.SKIPPED));
        assertThat(report.results())
                .filteredOn(r -> r.id().startsWith("PromoteVolume/") || r.id().startsWith("fixtures/"))
                .isNotEmpty()
                .allSatisfy(r -> assertThat(r.outcome()).isEqualTo(CheckOutcome.NOT_APPLICABLE));
        assertThat(report.statement())
                .contains("not applicable (services Identity does not advertise): ")
                .contains("(replication.Controller)")
                .doesNotContain("does not advertise VOLUME_REPLICATION");
    }

    @Test
    void aPluginThatServesReplicationWithoutAdvertisingItIsStillJudgedOnReplication() {
        ReferenceDriver reference = ReferenceDriver.builder()
                .volumes(2)
                .groups(1)
                .requiredSecrets(Map.of("user", "admin"))
                .build();
        ComplianceReport report = ConformanceRunner.of(ConformanceConfig.builder()
                        .driver(reference)
                        .interceptor(Defect.rewriteResponse(
                                Rpc.GET_CAPABILITIES, m -> GetCapabilitiesResponse.getDefaultInstance()))
                        .volumes("vol-0", "vol-1")
                        .volumeGroups("grp-0")
                        .secrets(Map.of("user", "admin"))
                        .build())
                .run();

        assertThat(report.notApplicableServices()).isEmpty();
        assertThat(report.result(IdentityChecks.REPLICATION).orElseThrow().outcome())
                .isEqualTo(CheckOutcome.FAILED);
        assertThat(report.compliant()).isFalse();
    }
}
