package io.volrep.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.BindableService;
import io.grpc.Status;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import io.volrep.api.Rpc;
import io.volrep.api.SpecDialect;
import io.volrep.api.StatusCode;
import io.volrep.proto.healer.HealerNodeGrpc;
import io.volrep.proto.healer.NodeHealerRequest;
import io.volrep.proto.healer.NodeHealerResponse;
import io.volrep.proto.identity.GetCapabilitiesRequest;
import io.volrep.proto.identity.GetCapabilitiesResponse;
import io.volrep.proto.identity.IdentityGrpc;
import io.volrep.spi.runtime.CallRunner;
import io.volrep.spi.runtime.ControllerService;
import io.volrep.spi.runtime.SourceGuard;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testsupport.GrpcCleanup;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The NodeHealer, Identity and dialect checks against the reference and against single-defect plugins. */
class HealerIdentityDialectConformanceTest {
    private static final Map<String, String> SECRETS = Map.of("user", "admin");
    private static final String PATH = "/var/lib/volrep/vol-0";
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    private static ReferenceDriver reference() {
        return ReferenceDriver.builder().volumes(2).groups(1).requiredSecrets(SECRETS).build();
    }

    private static ConformanceConfig.Builder referenceConfig(ReferenceDriver reference) {
        return ConformanceConfig.builder().driver(reference).volumes("vol-0", "vol-1").volumeGroups("grp-0")
                .secrets(SECRETS);
    }

    /** Starts {@code services} on a fresh in-process server; returns its endpoint. */
    private String serve(BindableService... services) throws Exception {
        String name = InProcessServerBuilder.generateName();
        InProcessServerBuilder builder = InProcessServerBuilder.forName(name);
        for (BindableService s : services) {
            builder.addService(s);
        }
        grpc.register(builder.build().start());
        return "inprocess:" + name;
    }

    /** A wire-level healer (below the SPI runtime): volume vol-0 exists, secrets checked, answers scripted. */
    private static BindableService healer(boolean checksStaging, Function<NodeHealerRequest, NodeHealerResponse> answer) {
        return new HealerNodeGrpc.HealerNodeImplBase() {
            @Override
            public void nodeHealer(NodeHealerRequest r, StreamObserver<NodeHealerResponse> observer) {
                Status status = null;
                if (r.getVolumeId().isEmpty() || r.getVolumePath().isEmpty()) {
                    status = Status.INVALID_ARGUMENT.withDescription("required field missing");
                } else if (checksStaging && !r.getStagingTargetPath().isEmpty()
                        && !r.getStagingTargetPath().startsWith("/")) {
                    status = Status.INVALID_ARGUMENT.withDescription("staging_target_path must be absolute");
                } else if (!r.getSecretsMap().equals(SECRETS)) {
                    status = Status.UNAUTHENTICATED;
                } else if (!r.getVolumeId().equals("vol-0")) {
                    status = Status.NOT_FOUND;
                }
                if (status != null) {
                    observer.onError(status.asRuntimeException());
                    return;
                }
                observer.onNext(answer.apply(r));
                observer.onCompleted();
            }
        };
    }

    @Test
    void referencePassesEveryHealerAndIdentityCheck() {
        ReferenceDriver reference = reference();
        ComplianceReport report = ConformanceRunner.builder(referenceConfig(reference).healerDriver(reference)
                .healerVolume("vol-0", PATH).build()).run();

        assertThat(report.failed()).isEmpty();
        for (String name : new String[] {HealerChecks.MESSAGE_REQUIRED, HealerChecks.PATH_128, HealerChecks.PATH_1024,
                HealerChecks.rowCase(StatusCode.INVALID_ARGUMENT, "staging_target_path relative"),
                HealerChecks.rowCase(StatusCode.NOT_FOUND, "volume " + HealerChecks.MISSING_VOLUME),
                HealerChecks.rowCase(StatusCode.UNAUTHENTICATED, "missing secrets"),
                IdentityChecks.REPLICATION, IdentityChecks.CONTROLLER, IdentityChecks.PROBE, IdentityChecks.NAME}) {
            assertThat(report.result(name)).as(name)
                    .hasValueSatisfying(r -> assertThat(r.outcome()).isEqualTo(CheckOutcome.PASSED));
        }
    }

    @Test
    void referenceHealerReportsFixturesHealthyUnlessMarkedAbnormal() {
        ReferenceDriver reference = ReferenceDriver.builder().volumes(2).abnormalVolume("vol-1")
                .requiredSecrets(SECRETS).build();
        io.volrep.api.Secrets ok = io.volrep.api.Secrets.of(SECRETS);
        var healthy = reference.heal(new io.volrep.spi.HealRequest("vol-0", PATH, java.util.Optional.empty(),
                java.util.Optional.empty(), ok, Map.of()));
        var abnormal = reference.heal(new io.volrep.spi.HealRequest("vol-1", "/mnt/vol-1",
                java.util.Optional.of("/staging/vol-1"), java.util.Optional.empty(), ok, Map.of()));
        assertThat(healthy.abnormal()).isFalse();
        assertThat(healthy.message()).contains("vol-0").contains("healthy");
        assertThat(abnormal.abnormal()).isTrue();
        assertThat(abnormal.message()).contains("vol-1").contains("abnormal");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> reference.heal(
                        io.volrep.spi.HealRequest.of("vol-9", PATH)))
                .isInstanceOf(io.volrep.api.UnauthenticatedException.class);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> reference.heal(new io.volrep.spi.HealRequest("vol-9",
                        PATH, java.util.Optional.empty(), java.util.Optional.empty(), ok, Map.of())))
                .isInstanceOf(io.volrep.api.SourceNotFoundException.class);
    }

    @Test
    void healerChecksAreSkippedWithoutANodeVolume() {
        ComplianceReport report = ConformanceRunner.builder(referenceConfig(reference()).build()).run();
        CheckResult message = report.result(HealerChecks.MESSAGE_REQUIRED).orElseThrow();
        assertThat(message.outcome()).isEqualTo(CheckOutcome.SKIPPED);
        assertThat(message.reason()).contains("--healer-volume");
        assertThat(report.compliant()).isTrue();
    }

    @Test
    void aPluginWithoutTheHealerIsNotImplementedNotFailed() {
        ComplianceReport report = ConformanceRunner.builder(referenceConfig(reference())
                .healerVolume("vol-0", PATH).build()).run();
        assertThat(report.compliant()).isTrue();
        assertThat(report.result(HealerChecks.MESSAGE_REQUIRED).orElseThrow().outcome())
                .isEqualTo(CheckOutcome.NOT_IMPLEMENTED);
        assertThat(report.notImplementedRpcs()).contains("NodeHealer");
    }

    @Test
    void healerAcceptingARelativeStagingPathFailsThatCheck() throws Exception {
        String endpoint = serve(healer(false, r -> NodeHealerResponse.newBuilder().setMessage("ok").build()));
        ComplianceReport report = ConformanceRunner.builder(referenceConfig(reference()).healerEndpoint(endpoint)
                .healerVolume("vol-0", PATH).build()).run();

        assertThat(report.compliant()).isFalse();
        // This healer accepts anything: the optional size-limit check fails too (an id of 129 bytes answers OK).
        assertThat(report.failed()).extracting(CheckResult::name).containsExactly(
                HealerChecks.rowCase(StatusCode.INVALID_ARGUMENT, "staging_target_path relative"),
                HealerChecks.rowCase(StatusCode.INVALID_ARGUMENT, ControllerChecks.ID_OVER_LIMIT));
        assertThat(report.failed()).extracting(CheckResult::requirement)
                .containsExactly(Requirement.REQUIRED, Requirement.OPTIONAL);
        assertThat(report.failed().get(0).reason()).contains("expected 3 INVALID_ARGUMENT, got 0 OK");
    }

    @Test
    void healerAnsweringWithoutAMessageFailsTheMessageChecks() throws Exception {
        String endpoint = serve(healer(true, r -> NodeHealerResponse.newBuilder().setAbnormal(false).build()));
        ComplianceReport report = ConformanceRunner.builder(referenceConfig(reference()).healerEndpoint(endpoint)
                .healerVolume("vol-0", PATH).build()).run();

        assertThat(report.compliant()).isFalse();
        assertThat(report.result(HealerChecks.MESSAGE_REQUIRED).orElseThrow().outcome())
                .isEqualTo(CheckOutcome.FAILED);
        assertThat(report.result(HealerChecks.MESSAGE_REQUIRED).orElseThrow().reason())
                .contains("NodeHealer answered against the spec: message: REQUIRED but empty");
        assertThat(report.result(HealerChecks.rowCase(StatusCode.INVALID_ARGUMENT, "staging_target_path relative"))
                .orElseThrow().outcome()).isEqualTo(CheckOutcome.PASSED);
    }

    @Test
    void identityWithoutVolumeReplicationFailsAndWithoutIdentityIsNotImplemented() throws Exception {
        ReferenceDriver reference = reference();
        BindableService controller = new ControllerService(reference, new CallRunner(new SourceGuard()));
        BindableService noReplication = new IdentityGrpc.IdentityImplBase() {
            @Override
            public void getCapabilities(GetCapabilitiesRequest request,
                                        StreamObserver<GetCapabilitiesResponse> observer) {
                observer.onNext(GetCapabilitiesResponse.getDefaultInstance());
                observer.onCompleted();
            }
        };
        String endpoint = serve(controller, noReplication);
        ComplianceReport report = ConformanceRunner.builder(ConformanceConfig.builder().endpoint(endpoint)
                .volumes("vol-0", "vol-1").volumeGroups("grp-0").secrets(SECRETS).build()).run();

        assertThat(report.failed()).extracting(CheckResult::name)
                .containsExactlyInAnyOrder(IdentityChecks.REPLICATION, IdentityChecks.CONTROLLER);
        assertThat(report.result(IdentityChecks.PROBE).orElseThrow().outcome()).isEqualTo(CheckOutcome.NOT_IMPLEMENTED);

        String bare = serve(new ControllerService(reference(), new CallRunner(new SourceGuard())));
        ComplianceReport withoutIdentity = ConformanceRunner.builder(ConformanceConfig.builder().endpoint(bare)
                .volumes("vol-0", "vol-1").volumeGroups("grp-0").secrets(SECRETS).build()).run();
        assertThat(withoutIdentity.compliant()).isTrue();
        CheckResult replication = withoutIdentity.result(IdentityChecks.REPLICATION).orElseThrow();
        assertThat(replication.outcome()).isEqualTo(CheckOutcome.NOT_IMPLEMENTED);
        // Tagged required (when the service is served): the reason must not call the check optional.
        assertThat(replication.requirement()).isEqualTo(Requirement.REQUIRED);
        assertThat(replication.reason()).doesNotContain("optional;")
                .contains("identity.Identity/GetCapabilities answered 12 UNIMPLEMENTED")
                .contains("required only when the service is served");
        // Without Identity nothing is advertised, the volume group service included.
        assertThat(withoutIdentity.notImplementedRpcs()).containsExactly("identity.Identity", "volumegroup.Controller");
        assertThat(withoutIdentity.statement()).contains("(identity.Identity, volumegroup.Controller)");
    }

    @ParameterizedTest
    @EnumSource(SpecDialect.class)
    void referenceServedInEachDialectPassesThatDialectsChecks(SpecDialect dialect) {
        ReferenceDriver reference = reference();
        ComplianceReport report = ConformanceRunner.builder(referenceConfig(reference).dialect(dialect)
                .healerDriver(reference).healerVolume("vol-0", PATH).build()).run();

        assertThat(report.failed()).isEmpty();
        assertThat(report.compliant()).isTrue();
        assertThat(report.count(Requirement.REQUIRED, CheckOutcome.PASSED)).isGreaterThan(40);
        boolean hasInfoChecks = report.results().stream().anyMatch(r -> r.group().equals("GetVolumeReplicationInfo"));
        assertThat(hasInfoChecks).isEqualTo(dialect != SpecDialect.V0_1_0);
        if (dialect != SpecDialect.CURRENT) {
            // Check names come from the dialect's own rows.
            String notFound = ControllerChecks.rowCase(dialect.errorScheme(), Rpc.PROMOTE_VOLUME, StatusCode.NOT_FOUND,
                    "volume " + ControllerChecks.MISSING_VOLUME);
            assertThat(report.result(notFound)).hasValueSatisfying(r ->
                    assertThat(r.outcome()).isEqualTo(CheckOutcome.PASSED));
        }
        if (dialect == SpecDialect.V0_1_3) {
            assertThat(report.results()).anySatisfy(r -> assertThat(r.name()).contains("volume_id missing (REQUIRED")
                    .satisfies(n -> assertThat(r.outcome()).isEqualTo(CheckOutcome.PASSED)));
        }
    }

    @Test
    void aCurrentPluginTestedAsV013IsNotCompliant() {
        // What goes wrong with the wrong dialect: v0.1.3's volume source (field 2) reads as a group to this plugin.
        ReferenceDriver reference = reference();
        ComplianceReport report = ConformanceRunner.builder(referenceConfig(reference).build().toBuilder()
                .driver(reference).dialect(SpecDialect.CURRENT).build()).run();
        assertThat(report.compliant()).isTrue();
        String name = InProcessServerBuilder.generateName();
        try (var server = io.volrep.testkit.reference.ReferencePlugin.start(reference(), "inprocess:" + name)) {
            ComplianceReport wrong = ConformanceRunner.builder(ConformanceConfig.builder().endpoint("inprocess:" + name)
                    .dialect(SpecDialect.V0_1_3).volumes("vol-0", "vol-1").volumeGroups("grp-0").secrets(SECRETS)
                    .build()).run();
            assertThat(wrong.compliant()).isFalse();
        }
    }
}
