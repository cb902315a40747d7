package io.volrep.examples;

import io.volrep.testkit.ConformanceConfig;
import io.volrep.testkit.ReplicationConformanceSuite;
import java.util.Map;

// snippet:start suite
public class AcmeConformanceTest extends ReplicationConformanceSuite {
    @Override
    protected ConformanceConfig config() {
        return ConformanceConfig.builder()
                .driver(new AcmeDriver(TestArrays.acme())) // or .endpoint("unix:///csi/csi-addons.sock")
                .volumes("vol-a", "vol-b")
                .volumeGroups("grp-a")
                .secrets(Map.of("user", "ci", "password", System.getenv("ACME_PASSWORD")))
                .build();
    }
}
// snippet:end suite

/** Where the docs' conformance test gets its test array. */
final class TestArrays {
    private TestArrays() {}

    static AcmeArray acme() {
        throw new UnsupportedOperationException("a stand-in");
    }
}
