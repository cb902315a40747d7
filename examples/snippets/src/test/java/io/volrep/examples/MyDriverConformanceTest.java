package io.volrep.examples;

import io.volrep.api.SpecDialect;
import io.volrep.testkit.ConformanceConfig;
import io.volrep.testkit.ReplicationConformanceSuite;
import java.time.Duration;
import java.util.Map;

// snippet:start suite
public class MyDriverConformanceTest extends ReplicationConformanceSuite {
    @Override
    protected ConformanceConfig config() {
        return ConformanceConfig.builder()
                .driver(new MyDriver()) // served in-process by the real SPI runtime
                // or .endpoint("unix:///tmp/my-plugin.sock")   (any plugin, any language)
                .volumes("vol-a", "vol-b") // existing, replication disabled
                .volumeGroups("vg-1")
                .secrets(Map.of("user", "admin"))
                .resyncTimeout(Duration.ofSeconds(10))
                .healerDriver(new MyHealer()) // NodeHealer, served beside the driver
                .healerVolume("vol-a", "/mnt/vol-a") // or .healerEndpoint("unix:///node/csi-addons.sock")
                .dialect(SpecDialect.CURRENT) // or V0_1_3, V0_1_0 for a legacy plugin
                .build();
    }
}
// snippet:end suite
