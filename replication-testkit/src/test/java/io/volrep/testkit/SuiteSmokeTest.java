package io.volrep.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SuiteSmokeTest {
    @Test
    void specDriverIsCompliant() {
        ConformanceConfig config = ConformanceConfig.builder().driver(SpecDriver.standard())
                .volumes("vol-0", "vol-1").volumeGroups("grp-0").secrets(Map.of("user", "admin")).build();
        ComplianceReport report = ConformanceRunner.builder(config).progress(new PrintWriter(System.out, true)).run();
        System.out.println(report.statement());
        assertThat(report.failed()).isEmpty();
    }
}
