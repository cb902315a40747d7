package io.volrep.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.BindableService;
import io.grpc.Status;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import io.volrep.api.Rpc;
import io.volrep.api.Secrets;
import io.volrep.api.SourceNotFoundException;
import io.volrep.api.SpecDialect;
import io.volrep.api.StatusCode;
import io.volrep.api.UnauthenticatedException;
import io.volrep.proto.healer.HealerNodeGrpc;
import io.volrep.proto.healer.NodeHealerRequest;
import io.volrep.proto.healer.NodeHealerResponse;
import io.volrep.proto.identity.GetCapabilitiesRequest;
import io.volrep.proto.identity.GetCapabilitiesResponse;
import io.volrep.proto.identity.IdentityGrpc;
import io.volrep.spi.DisableRequest;
import io.volrep.spi.EnableRequest;
import io.volrep.spi.HealRequest;
import io.volrep.spi.ReplicationDriver;
import io.volrep.spi.internal.runtime.CallRunner;
import io.volrep.spi.internal.runtime.ControllerService;
import io.volrep.spi.internal.runtime.IdentityService;
import io.volrep.spi.internal.runtime.SourceGuard;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testkit.reference.ReferencePlugin;
import io.volrep.testsupport.GrpcCleanup;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.stream.Stream;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** The NodeHealer, Identity and dialect checks against the reference and against single-defect plugins. */
class HealerIdentityDialectConformanceTest {
    private static final Map<String, String> SECRETS = Map.of("user", "admin");
    private static final String PATH = "/var/lib/volrep/vol-0";

    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    private static ReferenceDriver reference() {
        return ReferenceDriver.builder()
                .volumes(2)
                .groups(1)
                .requiredSecrets(SECRETS)
                .build();
    }

    private static ConformanceConfig.Builder referenceConfig(ReferenceDriver reference) {
        return ConformanceConfig.builder()
                .driver(reference)
                .volumes("vol-0", "vol-1")
                .volumeGroups("grp-0")
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
    private static BindableService healer(
            boolean checksStaging, Function<NodeHealerRequest, NodeHealerResponse> answer) {
        return new HealerNodeGrpc.HealerNodeImplBase() {
            @Override
            public void nodeHealer(NodeHealerRequest r, StreamObserver<NodeHealerResponse> observer) {
                Status status = null;
                if (r.getVolumeId().isEmpty() || r.getVolumePath().isEmpty()) {
                    status = Status.INVALID_ARGUMENT.withDescription("required field missing");
                } else if (checksStaging
                        && !r.getStagingTargetPath().isEmpty()
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

    /** The node volume vol-0 (mounted at PATH, staged, with its context) and vol-1 as a block volume. */
    static ConformanceConfig.Builder withEveryHealerInput(ConformanceConfig.Builder config) {
        return config.healerVolume("vol-0", PATH)
                .healerStagingPath("/var/lib/volrep/staging/vol-0")
                .healerVolumeContext(Map.of("volrep.io/pool", "reference"))
                .healerBlockVolume("vol-1", "/dev/volrep/vol-1");
    }

    @Test
    void referencePassesEveryHealerAndIdentityCheck() {
        ReferenceDriver reference = reference();
        ComplianceReport report = ConformanceRunner.of(
                        withEveryHealerInput(referenceConfig(reference).healerDriver(reference))
                                .build())
                .run();

        assertThat(report.failed()).isEmpty();
        assertThat(report.results().stream().filter(r -> r.group().equals(HealerChecks.GROUP)))
                .hasSize(HealerChecks.checks().size())
                .allSatisfy(r -> assertThat(r.outcome()).as(r.name()).isEqualTo(CheckOutcome.PASSED));
        for (String name : new String[] {
            HealerChecks.MESSAGE_REQUIRED,
            HealerChecks.PATH_128,
            HealerChecks.PATH_OS_LIMIT,
            HealerChecks.MOUNT_CAPABILITY,
            HealerChecks.BLOCK_CAPABILITY,
            HealerChecks.STAGING_128,
            HealerChecks.STAGING_OS_LIMIT,
            HealerChecks.VOLUME_CONTEXT,
            HealerChecks.rowCase(StatusCode.INVALID_ARGUMENT, "staging_target_path relative"),
            HealerChecks.rowCase(StatusCode.NOT_FOUND, "volume " + HealerChecks.MISSING_VOLUME),
            HealerChecks.rowCase(StatusCode.UNAUTHENTICATED, "missing secrets"),
            IdentityChecks.REPLICATION,
            IdentityChecks.CONTROLLER,
            IdentityChecks.PROBE,
            IdentityChecks.NAME
        }) {
            assertThat(report.result(name))
                    .as(name)
                    .hasValueSatisfying(r -> assertThat(r.outcome()).isEqualTo(CheckOutcome.PASSED));
        }
    }

    @Test
    void referenceHealerReportsFixturesHealthyUnlessMarkedAbnormal() {
        ReferenceDriver reference = ReferenceDriver.builder()
                .volumes(2)
                .abnormalVolume("vol-1")
                .requiredSecrets(SECRETS)
                .build();
        Secrets ok = Secrets.of(SECRETS);
        var healthy = reference.heal(
                HealRequest.of("vol-0", PATH).toBuilder().secrets(ok).build());
        var abnormal = reference.heal(HealRequest.of("vol-1", "/mnt/vol-1").toBuilder()
                .stagingTargetPath("/staging/vol-1")
                .secrets(ok)
                .build());
        assertThat(healthy.abnormal()).isFalse();
        assertThat(healthy.message()).contains("vol-0").contains("healthy");
        assertThat(abnormal.abnormal()).isTrue();
        assertThat(abnormal.message()).contains("vol-1").contains("abnormal");
        Assertions.assertThatThrownBy(() -> reference.heal(HealRequest.of("vol-9", PATH)))
                .isInstanceOf(UnauthenticatedException.class);
        Assertions.assertThatThrownBy(() -> reference.heal(
                        HealRequest.of("vol-9", PATH).toBuilder().secrets(ok).build()))
                .isInstanceOf(SourceNotFoundException.class);
    }

    @Test
    void healerChecksAreSkippedWithoutANodeVolume() {
        ComplianceReport report =
                ConformanceRunner.of(referenceConfig(reference()).build()).run();
        CheckResult message = report.result(HealerChecks.MESSAGE_REQUIRED).orElseThrow();
        assertThat(message.outcome()).isEqualTo(CheckOutcome.SKIPPED);
        assertThat(message.reason()).contains("--healer-volume");
        assertThat(report.compliant()).isTrue();
    }

    @Test
    void aPluginWithoutTheHealerIsNotImplementedNotFailed() {
        ComplianceReport report = ConformanceRunner.of(
                        referenceConfig(reference()).healerVolume("vol-0", PATH).build())
                .run();
        assertThat(report.compliant()).isTrue();
        assertThat(report.result(HealerChecks.MESSAGE_REQUIRED).orElseThrow().outcome())
                .isEqualTo(CheckOutcome.NOT_IMPLEMENTED);
        assertThat(report.notImplementedRpcs()).contains("NodeHealer");
    }

    /**
     * A wire-level healer, correct (vol-0 and vol-1 exist, secrets checked, relative staging refused) but for one
     * defect: {@code defect} answers a status instead, or null to serve the request.
     */
    private static BindableService healerWith(Function<NodeHealerRequest, Status> defect) {
        return new HealerNodeGrpc.HealerNodeImplBase() {
            @Override
            public void nodeHealer(NodeHealerRequest r, StreamObserver<NodeHealerResponse> observer) {
                Status status = null;
                if (r.getVolumeId().isEmpty()
                        || r.getVolumePath().isEmpty()
                        || r.getVolumeId().length() > 128
                        || (!r.getStagingTargetPath().isEmpty()
                                && !r.getStagingTargetPath().startsWith("/"))) {
                    status = Status.INVALID_ARGUMENT.withDescription("malformed request");
                } else if (!r.getSecretsMap().equals(SECRETS)) {
                    status = Status.UNAUTHENTICATED;
                } else if (!Set.of("vol-0", "vol-1").contains(r.getVolumeId())) {
                    status = Status.NOT_FOUND;
                } else {
                    status = defect.apply(r);
                }
                if (status != null) {
                    observer.onError(status.asRuntimeException());
                    return;
                }
                observer.onNext(NodeHealerResponse.newBuilder()
                        .setMessage(r.getVolumeId() + " is healthy")
                        .build());
                observer.onCompleted();
            }
        };
    }

    static Stream<Arguments> healerInputDefects() {
        Status invalid = Status.INVALID_ARGUMENT.withDescription("not accepted");
        Set<String> busy = ConcurrentHashMap.newKeySet();
        Function<NodeHealerRequest, Status> unknownWhenBusy = r -> {
            if (!busy.add(r.getVolumeId())) {
                return Status.UNKNOWN.withDescription("busy"); // defect: 10 ABORTED is the row
            }
            try {
                Thread.sleep(30);
                return null;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Status.CANCELLED;
            } finally {
                busy.remove(r.getVolumeId());
            }
        };
        return Stream.of(
                Arguments.of(
                        "rejects any volume_capability",
                        (Function<NodeHealerRequest, Status>) r -> r.hasVolumeCapability() ? invalid : null,
                        List.of(HealerChecks.MOUNT_CAPABILITY, HealerChecks.BLOCK_CAPABILITY),
                        true),
                Arguments.of(
                        "rejects a block volume_capability",
                        (Function<NodeHealerRequest, Status>)
                                r -> r.getVolumeCapability().hasBlock() ? invalid : null,
                        List.of(HealerChecks.BLOCK_CAPABILITY),
                        true),
                Arguments.of(
                        "applies CSI's 128 bytes to staging_target_path",
                        (Function<NodeHealerRequest, Status>)
                                r -> r.getStagingTargetPath().length() > 128 ? invalid : null,
                        List.of(HealerChecks.STAGING_128, HealerChecks.STAGING_OS_LIMIT),
                        true),
                Arguments.of(
                        "takes staging paths of 1024 bytes at most",
                        (Function<NodeHealerRequest, Status>)
                                r -> r.getStagingTargetPath().length() > 1024 ? invalid : null,
                        List.of(HealerChecks.STAGING_OS_LIMIT),
                        false),
                Arguments.of(
                        "takes volume paths of 1024 bytes at most",
                        (Function<NodeHealerRequest, Status>)
                                r -> r.getVolumePath().length() > 1024 ? invalid : null,
                        List.of(HealerChecks.PATH_OS_LIMIT),
                        false),
                Arguments.of(
                        "rejects a volume_context",
                        (Function<NodeHealerRequest, Status>) r -> r.getVolumeContextCount() > 0 ? invalid : null,
                        List.of(HealerChecks.VOLUME_CONTEXT),
                        true),
                Arguments.of(
                        "answers 2 UNKNOWN to a second call in flight",
                        unknownWhenBusy,
                        List.of(HealerChecks.rowCase(
                                StatusCode.ABORTED,
                                HealerChecks.SIMULTANEOUS_CALLS
                                        + " simultaneous calls answer only 0 OK or 10 ABORTED")),
                        false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("healerInputDefects")
    void eachHealerInputDefectIsFailedByItsCheck(
            String defect, Function<NodeHealerRequest, Status> answer, List<String> failing, boolean breaksCompliance)
            throws Exception {
        String endpoint = serve(healerWith(answer));
        ComplianceReport report = ConformanceRunner.of(
                        withEveryHealerInput(referenceConfig(reference()).healerEndpoint(endpoint))
                                .build())
                .run();

        assertThat(report.failed()).extracting(CheckResult::name).containsExactlyInAnyOrderElementsOf(failing);
        assertThat(report.compliant()).isEqualTo(!breaksCompliance);
        assertThat(report.results().stream()
                        .filter(r -> r.group().equals(HealerChecks.GROUP) && !failing.contains(r.name())))
                .allSatisfy(r -> assertThat(r.outcome()).as(r.name()).isEqualTo(CheckOutcome.PASSED));
    }

    @Test
    void theSameWireHealerWithoutADefectPassesEveryHealerCheck() throws Exception {
        String endpoint = serve(healerWith(r -> null));
        ComplianceReport report = ConformanceRunner.of(
                        withEveryHealerInput(referenceConfig(reference()).healerEndpoint(endpoint))
                                .build())
                .run();
        assertThat(report.results().stream().filter(r -> r.group().equals(HealerChecks.GROUP)))
                .hasSize(HealerChecks.checks().size())
                .allSatisfy(r -> assertThat(r.outcome()).as(r.name()).isEqualTo(CheckOutcome.PASSED));
        assertThat(HealerChecks.longPath("/mnt/vol-0", HealerChecks.OS_PATH_BYTES))
                .hasSize(4095)
                .startsWith("/mnt/vol-0/./.");
        assertThat(HealerChecks.longPath("/mnt/vol-0/", 129)).hasSize(129);
        assertThat(HealerChecks.longPath("/mnt/vol", 129)).hasSize(129);
    }

    @Test
    void healerAcceptingARelativeStagingPathFailsThatCheck() throws Exception {
        String endpoint = serve(healer(
                false, r -> NodeHealerResponse.newBuilder().setMessage("ok").build()));
        ComplianceReport report = ConformanceRunner.of(referenceConfig(reference())
                        .healerEndpoint(endpoint)
                        .healerVolume("vol-0", PATH)
                        .build())
                .run();

        assertThat(report.compliant()).isFalse();
        // This healer accepts anything: the optional size-limit check fails too (an id of 129 bytes answers OK).
        assertThat(report.failed())
                .extracting(CheckResult::name)
                .containsExactly(
                        HealerChecks.rowCase(StatusCode.INVALID_ARGUMENT, "staging_target_path relative"),
                        HealerChecks.rowCase(StatusCode.INVALID_ARGUMENT, ControllerChecks.ID_OVER_LIMIT));
        assertThat(report.failed())
                .extracting(CheckResult::requirement)
                .containsExactly(Requirement.REQUIRED, Requirement.OPTIONAL);
        assertThat(report.failed().get(0).reason()).contains("expected 3 INVALID_ARGUMENT, got 0 OK");
    }

    @Test
    void healerAnsweringWithoutAMessageFailsTheMessageChecks() throws Exception {
        String endpoint = serve(healer(
                true, r -> NodeHealerResponse.newBuilder().setAbnormal(false).build()));
        ComplianceReport report = ConformanceRunner.of(referenceConfig(reference())
                        .healerEndpoint(endpoint)
                        .healerVolume("vol-0", PATH)
                        .build())
                .run();

        assertThat(report.compliant()).isFalse();
        assertThat(report.result(HealerChecks.MESSAGE_REQUIRED).orElseThrow().outcome())
                .isEqualTo(CheckOutcome.FAILED);
        assertThat(report.result(HealerChecks.MESSAGE_REQUIRED).orElseThrow().reason())
                .contains("NodeHealer answered against the spec: message: REQUIRED but empty");
        assertThat(report.result(HealerChecks.rowCase(StatusCode.INVALID_ARGUMENT, "staging_target_path relative"))
                        .orElseThrow()
                        .outcome())
                .isEqualTo(CheckOutcome.PASSED);
    }

    @Test
    void identityWithoutVolumeReplicationFailsAndWithoutIdentityIsNotImplemented() throws Exception {
        ReferenceDriver reference = reference();
        BindableService controller = new ControllerService(reference, new CallRunner(new SourceGuard()));
        BindableService noReplication = new IdentityGrpc.IdentityImplBase() {
            @Override
            public void getCapabilities(
                    GetCapabilitiesRequest request, StreamObserver<GetCapabilitiesResponse> observer) {
                observer.onNext(GetCapabilitiesResponse.getDefaultInstance());
                observer.onCompleted();
            }
        };
        String endpoint = serve(controller, noReplication);
        ComplianceReport report = ConformanceRunner.of(ConformanceConfig.builder()
                        .endpoint(endpoint)
                        .volumes("vol-0", "vol-1")
                        .volumeGroups("grp-0")
                        .secrets(SECRETS)
                        .build())
                .run();

        assertThat(report.failed())
                .extracting(CheckResult::name)
                .containsExactlyInAnyOrder(IdentityChecks.REPLICATION, IdentityChecks.CONTROLLER);
        assertThat(report.result(IdentityChecks.PROBE).orElseThrow().outcome()).isEqualTo(CheckOutcome.NOT_IMPLEMENTED);

        String bare = serve(new ControllerService(reference(), new CallRunner(new SourceGuard())));
        ComplianceReport withoutIdentity = ConformanceRunner.of(ConformanceConfig.builder()
                        .endpoint(bare)
                        .volumes("vol-0", "vol-1")
                        .volumeGroups("grp-0")
                        .secrets(SECRETS)
                        .build())
                .run();
        assertThat(withoutIdentity.compliant()).isTrue();
        CheckResult replication =
                withoutIdentity.result(IdentityChecks.REPLICATION).orElseThrow();
        assertThat(replication.outcome()).isEqualTo(CheckOutcome.NOT_IMPLEMENTED);
        // Tagged required (when the service is served): the reason must not call the check optional.
        assertThat(replication.requirement()).isEqualTo(Requirement.REQUIRED);
        assertThat(replication.reason())
                .doesNotContain("optional;")
                .contains("identity.Identity/GetCapabilities answered 12 UNIMPLEMENTED")
                .contains("required only when the service is served");
        // Without Identity nothing is advertised, the volume group service included.
        assertThat(withoutIdentity.notImplementedRpcs()).containsExactly("identity.Identity", "volumegroup.Controller");
        assertThat(withoutIdentity.statement()).contains("(identity.Identity, volumegroup.Controller)");
    }

    @Test
    void anRpcServedWithoutItsCapabilityIsAWarningShownEverywhereNeverAFailure(@TempDir Path reports) throws Exception {
        // Served (the driver declares it), but Identity does not advertise it: a plugin of its own making.
        String unadvertised = serve(
                new ControllerService(
                        new SpecDriver(SECRETS, "vol-0", "vol-1", "grp-0"), new CallRunner(new SourceGuard())),
                new IdentityService("unadvertised.volrep.io", "1", true, false, false, () -> true));
        StringWriter progress = new StringWriter();
        ComplianceReport report = ConformanceRunner.of(ConformanceConfig.builder()
                        .endpoint(unadvertised)
                        .volumes("vol-0", "vol-1")
                        .volumeGroups("grp-0")
                        .secrets(SECRETS)
                        .build())
                .progress(new PrintWriter(progress, true))
                .reportsDir(reports)
                .run();

        CheckResult warning = report.result(IdentityChecks.SERVED_ADVERTISED).orElseThrow();
        assertThat(warning.outcome()).isEqualTo(CheckOutcome.WARNING);
        assertThat(warning.reason())
                .startsWith("WARNING: GetReplicationDestinationInfo is served but GetCapabilities"
                        + " does not advertise VolumeReplication.GET_REPLICATION_DESTINATION_INFO");
        assertThat(report.warnings()).containsExactly(warning);
        assertThat(report.failed()).isEmpty();
        assertThat(report.compliant()).isTrue();
        assertThat(report.statement())
                .startsWith("COMPLIANT")
                .contains("\n  warnings (not failures): 1 checks (identity/plugin/served-rpcs-advertised)\n")
                .contains("skipped (fixtures not configured): "
                        + report.results().stream()
                                .filter(r -> r.outcome() == CheckOutcome.SKIPPED)
                                .count() + " checks"); // a warning is no skip
        assertThat(progress.toString())
                .contains("WARNING         optional " + IdentityChecks.SERVED_ADVERTISED)
                .contains("-> WARNING: GetReplicationDestinationInfo is served");
        String xml = Files.readString(reports.resolve("TEST-Identity_optional_.xml"));
        assertThat(xml)
                .contains("skipped=\"1\"")
                .contains("failures=\"0\"")
                .contains("<skipped message=\"WARNING: GetReplicationDestinationInfo is served");
        assertThat(report.result(IdentityChecks.ADVERTISED_SERVED).orElseThrow().outcome())
                .isEqualTo(CheckOutcome.PASSED);
    }

    @Test
    void aCapabilityAdvertisedAndServedOrNeitherIsNoWarning() {
        // Neither advertised nor served: GetReplicationDestinationInfo answers 12, which the spec allows.
        SpecDriver minimal = SpecDriver.standard();
        ReplicationDriver withoutDestinations = new ReplicationDriver() {
            @Override
            public void enable(EnableRequest r) {
                minimal.enable(r);
            }

            @Override
            public void disable(DisableRequest r) {
                minimal.disable(r);
            }
        };
        for (ReplicationDriver driver : new ReplicationDriver[] {withoutDestinations, SpecDriver.standard()}) {
            ComplianceReport report = ConformanceRunner.of(ConformanceConfig.builder()
                            .driver(driver)
                            .volumes("vol-0")
                            .secrets(SECRETS)
                            .build())
                    .run();
            assertThat(report.warnings()).isEmpty();
            for (String name : new String[] {IdentityChecks.SERVED_ADVERTISED, IdentityChecks.ADVERTISED_SERVED}) {
                assertThat(report.result(name).orElseThrow().outcome()).as(name).isEqualTo(CheckOutcome.PASSED);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(SpecDialect.class)
    void referenceServedInEachDialectPassesThatDialectsChecks(SpecDialect dialect) {
        ReferenceDriver reference = reference();
        ComplianceReport report = ConformanceRunner.of(referenceConfig(reference)
                        .dialect(dialect)
                        .healerDriver(reference)
                        .healerVolume("vol-0", PATH)
                        .build())
                .run();

        assertThat(report.failed()).isEmpty();
        assertThat(report.compliant()).isTrue();
        assertThat(report.count(Requirement.REQUIRED, CheckOutcome.PASSED)).isGreaterThan(40);
        boolean hasInfoChecks =
                report.results().stream().anyMatch(r -> r.group().equals("GetVolumeReplicationInfo"));
        assertThat(hasInfoChecks).isEqualTo(dialect != SpecDialect.V0_1_0);
        if (dialect != SpecDialect.CURRENT) {
            // Check names come from the dialect's own rows.
            String notFound = ControllerChecks.rowCase(
                    dialect.errorScheme(),
                    Rpc.PROMOTE_VOLUME,
                    StatusCode.NOT_FOUND,
                    "volume " + ControllerChecks.MISSING_VOLUME);
            assertThat(report.result(notFound))
                    .hasValueSatisfying(r -> assertThat(r.outcome()).isEqualTo(CheckOutcome.PASSED));
        }
        if (dialect == SpecDialect.V0_1_3) {
            assertThat(report.results())
                    .anySatisfy(r -> assertThat(r.name())
                            .contains("volume_id missing (REQUIRED")
                            .satisfies(n -> assertThat(r.outcome()).isEqualTo(CheckOutcome.PASSED)));
        }
    }

    /** A reference plugin served in-process in {@code served}, tested as {@code tested}. */
    private ComplianceReport referenceServedAs(SpecDialect served, SpecDialect tested) {
        String name = InProcessServerBuilder.generateName();
        grpc.register(ReferencePlugin.start(reference(), "inprocess:" + name, served));
        return ConformanceRunner.of(ConformanceConfig.builder()
                        .endpoint("inprocess:" + name)
                        .dialect(tested)
                        .volumes("vol-0", "vol-1")
                        .volumeGroups("grp-0")
                        .secrets(SECRETS)
                        .build())
                .run();
    }

    @Test
    void anUpstreamHeadPluginIsHeldToHeadsRuleForFieldOne() {
        ComplianceReport asHead = referenceServedAs(SpecDialect.UPSTREAM_2026, SpecDialect.UPSTREAM_2026);
        assertThat(asHead.failed()).isEmpty();
        assertThat(asHead.result(ControllerChecks.FORM_RESERVED_ALONE)
                        .orElseThrow()
                        .outcome())
                .isEqualTo(CheckOutcome.PASSED);
        assertThat(asHead.result(ControllerChecks.FORM_RESERVED_BESIDE)
                        .orElseThrow()
                        .outcome())
                .isEqualTo(CheckOutcome.PASSED);
        assertThat(asHead.result(ControllerChecks.FORM_DEPRECATED)).isEmpty();

        // What 0.1 did to every HEAD plugin: judged by the current revision's rule, it fails the deprecated form.
        ComplianceReport asCurrent = referenceServedAs(SpecDialect.UPSTREAM_2026, SpecDialect.CURRENT);
        assertThat(asCurrent.failed()).extracting(CheckResult::name).containsExactly(ControllerChecks.FORM_DEPRECATED);
        assertThat(asCurrent.failed().get(0).reason()).contains("expected 0 OK, got 3 INVALID_ARGUMENT");
    }

    @Test
    void aPluginThatReadsFieldOneFailsUpstreamHeadsRule() {
        // A current-revision plugin (field 1 deprecated but read) claimed to speak upstream HEAD.
        ComplianceReport report = referenceServedAs(SpecDialect.CURRENT, SpecDialect.UPSTREAM_2026);

        assertThat(report.failed())
                .extracting(CheckResult::name)
                .containsExactlyInAnyOrder(ControllerChecks.FORM_RESERVED_ALONE, ControllerChecks.FORM_RESERVED_BESIDE);
        assertThat(report.compliant()).isFalse();
        assertThat(report.result(ControllerChecks.FORM_RESERVED_ALONE)
                        .orElseThrow()
                        .reason())
                .contains("only in the reserved field 1 (volume_id): no source: expected 3 INVALID_ARGUMENT, got 0 OK");
        assertThat(report.result(ControllerChecks.FORM_RESERVED_BESIDE)
                        .orElseThrow()
                        .reason())
                .contains("expected 0 OK, got 3 INVALID_ARGUMENT");
    }

    @Test
    void aCurrentPluginTestedAsV013IsNotCompliant() {
        // What goes wrong with the wrong dialect: v0.1.3's volume source (field 2) reads as a group to this plugin.
        ReferenceDriver reference = reference();
        ComplianceReport report = ConformanceRunner.of(referenceConfig(reference).build().toBuilder()
                        .driver(reference)
                        .dialect(SpecDialect.CURRENT)
                        .build())
                .run();
        assertThat(report.compliant()).isTrue();
        String name = InProcessServerBuilder.generateName();
        grpc.register(ReferencePlugin.start(reference(), "inprocess:" + name));
        ComplianceReport wrong = ConformanceRunner.of(ConformanceConfig.builder()
                        .endpoint("inprocess:" + name)
                        .dialect(SpecDialect.V0_1_3)
                        .volumes("vol-0", "vol-1")
                        .volumeGroups("grp-0")
                        .secrets(SECRETS)
                        .build())
                .run();
        assertThat(wrong.compliant()).isFalse();
    }
}
