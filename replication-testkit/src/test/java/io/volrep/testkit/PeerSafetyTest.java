package io.volrep.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.api.ReplicationDestination;
import io.volrep.api.ReplicationSource;
import io.volrep.spi.DestinationRequest;
import io.volrep.spi.EnableRequest;
import io.volrep.spi.ForwardingReplicationDriver;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testkit.reference.ReferencePair;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Vendor CI runs the kit against shared labs (issue 45, item 1): in two-site mode the kit changes nothing on either
 * site that it has not first observed in the state the check expects, and restores only what it changed itself. A
 * plugin whose GetReplicationDestinationInfo names another volume of the peer site as a fixture's destination gets
 * that volume verified on the peer site first, found not to be the fixture's replica, and left alone.
 */
class PeerSafetyTest {
    private static final ReplicationSource VOL_0 = ReplicationSource.volume("vol-0");
    private static final ReplicationSource VOL_9 = ReplicationSource.volume("vol-9");

    @Test
    void aDestinationThatNamesAnotherPrimaryOfThePeerSiteIsNeverChanged() {
        ReferencePair pair = ReferenceDriver.builder().volumes(10).groups(1).buildPair();
        // Site B's vol-9 is the primary of a replication nobody gave the kit: someone else's volume in a shared lab.
        pair.siteB().enable(EnableRequest.of(VOL_9));
        int effectsBefore = pair.siteB().effects(VOL_9).size();
        ForwardingReplicationDriver misnaming = new ForwardingReplicationDriver(pair.siteA()) {
            @Override
            public ReplicationDestination destination(DestinationRequest r) {
                ReplicationDestination d = super.destination(r);
                return r.source().equals(VOL_0) ? ReplicationDestination.volume("vol-9") : d;
            }
        };

        ComplianceReport report = ConformanceRunner.of(ConformanceConfig.builder()
                        .driver(misnaming)
                        .peerDriver(pair.siteB())
                        .volumes("vol-0", "vol-1", "vol-2", "vol-3")
                        .volumeGroups("grp-0")
                        .settleTimeout(Duration.ofSeconds(5))
                        .build())
                .run();

        assertThat(pair.siteB().effects(VOL_9))
                .as("changes the kit made to site B's vol-9")
                .hasSize(effectsBefore);
        assertThat(pair.siteB().state(VOL_9).enabled()).isTrue();
        assertThat(pair.siteB().state(VOL_9).role()).isEqualTo(ReferenceDriver.Role.PRIMARY);
        assertThat(report.compliant()).isFalse();
        assertThat(report.failed())
                .as("the failures")
                .anySatisfy(r -> assertThat(r.reason())
                        .contains("vol-9")
                        .contains("left alone")
                        .containsAnyOf("not secondary", "not the replica"));
        System.out.println(
                report.failed().stream().map(r -> r.id() + ": " + r.reason()).toList());
        // Every fixture of both sites ends as the run found it.
        for (String id : List.of("vol-0", "vol-1", "vol-2", "vol-3")) {
            assertThat(pair.siteA().state(ReplicationSource.volume(id)).enabled())
                    .as(id)
                    .isFalse();
        }
    }

    @Test
    void aDestinationThatNamesAnotherSecondaryOfThePeerSiteIsNeverChanged() {
        ReferencePair pair = ReferenceDriver.builder().volumes(10).groups(1).buildPair();
        // Site A's vol-9 (no fixture of the run) replicates to site B's vol-9, a secondary the kit must not touch.
        pair.siteA().enable(EnableRequest.of(VOL_9));
        int effectsBefore = pair.siteB().effects(VOL_9).size();
        ForwardingReplicationDriver misnaming = new ForwardingReplicationDriver(pair.siteA()) {
            @Override
            public ReplicationDestination destination(DestinationRequest r) {
                ReplicationDestination d = super.destination(r);
                return r.source().equals(VOL_0) ? ReplicationDestination.volume("vol-9") : d;
            }
        };

        ComplianceReport report = ConformanceRunner.of(ConformanceConfig.builder()
                        .driver(misnaming)
                        .peerDriver(pair.siteB())
                        .volumes("vol-0", "vol-1")
                        .settleTimeout(Duration.ofSeconds(5))
                        .build())
                .run();

        assertThat(pair.siteB().effects(VOL_9)).hasSize(effectsBefore);
        assertThat(pair.siteB().state(VOL_9).role()).isEqualTo(ReferenceDriver.Role.SECONDARY);
        assertThat(pair.siteA().state(VOL_9).role()).isEqualTo(ReferenceDriver.Role.PRIMARY);
        assertThat(report.failed())
                .anySatisfy(r -> assertThat(r.reason())
                        .contains("site B's volume vol-9")
                        .contains("is not the replica of volume vol-0")
                        .contains("left alone"));
    }
}
