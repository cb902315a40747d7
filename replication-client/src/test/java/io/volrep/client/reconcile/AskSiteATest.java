package io.volrep.client.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.inprocess.InProcessServerBuilder;
import io.volrep.api.ReplicationDestination;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.UnimplementedException;
import io.volrep.client.ReplicationClient;
import io.volrep.spi.DestinationRequest;
import io.volrep.spi.DisableRequest;
import io.volrep.spi.EnableRequest;
import io.volrep.spi.ReplicationDriver;
import io.volrep.spi.ReplicationServer;
import io.volrep.testsupport.GrpcCleanup;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link DestinationResolver#askSiteA}: the seventh RPC on site A gives the ids on site B, members included. */
class AskSiteATest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    private static class Base implements ReplicationDriver {
        @Override
        public void enable(EnableRequest request) {}

        @Override
        public void disable(DisableRequest request) {}
    }

    @Test
    void theDestinationAndTheGroupsMembersComeFromSiteA() throws Exception {
        String name = InProcessServerBuilder.generateName();
        ReplicationDriver driver = new Base() {
            @Override
            public ReplicationDestination destination(DestinationRequest request) {
                return request.source().kind() == ReplicationSource.Kind.VOLUME
                        ? ReplicationDestination.volume("b-" + request.source().id())
                        : ReplicationDestination.volumeGroup(
                                "b-" + request.source().id(), Map.of("vol-1", "b-vol-1"));
            }

            @Override
            public Set<Rpc> servedRpcs() {
                return ReplicationDriver.defaultRpcsAnd(Rpc.GET_REPLICATION_DESTINATION_INFO);
            }
        };
        grpc.register(ReplicationServer.builder()
                .driver(driver)
                .listen("inprocess:" + name)
                .gracePeriod(Duration.ZERO)
                .build()
                .start());
        ReplicationClient a = grpc.register(
                ReplicationClient.builder().target("inprocess:" + name).build());
        DestinationResolver resolver = DestinationResolver.askSiteA(a);

        assertThat(resolver.resolve(ReplicationSource.volume("vol-0")).get(5, TimeUnit.MINUTES))
                .isEqualTo(new Destination(ReplicationSource.volume("b-vol-0"), Map.of(), Destination.Origin.SITE_A));
        assertThat(resolver.resolve(ReplicationSource.volumeGroup("grp-0")).get(5, TimeUnit.MINUTES))
                .isEqualTo(new Destination(
                        ReplicationSource.volumeGroup("b-grp-0"),
                        Map.of("vol-1", "b-vol-1"),
                        Destination.Origin.SITE_A));
    }

    @Test
    void aPluginWithoutTheRpcFailsTheResolutionAndOrElseFallsBack() throws Exception {
        String name = InProcessServerBuilder.generateName();
        grpc.register(ReplicationServer.builder()
                .driver(new Base())
                .listen("inprocess:" + name)
                .gracePeriod(Duration.ZERO)
                .build()
                .start());
        ReplicationClient a = grpc.register(
                ReplicationClient.builder().target("inprocess:" + name).build());
        assertThatThrownBy(() -> DestinationResolver.askSiteA(a)
                        .resolve(ReplicationSource.volume("vol-0"))
                        .get(5, TimeUnit.MINUTES))
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(UnimplementedException.class);
        assertThat(DestinationResolver.askSiteA(a)
                        .orElse(DestinationResolver.identity())
                        .resolve(ReplicationSource.volume("vol-0"))
                        .get(5, TimeUnit.MINUTES))
                .isEqualTo(Destination.sameIdAs(ReplicationSource.volume("vol-0")));
    }
}
