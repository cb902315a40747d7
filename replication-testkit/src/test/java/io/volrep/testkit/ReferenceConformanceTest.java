package io.volrep.testkit;

import io.volrep.testkit.reference.ReferenceDriver;
import java.util.Map;

/**
 * The suite as a Java vendor runs it: extend {@link ReplicationConformanceSuite} and supply a driver (here the
 * reference) plus fixtures. Surefire runs its checks as ordinary dynamic tests.
 */
class ReferenceConformanceTest extends ReplicationConformanceSuite {
    @Override
    protected ConformanceConfig config() {
        return ConformanceConfig.builder()
                .driver(ReferenceDriver.builder().volumes(2).groups(1).requiredSecret("user", "admin").build())
                .volumes("vol-0", "vol-1")
                .volumeGroups("grp-0")
                .secrets(Map.of("user", "admin"))
                .build();
    }
}
