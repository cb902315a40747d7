package io.volrep.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.volrep.api.PreconditionFailedException;
import io.volrep.api.ReplicationSource;
import io.volrep.api.SourceNotFoundException;
import io.volrep.api.VolumeGroup;
import io.volrep.client.reconcile.Destination;
import io.volrep.client.reconcile.Failover;
import io.volrep.client.reconcile.FailoverReport;
import io.volrep.client.reconcile.FailoverStep;
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
 * Issue 32's criterion through the client against volrep's reference plugin on unix sockets: a group created,
 * replicated, resized while replicated, failed over with the destination's member map, and deleted.
 */
class VolumeGroupLifecycleTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    private ReplicationClient client(ReplicationServer site) {
        return grpc.register(ReplicationClient.builder()
                .target(site.address())
                .retry(SpiInteropTest.FAST)
                .secrets(SecretsProvider.of(Map.of("user", "admin")))
                .build());
    }

    @Test
    void aGroupIsCreatedReplicatedResizedFailedOverAndDeleted(@TempDir Path dir) {
        ReferenceDriver a = ReferenceDriver.builder()
                .volumes(3)
                .requiredSecret("user", "admin")
                .build();
        ReferenceDriver b = ReferenceDriver.builder()
                .volumes(3)
                .requiredSecret("user", "admin")
                .build();
        ReplicationClient siteA = client(grpc.register(ReferencePlugin.start(a, "unix://" + dir.resolve("a.sock"))));
        ReplicationClient siteB = client(grpc.register(ReferencePlugin.start(b, "unix://" + dir.resolve("b.sock"))));

        // Created on both sites (the reference's sites share ids), replicated: primary on A, secondary on B.
        VolumeGroup onA =
                siteA.volumeGroups().create("db").volumes("vol-0", "vol-1").call();
        VolumeGroup onB =
                siteB.volumeGroups().create("db").volumes("vol-0", "vol-1").call();
        assertThat(onA.id()).isEqualTo(onB.id());
        siteA.volumeGroup(onA.id()).enable().call();
        siteB.volumeGroup(onB.id()).enable().call();
        siteB.volumeGroup(onB.id()).demote().call();

        // Resized while replicated; the destination's member map follows.
        assertThat(siteA.volumeGroups()
                        .modify(onA.id())
                        .volumes("vol-0", "vol-1", "vol-2")
                        .call()
                        .volumeIds())
                .containsExactly("vol-0", "vol-1", "vol-2");
        siteB.volumeGroups().modify(onB.id()).volumes("vol-0", "vol-1", "vol-2").call();
        assertThat(siteA.volumeGroup(onA.id()).info().lastSyncTime()).isNotNull();

        // Failed over with what site A says: the destination group and its member map.
        FailoverReport report = Failover.builder()
                .from(siteA)
                .to(siteB)
                .source(ReplicationSource.volumeGroup(onA.id()))
                .callBudget(Duration.ofSeconds(10))
                .build()
                .run();
        assertThat(report.allPrimaryOnB()).as("%s", report).isTrue();
        Destination destination = report.sources().get(0).destination().orElseThrow();
        assertThat(destination.origin()).isEqualTo(Destination.Origin.SITE_A);
        assertThat(destination.memberVolumeIds())
                .isEqualTo(Map.of("vol-0", "vol-0", "vol-1", "vol-1", "vol-2", "vol-2"));
        assertThat(report.sources().get(0).step()).isEqualTo(FailoverStep.PRIMARY_ON_B);
        assertThat(b.state(ReplicationSource.volumeGroup(onB.id())).role()).isEqualTo(ReferenceDriver.Role.PRIMARY);

        // In use while replicated; deleted once replication is disabled, its volumes kept.
        assertThatThrownBy(() -> siteB.volumeGroups().delete(onB.id()).call())
                .isInstanceOf(PreconditionFailedException.class);
        for (ReplicationClient site : new ReplicationClient[] {siteA, siteB}) {
            site.volumeGroup(onA.id()).disable().call();
            site.volumeGroups().delete(onA.id()).call();
            assertThatThrownBy(() -> site.volumeGroups().get(onA.id()).call())
                    .isInstanceOf(SourceNotFoundException.class);
            assertThat(site.volumeGroups().list().stream()).isEmpty();
            site.volume("vol-2").enable().call(); // the volumes stay
        }
        assertThat(a.sources()).doesNotContain(ReplicationSource.volumeGroup(onA.id()));
    }
}
