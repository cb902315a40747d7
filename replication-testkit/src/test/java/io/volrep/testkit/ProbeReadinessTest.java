package io.volrep.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.inprocess.InProcessServerBuilder;
import io.volrep.spi.ReplicationServer;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testsupport.GrpcCleanup;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Probe's {@code ready = false} means "still initializing" (CSI's Probe): the kit polls it within the settle timeout,
 * as an orchestrator would, and fails the check only when the plugin never becomes ready. Seen in CI: the Ceph plugin's
 * first readiness read (its first connection to the monitors) took longer than its 5 s on a loaded machine.
 */
class ProbeReadinessTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    private ComplianceReport runAgainst(BooleanSupplier readiness, Duration settleTimeout) {
        ReferenceDriver reference = ReferenceDriver.builder()
                .volumes(2)
                .groups(1)
                .requiredSecrets(Defect.SECRETS)
                .build();
        String name = "probe-" + InProcessServerBuilder.generateName();
        grpc.register(ReplicationServer.builder()
                .driver(reference)
                .volumeGroups(reference)
                .readiness(readiness)
                .listen("inprocess:" + name)
                .build()
                .start());
        return ConformanceRunner.of(ConformanceConfig.builder()
                        .endpoint("inprocess:" + name)
                        .volumes("vol-0", "vol-1")
                        .volumeGroups("grp-0")
                        .secrets(Defect.SECRETS)
                        .settleTimeout(settleTimeout)
                        .build())
                .run();
    }

    @Test
    void aPluginStillInitializingIsProbedAgainUntilItIsReady() {
        AtomicInteger probes = new AtomicInteger();
        ComplianceReport report = runAgainst(() -> probes.incrementAndGet() > 3, Duration.ofSeconds(60));

        CheckResult probe = report.result(IdentityChecks.PROBE).orElseThrow();
        assertThat(probe.outcome()).as("%s", probe).isEqualTo(CheckOutcome.PASSED);
        assertThat(probes).hasValue(4);
        assertThat(probe.waited()).isPositive();
    }

    @Test
    void aPluginThatNeverBecomesReadyFailsNamingTheWait() {
        ComplianceReport report = runAgainst(() -> false, Duration.ofMillis(500));

        CheckResult probe = report.result(IdentityChecks.PROBE).orElseThrow();
        assertThat(probe.outcome()).isEqualTo(CheckOutcome.FAILED);
        assertThat(probe.reason()).contains("Probe answered ready = false").contains("--settle-timeout 500 ms");
    }
}
