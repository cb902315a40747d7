package io.volrep.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.api.ReplicationSource;
import io.volrep.spi.ReplicationServer;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testkit.reference.ReferencePlugin;
import io.volrep.testsupport.GrpcCleanup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The suite's budget: a plugin over a unix socket with 16 volumes and 2 groups is judged in under a minute. */
class ConformanceBudgetTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    @Test
    void sixteenVolumesAndTwoGroupsOverAUnixSocketUnderAMinuteEndingWhereTheyStarted(@TempDir Path dir) {
        ReferenceDriver reference = ReferenceDriver.builder()
                .volumes(16)
                .groups(2)
                .requiredSecret("user", "admin")
                .build();
        List<String> volumes = IntStream.range(0, 16).mapToObj(i -> "vol-" + i).toList();
        ReplicationServer server = grpc.register(ReferencePlugin.start(reference, "unix://" + dir.resolve("ref.sock")));
        ComplianceReport report = ConformanceRunner.of(ConformanceConfig.builder()
                        .endpoint(server.address())
                        .volumes(volumes)
                        .volumeGroups("grp-0", "grp-1")
                        .secrets(Map.of("user", "admin"))
                        .healerVolume("vol-0", "/var/lib/volrep/vol-0")
                        .build())
                .run();
        System.out.println(report.statement());

        assertThat(report.failed()).isEmpty();
        assertThat(report.duration()).isLessThan(Duration.ofSeconds(60));
        // 42 plain, 18 forced, 28 authentication, 2 destination-consistency, 2 last-sync-time checks report the
        // exploration.
        assertThat(report.walkChecks()).isEqualTo(92);
        assertThat(report.calls()).isGreaterThan(1000); // counted: the statement reports it
        assertThat(report.statement())
                .contains("lifecycle exploration: 3 states x 24 actions x 2 source kinds," + " 4 histories, ")
                .contains(" seed 0, ")
                .contains(": 92 checks; ");
        for (ReplicationSource source : reference.sources()) {
            assertThat(reference.state(source).enabled())
                    .as("%s left enabled", source)
                    .isFalse();
        }
    }
}
