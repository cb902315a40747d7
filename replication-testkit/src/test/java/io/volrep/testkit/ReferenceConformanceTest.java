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
        ReferenceDriver reference = ReferenceDriver.builder()
                .volumes(2)
                .groups(1)
                .requiredSecret("user", "admin")
                .build();
        return ConformanceConfig.builder()
                .driver(reference)
                .healerDriver(reference) // NodeHealer served beside it
                .healerVolume("vol-0", "/var/lib/volrep/vol-0")
                .volumes("vol-0", "vol-1")
                .volumeGroups("grp-0")
                .secrets(Map.of("user", "admin"))
                .build();
    }
}
