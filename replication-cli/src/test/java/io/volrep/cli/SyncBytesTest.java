package io.volrep.cli;

import static io.volrep.cli.CallCommandsTest.volrep;
import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.api.ReplicationSource;
import io.volrep.cli.CallCommandsTest.Run;
import io.volrep.client.ReplicationClient;
import io.volrep.spi.ReplicationServer;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testkit.reference.ReferencePlugin;
import io.volrep.testsupport.GrpcCleanup;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code last_sync_bytes = 0} is a value, {@code 0 B}, wherever the CLI prints a sync (info, reconcile, failover), over
 * real unix sockets against reference plugins that report a sync of zero bytes (nothing changed since the last one).
 */
class SyncBytesTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    private static ReferenceDriver zeroBytes(String... volumes) {
        ReferenceDriver.Builder b = ReferenceDriver.builder().lastSyncBytes(0);
        for (String v : volumes) {
            b.volume(v);
        }
        return b.build();
    }

    @Test
    void theClientReadsZeroBytesAsAValue(@TempDir Path dir) {
        ReplicationServer server =
                grpc.register(ReferencePlugin.start(zeroBytes("vol-0"), "unix://" + dir.resolve("p.sock")));
        ReplicationClient client = grpc.register(
                ReplicationClient.builder().target(server.address()).build());
        client.volume("vol-0").enable().call();
        assertThat(client.volume("vol-0").info().lastSyncBytes()).hasValue(0);
    }

    @Test
    void infoAndReconcilePrintZeroBytes(@TempDir Path dir) {
        ReplicationServer server =
                grpc.register(ReferencePlugin.start(zeroBytes("vol-0"), "unix://" + dir.resolve("p.sock")));
        Run reconcile = volrep("reconcile", "--endpoint", server.address(), "--volume", "vol-0", "--state", "primary");
        assertThat(reconcile.exit()).as(reconcile.all()).isZero();
        assertThat(reconcile.out()).containsPattern("last sync:  \\d{4}-\\S+, took PT0.25S, 0 B\\R");

        Run info = volrep("info", "--endpoint", server.address(), "--volume", "vol-0");
        assertThat(info.exit()).as(info.all()).isZero();
        assertThat(info.out())
                .contains("last sync bytes:    0 B")
                .doesNotContain("not reported")
                .contains("last sync duration: PT0.25S");
    }

    @Test
    void theFailoverReportShowsBsFirstSyncWithItsBytes(@TempDir Path dir) {
        ReferenceDriver a = zeroBytes("vol-0");
        ReferenceDriver b = zeroBytes("vol-0");
        ReplicationServer siteA = grpc.register(ReferencePlugin.start(a, "unix://" + dir.resolve("a.sock")));
        ReplicationServer siteB = grpc.register(ReferencePlugin.start(b, "unix://" + dir.resolve("b.sock")));
        assertThat(volrep("reconcile", "--endpoint", siteA.address(), "--volume", "vol-0", "--state", "primary")
                        .exit())
                .isZero();
        assertThat(volrep("reconcile", "--endpoint", siteB.address(), "--volume", "vol-0", "--state", "secondary")
                        .exit())
                .isZero();

        Run run = volrep(
                "failover",
                "--from",
                siteA.address(),
                "--to",
                siteB.address(),
                "--volume",
                "vol-0",
                "--assume-same-ids",
                "--timeout",
                "5s",
                "--demotion-wait",
                "10s");

        assertThat(run.exit()).as(run.all()).isZero();
        assertThat(run.out()).containsPattern("  last sync \\(site B\\): \\d{4}-\\S+, took PT0.25S, 0 B\\R");
        assertThat(b.state(ReplicationSource.volume("vol-0")).role()).isEqualTo(ReferenceDriver.Role.PRIMARY);
    }
}
