package io.volrep.ceph;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The mirror snapshots of one image ({@code rbd_snap_list}, each with its {@code rbd_snap_get_mirror_namespace};
 * other snapshots left out). A
 * primary takes them (its namespace has no {@code primary_mirror_uuid}; the last one of a demoted primary has state
 * {@code demoted}); a non-primary copy receives them (they name their primary, and are {@code complete} once synced).
 *
 * <pre>{@code
 * MirrorSnapshots snaps = site.snapshots("vol-0");
 * Optional<Instant> inSyncAt = snaps.lastReceived();
 * }</pre>
 *
 * @param snapshots in rbd's order
 */
record MirrorSnapshots(List<Snapshot> snapshots) {
    /**
     * One mirror snapshot.
     *
     * @param id the snapshot id (increasing: the newest has the highest)
     * @param timestamp when it was taken
     * @param received true when it names its primary: received from the peer, not taken here
     * @param complete true when it has been received completely
     * @param state e.g. {@code primary}, {@code demoted}, {@code non-primary}, or ""
     * @param primarySnapId for a received snapshot, the id it has on the primary image; else -1
     */
    record Snapshot(long id, Instant timestamp, boolean received, boolean complete, String state, long primarySnapId) {}

    /** rbd's ids increase: the lowest is the oldest snapshot kept, the highest the newest. */
    private static final Comparator<Snapshot> BY_ID = Comparator.comparingLong(Snapshot::id);

    /**
     * When the newest complete snapshot this image received as a non-primary copy was taken (the copy's own time of
     * it), or empty.
     */
    Optional<Instant> lastReceived() {
        Instant newest = null;
        for (Snapshot s : snapshots) {
            if (!s.received() || !s.complete()) {
                continue;
            }
            if (newest == null || s.timestamp().isAfter(newest)) {
                newest = s.timestamp();
            }
        }
        return Optional.ofNullable(newest);
    }

    /** When the oldest mirror snapshot still kept was taken (for a young mirroring: when it was enabled), or empty. */
    Optional<Instant> oldest() {
        return snapshots.stream().min(BY_ID).map(Snapshot::timestamp);
    }

    /** The newest mirror snapshot, or empty. */
    Optional<Snapshot> newest() {
        return snapshots.stream().max(BY_ID);
    }

    /**
     * True when the newest mirror snapshot is a demotion: this image's own (taken when it was demoted) or the peer's
     * (received when the peer was demoted). Either way, a copy that has not replayed the peer's promotion since.
     */
    boolean endsWithADemotion() {
        return newest().filter(s -> "demoted".equals(s.state())).isPresent();
    }

    /**
     * True when the peer's image ends with a snapshot it took itself (it was primary after this copy's last
     * snapshot: promoted, and demoted again) that this copy has not received completely. Promoting this copy then
     * starts a history that leaves the peer's last snapshots out: the peer's copy ends in split-brain.
     */
    boolean lacksTheNewestSnapshotOf(MirrorSnapshots peer) {
        Optional<Snapshot> theirs = peer.newest().filter(s -> !s.received());
        return theirs.isPresent()
                && snapshots.stream()
                        .noneMatch(s -> s.received()
                                && s.complete()
                                && s.primarySnapId() == theirs.get().id());
    }

    /**
     * True when this copy has received completely the newest snapshot {@code primary} took: it is in sync with that
     * primary's current mirroring (not with an earlier one whose copy was not deleted yet, nor stopped at an older
     * snapshot, before a demotion).
     */
    boolean holdsTheNewestOf(MirrorSnapshots primary) {
        Optional<Snapshot> newest = primary.newestTaken();
        return newest.isPresent()
                && newestHeldCompletelyOf(primary)
                        .filter(held -> held.id() == newest.get().id())
                        .isPresent();
    }

    /** The newest snapshot this image took itself (as a primary), or empty. */
    Optional<Snapshot> newestTaken() {
        return snapshots.stream().filter(s -> !s.received()).max(BY_ID);
    }

    /** The newest of the snapshots {@code primary} took (and keeps) that this copy has received completely. */
    Optional<Snapshot> newestHeldCompletelyOf(MirrorSnapshots primary) {
        return primary.snapshots().stream()
                .filter(taken -> !taken.received()
                        && snapshots.stream()
                                .anyMatch(s -> s.received() && s.complete() && s.primarySnapId() == taken.id()))
                .max(BY_ID);
    }
}
