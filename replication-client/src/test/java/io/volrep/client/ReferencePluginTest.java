package io.volrep.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.volrep.api.PreconditionFailedException;
import io.volrep.api.ProtocolViolationException;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.api.UnauthenticatedException;
import io.volrep.spi.ReplicationServer;
import io.volrep.testkit.fake.FakePlugin;
import io.volrep.testkit.fake.InfoViolation;
import io.volrep.testkit.fake.RecordedCall;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testkit.reference.ReferencePlugin;
import io.volrep.testsupport.GrpcCleanup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The client against the testkit's reference plugin and fault-injecting fake (the SPI runtime serving them). */
class ReferencePluginTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    @Test
    void failoverWalkthroughOverAUnixSocket(@TempDir Path dir) throws Exception {
        ReferenceDriver siteA = ReferenceDriver.builder()
                .volumes(1)
                .groups(1)
                .requiredSecret("user", "admin")
                .build();
        ReferenceDriver siteB = ReferenceDriver.builder()
                .volumes(1)
                .groups(1)
                .requiredSecret("user", "admin")
                .build();
        ReplicationServer a = grpc.register(ReferencePlugin.start(siteA, "unix://" + dir.resolve("a.sock")));
        ReplicationServer b = grpc.register(ReferencePlugin.start(siteB, "inprocess:site-b-" + System.nanoTime()));
        ReplicationClient clientA = grpc.register(client(a.address()));
        ReplicationClient clientB = grpc.register(client(b.address()));
        clientA.volumeGroup("grp-0")
                .enable()
                .parameter("schedulingInterval", "1m")
                .call();
        clientB.volumeGroup("grp-0").enable().call();
        clientA.volumeGroup("grp-0").promote().call();
        ReplicationInfo before = clientA.volumeGroup("grp-0").info();
        assertThat(before.lastSyncTime()).isNotNull();

        // Failover: demote on A, promote on B, resync A, wait until it is ready.
        ResyncStatus ready = clientA.volumeGroup("grp-0")
                .demote()
                .callAsync()
                .thenCompose(v -> clientB.volumeGroup("grp-0").promote().force().callAsync())
                .thenCompose(v -> clientA.volumeGroup("grp-0").resync().awaitReady(Duration.ofSeconds(30)))
                .get(5, TimeUnit.MINUTES);
        assertThat(ready.ready()).isTrue();
        assertThat(siteA.state(ReplicationSource.volumeGroup("grp-0")).role())
                .isEqualTo(ReferenceDriver.Role.SECONDARY);
        assertThat(clientB.volumeGroup("grp-0").info().lastSyncTime()).isNotNull();

        // The plugin's own FAILED_PRECONDITION: info on the secondary.
        assertThatThrownBy(() -> clientA.volumeGroup("grp-0").info())
                .isInstanceOfSatisfying(PreconditionFailedException.class, e -> {
                    assertThat(e.attempts()).isEqualTo(1);
                    assertThat(e.precondition()).contains("promoted");
                });
        // Wrong secrets for this call only: surfaced after one call, nothing to renew.
        assertThatThrownBy(() -> clientA.volume("vol-0")
                        .enable()
                        .secrets(Map.of("user", "nobody"))
                        .call())
                .isInstanceOf(UnauthenticatedException.class);
    }

    private static ReplicationClient client(String target) {
        return ReplicationClient.builder()
                .target(target)
                .secrets(SecretsProvider.of(Map.of("user", "admin")))
                .retry(RetryBehaviourTest.FAST)
                .build();
    }

    @Test
    void faultsFromTheFakeAreRetriedPerTheSpec(@TempDir Path dir) {
        List<AttemptEvent> events = Collections.synchronizedList(new ArrayList<>());
        FakePlugin fake = grpc.register(FakePlugin.builder()
                .volumes(2)
                .listen("unix://" + dir.resolve("f.sock"))
                .start());
        ReplicationClient client = grpc.register(ReplicationClient.builder()
                .target(fake.address())
                .retry(RetryBehaviourTest.FAST)
                .listener(events::add)
                .build());
        client.volume("vol-0").enable().call();

        fake.failNext(Rpc.PROMOTE_VOLUME, 2, StatusCode.UNAVAILABLE, Duration.ofMillis(75));
        client.volume("vol-0").promote().call();
        assertThat(fake.calls(Rpc.PROMOTE_VOLUME))
                .extracting(RecordedCall::code)
                .containsExactly(StatusCode.UNAVAILABLE, StatusCode.UNAVAILABLE, StatusCode.OK);
        assertThat(events)
                .filteredOn(e -> e.rpc() == Rpc.PROMOTE_VOLUME && e.willRetry())
                .extracting(e -> e.retryDelay().get())
                .containsOnly(Duration.ofMillis(75));

        assertThatThrownBy(() -> client.volume("vol-1").promote().call())
                .isInstanceOf(PreconditionFailedException.class);
        assertThat(fake.calls(Rpc.PROMOTE_VOLUME)).hasSize(4);

        fake.violateInfo(InfoViolation.MISSING_LAST_SYNC_TIME);
        assertThatThrownBy(() -> client.volume("vol-0").info()).isInstanceOf(ProtocolViolationException.class);
    }
}
