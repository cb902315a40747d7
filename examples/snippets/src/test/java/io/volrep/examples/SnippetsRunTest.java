package io.volrep.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.volrep.api.ReplicationSource;
import io.volrep.api.SpecDialect;
import io.volrep.client.ReplicationClient;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testkit.reference.ReferenceDriver.Role;
import io.volrep.testkit.reference.ReferencePair;
import io.volrep.testkit.reference.ReferencePlugin;
import io.volrep.testsupport.GrpcCleanup;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every snippet of the orchestrator guide (and of docs/compatibility.md) run as written against the reference
 * plugin that {@code volrep serve-reference} serves (16 volumes {@code vol-0}.., 2 groups {@code grp-0}..; with
 * {@code --peer-listen} two sites of one replication pair with the same ids), over a unix socket: a snippet that
 * compiles but fails against it (a source never enabled, ids the plugin does not have) fails here. Each test
 * starts the state the guide's text describes before the snippet, runs it, and checks what the plugin was left in.
 */
class SnippetsRunTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    @TempDir
    Path dir;

    final OrchestratorExamples examples = new OrchestratorExamples();

    /** {@code volrep serve-reference --listen unix://DIR/NAME.sock}, with the builder's extras. */
    private String serve(ReferenceDriver driver, String name, SpecDialect dialect) {
        String endpoint = "unix://" + dir.resolve(name + ".sock");
        grpc.register(ReferencePlugin.serverBuilder(driver)
                .dialect(dialect)
                .listen(endpoint)
                .build()
                .start());
        return endpoint;
    }

    private static ReferenceDriver.Builder reference() {
        return ReferenceDriver.builder()
                .volumes(ReferencePlugin.DEFAULT_VOLUMES)
                .groups(ReferencePlugin.DEFAULT_GROUPS);
    }

    private ReplicationClient client(String endpoint) {
        return grpc.register(ReplicationClient.builder().target(endpoint).build());
    }

    @Test
    void quickstart() {
        ReferenceDriver driver = reference().build();

        examples.quickstart(serve(driver, "ref", SpecDialect.CURRENT));

        ReferenceDriver.SourceState vol0 = driver.state(ReplicationSource.volume("vol-0"));
        assertThat(vol0.enabled()).isTrue();
        assertThat(vol0.role()).isEqualTo(Role.PRIMARY);
        assertThat(vol0.parameters()).containsEntry("mirroringMode", "snapshot");
    }

    @Test
    void retryPolicy() {
        examples.retryPolicy(Clock.systemUTC(), new Random(1));
    }

    @Test
    void failoverWalkthrough() throws Exception {
        // "Site A holds the primary of volume group grp-0; site B its secondary."
        ReferencePair pair = reference().buildPair();
        String a = serve(pair.siteA(), "site-a", SpecDialect.CURRENT);
        String b = serve(pair.siteB(), "site-b", SpecDialect.CURRENT);
        client(a).volumeGroup("grp-0").enable().call();

        examples.failover(a, b);

        assertThat(pair.siteB().state(ReplicationSource.volumeGroup("grp-0")).role())
                .isEqualTo(Role.PRIMARY);
        assertThat(pair.siteA().state(ReplicationSource.volumeGroup("grp-0")).role())
                .isEqualTo(Role.SECONDARY);
    }

    @Test
    void reconcile() throws Exception {
        ReferenceDriver driver = reference().build();
        String endpoint = serve(driver, "ref", SpecDialect.CURRENT);
        List<Instant> lastSync = new ArrayList<>();
        examples.status = lastSync::add;

        examples.reconcile(client(endpoint)).get(2, TimeUnit.MINUTES);

        assertThat(lastSync).as("the status's last sync time").hasSize(1);

        assertThat(driver.state(ReplicationSource.volume("vol-0")).role()).isEqualTo(Role.PRIMARY);
        ReferenceDriver.SourceState grp0 = driver.state(ReplicationSource.volumeGroup("grp-0"));
        assertThat(grp0.enabled()).isTrue();
        assertThat(grp0.role()).isEqualTo(Role.SECONDARY);
        assertThat(grp0.parameters()).containsEntry("schedulingInterval", "1m");
    }

    @Test
    void twoSiteFailover() {
        // "Site A's plugin holds the primaries; site B's the secondaries."
        ReferencePair pair = reference().buildPair();
        String a = serve(pair.siteA(), "site-a", SpecDialect.CURRENT);
        String b = serve(pair.siteB(), "site-b", SpecDialect.CURRENT);
        try (ReplicationClient siteA = ReplicationClient.builder().target(a).build()) {
            siteA.volume("vol-0").enable().call();
            siteA.volumeGroup("grp-0").enable().call();
        }

        examples.twoSiteFailover(a, b);

        for (ReplicationSource s : List.of(ReplicationSource.volume("vol-0"), ReplicationSource.volumeGroup("grp-0"))) {
            assertThat(pair.siteB().state(s).role()).as("%s on site B", s).isEqualTo(Role.PRIMARY);
            assertThat(pair.siteA().state(s).role()).as("%s on site A", s).isEqualTo(Role.SECONDARY);
        }
    }

    @Test
    void heal() {
        ReferenceDriver driver = reference().abnormalVolume("vol-3").build();
        List<String> warnings = new ArrayList<>();
        examples.events = (pod, reason, message) -> warnings.add(reason + ": " + message);

        examples.heal(serve(driver, "node", SpecDialect.CURRENT));

        assertThat(warnings).singleElement().asString().startsWith("VolumeAbnormal: ");
    }

    @Test
    void legacyAndCompatibility() {
        ReferenceDriver driver = reference().build();
        String endpoint = serve(driver, "legacy", SpecDialect.V0_1_3);

        examples.legacy(endpoint);
        examples.compatibility(endpoint);

        assertThat(driver.state(ReplicationSource.volume("vol-0")).enabled()).isTrue();
        assertThat(driver.state(ReplicationSource.volume("vol-1")).enabled()).isTrue();
    }

    @Test
    void identity() {
        ReferenceDriver driver = reference().build();

        examples.identity(client(serve(driver, "ref", SpecDialect.CURRENT)));
    }

    @Test
    void volumeGroups() {
        ReferenceDriver driver = reference().build();

        examples.volumeGroups(client(serve(driver, "ref", SpecDialect.CURRENT)));
    }

    @Test
    void volumeGroupCapabilities() {
        ReferenceDriver driver = reference().build();
        String endpoint = serve(driver, "ref", SpecDialect.CURRENT);
        client(endpoint).volumeGroups().modify("grp-1").volumes("vol-4").call();

        examples.volumeGroupCapabilities(client(endpoint));

        assertThat(client(endpoint).volumeGroups().get("grp-1").call().volumeIds())
                .isEmpty();
    }

    @Test
    void clientMetrics() {
        try (ReplicationClient client =
                new MetricsExamples().client(new SimpleMeterRegistry(), ObservationRegistry.NOOP)) {
            assertThat(client).isNotNull();
        }
    }
}
