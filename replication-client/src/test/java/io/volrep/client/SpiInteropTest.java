package io.volrep.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.volrep.api.HealReport;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.SourceNotFoundException;
import io.volrep.api.SpecDialect;
import io.volrep.api.UnauthenticatedException;
import io.volrep.api.UnimplementedException;
import io.volrep.api.VolumeCapability;
import io.volrep.spi.ReplicationServer;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testkit.reference.ReferencePlugin;
import io.volrep.testsupport.GrpcCleanup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client's dialects, healer and Identity calls against volrep's own server runtime (the SPI serving the
 * reference driver in a legacy revision, a healer driver, the Identity service it derives), on unix sockets.
 */
class SpiInteropTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    static final RetryPolicy FAST = RetryPolicy.spec().toBuilder()
            .initialBackoff(Duration.ofMillis(10))
            .maxBackoff(Duration.ofMillis(50))
            .build();

    @Test
    void eachLegacyDialectAgainstTheRuntimeServingIt(@TempDir Path dir) {
        for (SpecDialect dialect : new SpecDialect[] {SpecDialect.V0_1_3, SpecDialect.V0_1_0}) {
            ReferenceDriver driver = ReferenceDriver.builder()
                    .volumes(1)
                    .resyncCallsUntilReady(2)
                    .build();
            ReplicationServer server = grpc.register(ReplicationServer.builder()
                    .driver(driver)
                    .dialect(dialect)
                    .listen("unix://" + dir.resolve(dialect.name() + ".sock"))
                    .build()
                    .start());
            ReplicationClient client = grpc.register(ReplicationClient.builder()
                    .target(server.address())
                    .retry(FAST)
                    .dialect(dialect)
                    .build());
            client.volume("vol-0").enable().call();
            client.volume("vol-0").demote().call();
            assertThat(client.volume("vol-0")
                            .resync()
                            .awaitReadyBlocking(Duration.ofSeconds(20))
                            .ready())
                    .isTrue();
            client.volume("vol-0").promote().force().call();
            if (dialect.supports(Rpc.GET_VOLUME_REPLICATION_INFO)) {
                assertThat(client.volume("vol-0").info().lastSyncDuration()).isEmpty();
            }
            assertThat(driver.state(ReplicationSource.volume("vol-0")).role()).isEqualTo(ReferenceDriver.Role.PRIMARY);
        }
    }

    @Test
    void healerAndIdentityServedByTheRuntime(@TempDir Path dir) {
        ReplicationServer server = grpc.register(ReplicationServer.builder()
                .healer(r -> {
                    if (r.volumeId().equals("vol-gone")) {
                        throw new SourceNotFoundException("volume vol-gone does not exist");
                    }
                    return r.volumeId().equals("vol-bad")
                            ? HealReport.abnormal("read-only remount")
                            : HealReport.healthy("clean");
                })
                .identity("node.example.com", "1.2.3")
                .listen("unix://" + dir.resolve("node.sock"))
                .build()
                .start());
        ReplicationClient client = grpc.register(
                ReplicationClient.builder().target(server.address()).retry(FAST).build());
        assertThat(client.node().heal("vol-1", Path.of("/mnt/vol-1")).call()).isEqualTo(HealReport.healthy("clean"));
        assertThat(client.node()
                        .heal("vol-bad", Path.of("/" + "d".repeat(4095)))
                        .call()
                        .abnormal())
                .isTrue();
        assertThatThrownBy(
                        () -> client.node().heal("vol-gone", Path.of("/mnt/g")).call())
                .isInstanceOf(SourceNotFoundException.class)
                .hasMessageContaining("vol-gone does not exist");

        assertThat(client.identity().name()).isEqualTo("node.example.com");
        assertThat(client.identity().vendorVersion()).isEqualTo("1.2.3");
        PluginCapabilities caps = client.capabilities();
        assertThat(caps.has(PluginCapabilities.Service.NODE_SERVICE)).isTrue();
        assertThat(caps.volumeReplication()).isFalse();
        assertThat(client.probe().ready()).isTrue();
        // A healer-only plugin has no replication service.
        assertThatThrownBy(() -> client.volume("vol-1").enable().call()).isInstanceOf(UnimplementedException.class);
    }

    @Test
    void referenceHealerAndIdentityOverAUnixSocket(@TempDir Path dir) {
        ReferenceDriver driver = ReferenceDriver.builder()
                .volumes(2)
                .abnormalVolume("vol-1")
                .requiredSecret("user", "admin")
                .build();
        ReplicationServer server = grpc.register(ReferencePlugin.start(driver, "unix://" + dir.resolve("ref.sock")));
        ReplicationClient client = grpc.register(ReplicationClient.builder()
                .target(server.address())
                .retry(FAST)
                .secrets(SecretsProvider.of(Map.of("user", "admin")))
                .build());
        HealReport healthy = client.node()
                .heal("vol-0", Path.of("/mnt/vol-0"))
                .stagingPath(Path.of("/staging/vol-0"))
                .capability(VolumeCapability.mount("ext4", VolumeCapability.AccessMode.SINGLE_NODE_WRITER))
                .call();
        assertThat(healthy.abnormal()).isFalse();
        assertThat(healthy.message()).contains("vol-0").contains("/staging/vol-0");
        HealReport abnormal = client.node().heal("vol-1", Path.of("/mnt/vol-1")).call();
        assertThat(abnormal.abnormal()).isTrue();
        assertThatThrownBy(
                        () -> client.node().heal("vol-9", Path.of("/mnt/vol-9")).call())
                .isInstanceOf(SourceNotFoundException.class);
        assertThatThrownBy(() -> client.node()
                        .heal("vol-0", Path.of("/mnt/vol-0"))
                        .secrets(Map.of("user", "intruder"))
                        .call())
                .isInstanceOf(UnauthenticatedException.class);

        assertThat(client.identity().name()).isNotBlank();
        assertThat(client.capabilities().volumeReplication()).isTrue();
        assertThat(client.probe().ready()).isTrue();
    }
}
