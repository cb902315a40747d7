package io.volrep.ceph;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * {@code rbd snap ls --all} read once for both of its questions: when a copy last received a complete snapshot
 * (Promote's record of the last sync) and whether a copy still ends with a demotion (Demote and Disable wait for the peer's replay).
 * The outputs are {@link CephRbdDriverTest}'s, copied from the lab.
 */
class MirrorSnapshotsTest {
    private static MirrorSnapshots parse(String json) {
        return RbdFixtures.snapshots(json);
    }

    @Test
    void aCopyThatHasNotReplayedTheNewPrimaryEndsWithItsOwnDemotionAndHasReceivedNothing() {
        MirrorSnapshots snaps = parse(CephRbdDriverTest.PEER_OWN_DEMOTION);

        assertThat(snaps.endsWithADemotion()).isTrue();
        assertThat(snaps.lastReceived()).isEmpty();
    }

    @Test
    void aCopyReplayingThePrimaryEndsWithTheSnapshotItReceivedWhoseTimeIsItsLastSync() {
        MirrorSnapshots snaps = parse(CephRbdDriverTest.PEER_REPLAYING);

        assertThat(snaps.endsWithADemotion()).isFalse();
        assertThat(snaps.lastReceived()).contains(Instant.parse("2026-11-26T05:15:22Z"));
    }

    @Test
    void onlyCompleteReceivedMirrorSnapshotsCountAndTheNewestIsTheHighestId() {
        MirrorSnapshots snaps = parse("""
                [{"id":12,"name":"s1","timestamp":"Thu Nov 26 05:20:00 2026","namespace":{"type":"user"}},
                 {"id":11,"name":".mirror.non_primary.g.d","timestamp":"Thu Nov 26 05:19:00 2026",
                  "namespace":{"type":"mirror","state":"non-primary","complete":false,"primary_mirror_uuid":"59bc"}},
                 {"id":9,"name":".mirror.primary.g.b","timestamp":"Thu Nov 26 05:15:15 2026",
                  "namespace":{"type":"mirror","state":"demoted","complete":true}},
                 {"id":10,"name":".mirror.non_primary.g.c","timestamp":"Thu Nov 26 05:15:22 2026",
                  "namespace":{"type":"mirror","state":"non-primary","complete":true,"primary_mirror_uuid":"59bc"}}]""");

        assertThat(snaps.snapshots()).extracting(MirrorSnapshots.Snapshot::id).containsExactly(11L, 9L, 10L);
        assertThat(snaps.lastReceived()).contains(Instant.parse("2026-11-26T05:15:22Z"));
        assertThat(snaps.endsWithADemotion()).isFalse();
        assertThat(parse("[]").endsWithADemotion()).isFalse();
    }
}
