package io.volrep.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.api.ReplicationDestination;
import io.volrep.api.ReplicationSource;
import io.volrep.api.ReplicationSource.Kind;
import io.volrep.api.Rpc;
import io.volrep.api.SpecDialect;
import io.volrep.api.UnavailableException;
import io.volrep.spi.DestinationRequest;
import io.volrep.spi.DisableRequest;
import io.volrep.spi.EnableRequest;
import io.volrep.spi.ForwardingReplicationDriver;
import io.volrep.spi.ReplicationDriver;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testkit.reference.ReferencePair;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The suite against plugins with one defect each, and against correct ones. */
class ConformanceSelfTest {

    @ParameterizedTest
    @EnumSource(Defect.class)
    void eachDefectIsFailedByItsNamedCheck(Defect defect) {
        ComplianceReport report = ConformanceRunner.of(defect.target().build()).run();

        assertThat(report.result(defect.caughtBy()))
                .as(
                        "check %s for defect %s; failed: %s",
                        defect.caughtBy(),
                        defect,
                        report.failed().stream().map(CheckResult::name).toList())
                .hasValueSatisfying(r -> Caught.byOrBecause(report, r));
        assertThat(report.compliant())
                .as(
                        "compliant; failed: %s",
                        report.failed().stream()
                                .map(r -> r.name() + ": " + r.reason())
                                .toList())
                .isEqualTo(!defect.breaksCompliance());
        assertThat(report.statement()).startsWith(defect.breaksCompliance() ? "NOT COMPLIANT" : "COMPLIANT");
    }

    @Test
    void enableUnimplementedIsAFailureNotANotImplemented() {
        ComplianceReport report = ConformanceRunner.of(
                        Defect.ENABLE_UNIMPLEMENTED.target().build())
                .run();
        assertThat(report.result(Defect.ENABLE_UNIMPLEMENTED.caughtBy())
                        .orElseThrow()
                        .reason())
                .contains("expected 0 OK, got 12 UNIMPLEMENTED")
                .contains("does not allow EnableVolumeReplication to be unimplemented");
    }

    @Test
    void referencePairPassesEveryCheckAndBothSitesEndWhereTheyStarted() {
        // Two sites with real storage's windows, scaled down: promotes refused for a while after the peer's demote,
        // Info 5 for a while after an enable or a promote. Every check runs (none NOT RUN) and passes.
        ReferencePair pair = ReferenceDriver.builder()
                .volumes(2)
                .groups(1)
                .requiredSecret("user", "admin")
                .demotionWindow(Duration.ofMillis(30))
                .firstSyncDelay(Duration.ofMillis(30))
                .buildPair();
        ComplianceReport report = ConformanceRunner.of(
                        HealerIdentityDialectConformanceTest.withEveryHealerInput(ConformanceConfig.builder()
                                        .driver(pair.siteA())
                                        .peerDriver(pair.siteB())
                                        .healerDriver(pair.siteA())
                                        .volumeGroupDriver(pair.siteA())
                                        .volumes("vol-0", "vol-1")
                                        .volumeGroups("grp-0")
                                        .secrets(Map.of("user", "admin")))
                                .build())
                .run();

        assertThat(report.failed())
                .as(
                        "failed: %s",
                        report.failed().stream()
                                .map(r -> r.name() + ": " + r.reason())
                                .toList())
                .isEmpty();
        assertThat(report.compliant()).isTrue();
        assertThat(report.results())
                .allSatisfy(r -> assertThat(r.outcome()).as(r.name()).isEqualTo(CheckOutcome.PASSED));
        assertThat(report.count(Requirement.REQUIRED, CheckOutcome.PASSED)).isGreaterThanOrEqualTo(150);
        assertThat(report.count(Requirement.OPTIONAL, CheckOutcome.PASSED)).isGreaterThanOrEqualTo(8);
        assertThat(report.results())
                .anySatisfy(r -> assertThat(r.waited()).isPositive()); // the windows were waited out
        for (ReferenceDriver site : List.of(pair.siteA(), pair.siteB())) {
            for (ReplicationSource source : site.sources()) {
                assertThat(site.state(source).enabled())
                        .as("%s left enabled", source)
                        .isFalse();
                assertThat(site.state(source).role()).isEqualTo(ReferenceDriver.Role.PRIMARY);
            }
        }
    }

    /**
     * In a revision whose read-only calls cannot tell a secondary from a volume with replication disabled (v0.1.3:
     * Info refuses both, and ResyncVolume is not read-only there), the kit still drives the failover between the sites
     * (a promote is refused on the latter) but sends no enable to site B's replica: it cannot first observe it
     * secondary. (v0.1.0 observes with ResyncVolume, which tells them apart.)
     */
    @ParameterizedTest
    @EnumSource(SpecDialect.class)
    void referencePairPassesTheTwoSiteChecksInEveryDialect(SpecDialect dialect) {
        ReferencePair pair = ReferenceDriver.builder()
                .volumes(2)
                .groups(1)
                .requiredSecret("user", "admin")
                .buildPair();
        AtomicInteger enablesOnB = new AtomicInteger();
        ForwardingReplicationDriver siteB = new ForwardingReplicationDriver(pair.siteB()) {
            @Override
            public void enable(EnableRequest r) {
                enablesOnB.incrementAndGet();
                super.enable(r);
            }
        };
        ComplianceReport report = ConformanceRunner.of(ConformanceConfig.builder()
                        .driver(pair.siteA())
                        .peerDriver(siteB)
                        .volumeGroupDriver(pair.siteA())
                        .dialect(dialect)
                        .volumes("vol-0", "vol-1")
                        .volumeGroups("grp-0")
                        .secrets(Map.of("user", "admin"))
                        .build())
                .run();

        assertThat(report.failed())
                .as(
                        "failed: %s",
                        report.failed().stream()
                                .map(r -> r.name() + ": " + r.reason())
                                .toList())
                .isEmpty();
        assertThat(report.results())
                .filteredOn(r -> r.id().startsWith("two-sites/"))
                .filteredOn(r ->
                        dialect.supports(ReplicationSource.Kind.VOLUME_GROUP) || r.id().startsWith("two-sites/volume/"))
                .isNotEmpty()
                .allSatisfy(r -> assertThat(r.outcome()).as(r.id()).isEqualTo(CheckOutcome.PASSED));
        assertThat(enablesOnB.get() > 0)
                .as("enables sent to site B's replicas: %s", enablesOnB.get())
                .isEqualTo(dialect != SpecDialect.V0_1_3);
    }

    @Test
    void withoutAPeerTheTwoSiteChecksAreNotRunNeverFailedNorPassed() {
        ReferenceDriver reference = ReferenceDriver.builder()
                .volumes(2)
                .groups(1)
                .requiredSecret("user", "admin")
                .build();
        ComplianceReport report = ConformanceRunner.of(
                        HealerIdentityDialectConformanceTest.withEveryHealerInput(ConformanceConfig.builder()
                                        .driver(reference)
                                        .healerDriver(reference)
                                        .volumeGroupDriver(reference)
                                        .volumes("vol-0", "vol-1")
                                        .volumeGroups("grp-0")
                                        .secrets(Map.of("user", "admin")))
                                .build())
                .run();

        assertThat(report.failed()).isEmpty();
        assertThat(report.compliant()).isTrue();
        assertThat(report.notRun())
                .extracting(CheckResult::id)
                .contains(
                        "two-sites/volume/round-trip",
                        "two-sites/group/round-trip",
                        "two-sites/volume/promote-while-peer-primary");
        assertThat(report.notRun())
                .extracting(CheckResult::name)
                .contains(ControllerChecks.RESYNC_READY, ControllerChecks.LIFECYCLE + " [volume vol-0]");
        assertThat(report.notRun()).allSatisfy(r -> assertThat(r.reason()).startsWith("NOT RUN: needs the peer site"));
        assertThat(report.statement())
                .contains("not run (they need a peer site: --peer-endpoint): "
                        + report.notRun().size() + " checks");
        for (ReplicationSource source : reference.sources()) {
            assertThat(reference.state(source).enabled())
                    .as("%s left enabled", source)
                    .isFalse();
        }
    }

    @Test
    void unimplementedOptionalRpcsAreReportedAsNotImplementedNeverPassed() {
        // Only enable and disable: promote, demote, resync and info answer 12 UNIMPLEMENTED (the SPI default).
        SpecDriver minimal = SpecDriver.standard();
        ReplicationDriver onlyEnableDisable = new ReplicationDriver() {
            @Override
            public void enable(EnableRequest r) {
                minimal.enable(r);
            }

            @Override
            public void disable(DisableRequest r) {
                minimal.disable(r);
            }
        };
        ComplianceReport report = ConformanceRunner.of(ConformanceConfig.builder()
                        .driver(onlyEnableDisable)
                        .volumes("vol-0")
                        .secrets(Defect.SECRETS)
                        .settleTimeout(Duration.ofMillis(300))
                        .build())
                .run();

        assertThat(report.failed()).isEmpty();
        assertThat(report.compliant()).isTrue();
        // The volume group service is optional too: a plugin without it is told so once, by the service's name.
        assertThat(report.notImplementedRpcs())
                .containsExactlyInAnyOrder(
                        "PromoteVolume",
                        "DemoteVolume",
                        "ResyncVolume",
                        "GetVolumeReplicationInfo",
                        "GetReplicationDestinationInfo",
                        "volumegroup.Controller");
        assertThat(report.result(ControllerChecks.LIFECYCLE + " [volume vol-0]")
                        .orElseThrow()
                        .outcome())
                .isEqualTo(CheckOutcome.NOT_RUN); // no peer site; with one it would be not implemented
        assertThat(report.result(Defect.walk(Rpc.DEMOTE_VOLUME, Kind.VOLUME, LifecycleModel.State.PRIMARY))
                        .orElseThrow()
                        .outcome())
                .isEqualTo(CheckOutcome.NOT_IMPLEMENTED);
        assertThat(report.result(Defect.walk(Rpc.ENABLE_VOLUME_REPLICATION, Kind.VOLUME, LifecycleModel.State.DISABLED))
                        .orElseThrow()
                        .outcome())
                .isEqualTo(CheckOutcome.PASSED);
        assertThat(report.statement())
                .contains("not implemented (allowed by the spec)")
                .contains("GetVolumeReplicationInfo, PromoteVolume, ResyncVolume");
    }

    @Test
    void aDestinationThatIsNotKnownForAWhileAfterEnableIsCompliant() {
        // Correct: 14 UNAVAILABLE for the first two asks after each Enable (the peer site has not answered yet).
        Map<String, Integer> asks = new ConcurrentHashMap<>();
        SpecDriver transientDestination = new SpecDriver(Defect.SECRETS, Defect.IDS) {
            @Override
            public void enable(EnableRequest r) {
                super.enable(r);
                asks.putIfAbsent(r.source().id(), 0);
            }

            @Override
            public void disable(DisableRequest r) {
                super.disable(r);
                asks.remove(r.source().id());
            }

            @Override
            public ReplicationDestination destination(DestinationRequest r) {
                enabled(r.source(), r.secrets());
                if (asks.merge(r.source().id(), 1, Integer::sum) <= 2) {
                    throw new UnavailableException("the peer site has not reported the destination yet");
                }
                return super.destination(r);
            }
        };
        ComplianceReport report = ConformanceRunner.of(
                        Defect.driver(transientDestination).build())
                .run();

        assertThat(report.failed())
                .as(
                        "failed: %s",
                        report.failed().stream()
                                .map(r -> r.name() + ": " + r.reason())
                                .toList())
                .isEmpty();
        assertThat(report.compliant()).isTrue();
        assertThat(report.result(ControllerChecks.DESTINATION_GROUP)
                        .orElseThrow()
                        .outcome())
                .isEqualTo(CheckOutcome.PASSED);
    }

    @Test
    void aDestinationNeverKnownFailsSayingWhy() {
        ComplianceReport report = ConformanceRunner.of(
                        Defect.DESTINATION_NEVER_KNOWN.target().build())
                .run();
        assertThat(report.result(ControllerChecks.DESTINATION_VOLUME)
                        .orElseThrow()
                        .reason())
                .contains("expected 0 OK, got 14 UNAVAILABLE")
                .contains("still 14 UNAVAILABLE after waiting")
                .contains("--settle-timeout 300 ms")
                .contains("which is transient");
    }

    @Test
    void unreachableTargetIsNotCompliant() {
        ComplianceReport report = ConformanceRunner.of(ConformanceConfig.builder()
                        .endpoint("unix:///nonexistent/volrep.sock")
                        .volumes("vol-0")
                        .callTimeout(Duration.ofMillis(500))
                        .build())
                .run();
        assertThat(report.compliant()).isFalse();
        assertThat(report.failed()).isNotEmpty();
    }

    @Test
    void missingFixturesSkipWithAReason() {
        ComplianceReport report = ConformanceRunner.of(ConformanceConfig.builder()
                        .driver(new SpecDriver(Map.of(), "vol-0"))
                        .volumes("vol-0")
                        .build())
                .run();
        assertThat(report.compliant()).isTrue();
        CheckResult secrets = report.result(Defect.auth(Rpc.PROMOTE_VOLUME, Kind.VOLUME, "wrong"))
                .orElseThrow();
        assertThat(secrets.outcome()).isEqualTo(CheckOutcome.SKIPPED);
        assertThat(secrets.reason()).contains("no secrets configured");
        assertThat(report.result(ControllerChecks.LIFECYCLE + " [volume group]")
                        .orElseThrow()
                        .reason())
                .contains("no volume groups configured");
    }

    @Test
    void suiteBodyTakesUnderTwoSecondsAgainstTheInProcessReference() {
        ReferenceDriver reference = ReferenceDriver.builder()
                .volumes(4)
                .groups(1)
                .requiredSecret("user", "admin")
                .build();
        ConformanceConfig config = ConformanceConfig.builder()
                .driver(reference)
                .healerDriver(reference)
                .volumeGroupDriver(reference)
                .volumes("vol-0", "vol-1", "vol-2", "vol-3")
                .volumeGroups("grp-0")
                .secrets(Map.of("user", "admin"))
                .healerVolume("vol-0", "/var/lib/volrep/vol-0")
                .build();
        ConformanceRunner.of(config).run(); // warm-up: class loading, JIT
        ComplianceReport report = ConformanceRunner.of(config).run();
        assertThat(report.compliant()).isTrue();
        assertThat(report.duration()).isLessThan(Duration.ofSeconds(2));
    }
}
