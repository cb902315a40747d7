package io.volrep.examples;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.testkit.Addressing;
import io.volrep.testkit.Check;
import io.volrep.testkit.CheckGroup;
import io.volrep.testkit.ComplianceReport;
import io.volrep.testkit.ConformanceConfig;
import io.volrep.testkit.ConformanceRunner;
import io.volrep.testkit.Needs;
import io.volrep.testkit.Requirement;
import io.volrep.testkit.fake.FakePlugin;
import io.volrep.testkit.fake.FakePluginExtension;
import io.volrep.testkit.fake.InfoViolation;
import io.volrep.testkit.fake.RecordedCall;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Java snippets of docs/vendor-ci.md, compiled; {@code VendorCiSnippetsRunTest} runs the runner against the
 * reference plugin and the fake's test with a controller built on the client.
 */
@SuppressWarnings("unused")
class VendorCiExamples {
    /** The orchestrator under test in the docs. */
    interface Controller {
        void reconcile(String endpoint);
    }

    Controller myController;

    boolean runner(ConformanceConfig config) {
        // snippet:start runner
        ComplianceReport report = ConformanceRunner.of(config)
                .progress(new PrintWriter(System.out, true, UTF_8))
                .reportsDir(Path.of("target/conformance"))
                .run();
        System.out.println(report.statement());
        boolean ok = report.compliant();
        // snippet:end runner
        return ok;
    }

    CheckGroup extending() {
        // snippet:start check
        Check enableTwice = Check.builder()
                .id("acme/volume/enable-twice")
                .name("Acme: EnableVolumeReplication twice -> 0 OK, then primary")
                .requirement(Requirement.OPTIONAL)
                .hint("if this fails, check that the array's enable is idempotent")
                .needs(Needs.volume()) // holds one fixture volume; checks holding others run beside it
                .body(ctx -> {
                    ctx.sequential(); // one call at a time: an ABORTED that outlives the settle timeout is a lock
                    Addressing volume = ctx.volume();
                    ctx.expect(ctx.call(Rpc.ENABLE_VOLUME_REPLICATION, volume), StatusCode.OK);
                    ctx.expect(ctx.call(Rpc.ENABLE_VOLUME_REPLICATION, volume), StatusCode.OK);
                    ctx.expect(ctx.call(Rpc.GET_VOLUME_REPLICATION_INFO, volume), StatusCode.OK, "Info after it");
                }) // after the body, the suite disables what the check enabled
                .build();
        CheckGroup acme = CheckGroup.of("Acme", config -> List.of(enableTwice));
        // snippet:end check
        return acme;
    }

    // snippet:start fake
    @RegisterExtension
    static final FakePluginExtension fake = new FakePluginExtension(
            () -> FakePlugin.builder().volumes(2).groups(1).requiredSecret("user", "admin"));
    // .listen("unix:///tmp/x/csi-addons.sock") to serve another process

    @Test
    void retriesAbortedPromotes(FakePlugin plugin) {
        plugin.failNext(Rpc.PROMOTE_VOLUME, 2, StatusCode.ABORTED); // then the real answer
        plugin.failNext(Rpc.DEMOTE_VOLUME, 1, StatusCode.UNAVAILABLE, Duration.ofMillis(200)); // grpc-retry-pushback-ms
        plugin.latency(Rpc.RESYNC_VOLUME, Duration.ofMillis(50));
        plugin.violateInfo(InfoViolation.MISSING_LAST_SYNC_TIME); // below the runtime's checks

        myController.reconcile(plugin.address());

        assertThat(plugin.calls(Rpc.PROMOTE_VOLUME))
                .extracting(RecordedCall::code)
                .containsExactly(StatusCode.ABORTED, StatusCode.ABORTED, StatusCode.OK);
        assertThat(plugin.calls().get(0).request()).doesNotContain("admin"); // secrets masked: ***
    }
    // snippet:end fake
}
