package io.volrep.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.volrep.api.ReplicationDestination;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.SpecDialect;
import io.volrep.api.UnavailableException;
import io.volrep.spi.DestinationRequest;
import io.volrep.spi.DisableRequest;
import io.volrep.spi.EnableRequest;
import io.volrep.spi.InfoRequest;
import io.volrep.spi.ReplicationDriver;
import io.volrep.spi.ReplicationServer;
import io.volrep.testsupport.GrpcCleanup;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Upstream 2026 in the client: destination() blocking and async through the engine, health in info(). */
class DestinationAndHealthTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    /** Answers UNAVAILABLE ("not yet available") {@code notYet} times per source, then the destination. */
    static final class SiteA implements ReplicationDriver {
        final List<Object> seen = new CopyOnWriteArrayList<>();
        final AtomicInteger notYet = new AtomicInteger(2);

        @Override
        public void enable(EnableRequest request) {}

        @Override
        public void disable(DisableRequest request) {}

        @Override
        public ReplicationInfo info(InfoRequest request) {
            return ReplicationInfo.of(Instant.parse("2026-07-14T10:00:00Z"))
                    .withStatus(ReplicationInfo.Status.DEGRADED, "peer site lagging");
        }

        @Override
        public ReplicationDestination destination(DestinationRequest request) {
            seen.add(request);
            if (notYet.getAndDecrement() > 0) {
                throw new UnavailableException("destination info not yet available");
            }
            return request.source().kind() == ReplicationSource.Kind.VOLUME
                    ? ReplicationDestination.volume("b-" + request.source().id())
                    : ReplicationDestination.volumeGroup(
                            "b-" + request.source().id(), Map.of("vol-1", "b-vol-1", "vol-2", "b-vol-2"));
        }

        @Override
        public Set<Rpc> servedRpcs() {
            return ReplicationDriver.defaultRpcsAnd(Rpc.GET_REPLICATION_DESTINATION_INFO);
        }
    }

    @Test
    void destinationsAfterATransientUnavailableAndHealthInInfo(@TempDir Path dir) throws Exception {
        SiteA driver = new SiteA();
        ReplicationServer server = grpc.register(ReplicationServer.builder()
                .driver(driver)
                .listen("unix://" + dir.resolve("a.sock"))
                .build()
                .start());
        ReplicationClient client = grpc.register(ReplicationClient.builder()
                .target(server.address())
                .retry(SpiInteropTest.FAST)
                .build());
        assertThat(client.volume("vol-1").destination()).isEqualTo(ReplicationDestination.volume("b-vol-1"));
        assertThat(driver.seen).hasSize(3); // two UNAVAILABLE, retried with back-off

        ReplicationDestination group =
                client.volumeGroup("grp-1").destinationAsync().get(5, TimeUnit.MINUTES);
        assertThat(group)
                .isEqualTo(
                        ReplicationDestination.volumeGroup("b-grp-1", Map.of("vol-1", "b-vol-1", "vol-2", "b-vol-2")));
        assertThat(group.kind()).isEqualTo(ReplicationSource.Kind.VOLUME_GROUP);

        ReplicationInfo info = client.volume("vol-1").info();
        assertThat(info.status()).isEqualTo(ReplicationInfo.Status.DEGRADED);
        assertThat(info.statusMessage()).isEqualTo("peer site lagging");
        assertThat(client.capabilities().destinationInfo()).isTrue();
    }

    @Test
    void legacyRevisionsRefuseBeforeSending(@TempDir Path dir) {
        SiteA driver = new SiteA();
        for (SpecDialect legacy : new SpecDialect[] {SpecDialect.V0_1_3, SpecDialect.V0_1_0}) {
            ReplicationServer server = grpc.register(ReplicationServer.builder()
                    .driver(driver)
                    .dialect(legacy)
                    .listen("unix://" + dir.resolve(legacy.name() + ".sock"))
                    .build()
                    .start());
            ReplicationClient client = grpc.register(ReplicationClient.builder()
                    .target(server.address())
                    .dialect(legacy)
                    .retry(SpiInteropTest.FAST)
                    .build());
            assertThatThrownBy(() -> client.volume("vol-1").destination())
                    .isInstanceOfSatisfying(UnsupportedByDialectException.class, e -> {
                        assertThat(e.attempts()).isZero();
                        assertThat(e.rpc()).isEqualTo(Rpc.GET_REPLICATION_DESTINATION_INFO);
                        assertThat(e.dialect()).isEqualTo(legacy);
                    })
                    .hasMessage("GetReplicationDestinationInfo: the RPC does not exist cannot be expressed in "
                            + "spec revision " + legacy.cliName() + "; not sent");
        }
        assertThat(driver.seen).isEmpty();
    }
}
