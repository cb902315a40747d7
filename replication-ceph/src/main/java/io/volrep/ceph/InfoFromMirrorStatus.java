package io.volrep.ceph;

import io.volrep.api.PreconditionFailedException;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.SourceNotFoundException;
import java.time.Instant;
import java.util.Optional;

/**
 * GetVolumeReplicationInfo on RBD, answered by the primary's site from {@code rbd mirror image status}: the last sync
 * is the least synced peer's last completed snapshot, the status the worst peer's health ({@link MirrorStatus}'s
 * table). Before any peer has reported a completed sync, the last sync is what the peer's copy holds completely of this
 * primary's snapshots (rbd-mirror reports every 30 s); with none there is no truthful {@code last_sync_time}: 5
 * NOT_FOUND "not available at the moment", except for a promoted copy, which reports when it was last in sync
 * ({@link LastSyncRecord}).
 *
 * <pre>{@code
 * ReplicationInfo info = new InfoFromMirrorStatus(pool, peers, lastSync).info(budget, "vol-0");
 * }</pre>
 */
final class InfoFromMirrorStatus {
    private final LocalPool pool;
    private final PeerLookup peers;
    private final LastSyncRecord lastSync;

    InfoFromMirrorStatus(LocalPool pool, PeerLookup peers, LastSyncRecord lastSync) {
        this.pool = pool;
        this.peers = peers;
        this.lastSync = lastSync;
    }

    /** The replication info of a primary image; 9 on a non-primary copy. */
    ReplicationInfo info(CallBudget budget, String id) {
        RbdImage image = pool.enabledImage(budget, id);
        if (!image.primary()) {
            throw new PreconditionFailedException(pool.site() + ": " + id + " is not promoted (it is the non-primary"
                    + " copy here): replication info is answered by the primary's site");
        }
        MirrorStatus status = pool.mirrorStatus(budget, id);
        MirrorStatus.Health health = status.health(id);
        // Split brain (after a disaster failover, the old primary back): the peer, asked directly, is primary too,
        // whatever the daemons' reports (seconds old, or silent) say.
        boolean splitBrain = peers.ask(budget, id).role() == PeerSite.Role.PRIMARY;
        if (splitBrain) {
            health = new MirrorStatus.Health(
                    ReplicationInfo.Status.ERROR,
                    "split-brain: " + id + " is primary on " + peers.name() + " too; keep one site's data: demote " + id
                            + " on the other site, then resync it there");
        }
        Optional<MirrorStatus.Sync> last = splitBrain ? Optional.empty() : status.lastSync();
        if (last.isPresent()) {
            ReplicationInfo info = ReplicationInfo.of(last.get().snapshotTime());
            if (last.get().duration().isPresent()) {
                info = info.withLastSyncDuration(last.get().duration().get());
            }
            if (last.get().bytes().isPresent()) {
                info = info.withLastSyncBytes(last.get().bytes().getAsLong());
            }
            return info.withStatus(health.status(), health.message());
        }
        Optional<ReplicationInfo> copied =
                splitBrain ? Optional.empty() : heldByThePeersCopy(budget, id, status, health);
        if (copied.isPresent()) {
            return copied.get();
        }
        // No peer has synced from this primary yet. An image promoted from a copy was last in sync with the other
        // site when its last received snapshot was taken (what a failover keeps): Promote recorded it.
        Optional<Instant> received = lastSync.recorded(budget, id);
        if (received.isPresent()) {
            return ReplicationInfo.of(received.get())
                    .withStatus(
                            health.status() == ReplicationInfo.Status.ERROR
                                    ? ReplicationInfo.Status.ERROR
                                    : ReplicationInfo.Status.DEGRADED,
                            "no peer has synced " + id + " since it became primary here; its data was last in sync at "
                                    + received.get() + " (the last snapshot it received)"
                                    + (health.message().isEmpty() ? "" : "; " + health.message()));
        }
        if (splitBrain) {
            // The sites were last in sync when the peer's copy received its last snapshot, which the peer recorded
            // when it was promoted; without that record the time is unknown, and 5 says so below.
            Optional<Instant> peerRecorded = peers.recordedLastSync(budget, id);
            if (peerRecorded.isPresent()) {
                return ReplicationInfo.of(peerRecorded.get())
                        .withStatus(
                                ReplicationInfo.Status.ERROR,
                                health.message() + " (the sites were last in sync at " + peerRecorded.get() + ", as "
                                        + peers.name() + " recorded when it was promoted)");
            }
        }
        throw new SourceNotFoundException(pool.site() + ": replication details of " + id + " are not available at"
                + " the moment: no peer has completed a first sync yet"
                + (health.message().isEmpty() ? "" : " (" + health.message() + ")"));
    }

    /**
     * The last sync as the peer's copy holds it, while its rbd-mirror has not reported it: rbd-mirror writes its
     * reports every 30 s, and a copy synced seconds after an enable or a promote would otherwise answer 5 for up to
     * half a minute. Only for the one peer the pool has, whose report is not an error; the sync is the newest of this
     * primary's snapshots the copy holds completely (what a failover now would keep), with no duration or bytes
     * (rbd-mirror's report carries those).
     */
    private Optional<ReplicationInfo> heldByThePeersCopy(
            CallBudget budget, String id, MirrorStatus status, MirrorStatus.Health health) {
        if (status.peers().size() != 1 || health.status() == ReplicationInfo.Status.ERROR) {
            return Optional.empty();
        }
        Optional<MirrorSnapshots> copy = peers.snapshots(budget, id);
        if (copy.isEmpty()) {
            return Optional.empty();
        }
        MirrorSnapshots own = pool.snapshots(budget, id);
        Optional<MirrorSnapshots.Snapshot> held = copy.get().newestHeldCompletelyOf(own);
        Optional<Instant> taken = held.map(MirrorSnapshots.Snapshot::timestamp);
        if (taken.isEmpty()) {
            return Optional.empty();
        }
        Optional<MirrorSnapshots.Snapshot> latest = own.newestTaken();
        ReplicationInfo info = ReplicationInfo.of(taken.get());
        if (latest.isPresent() && latest.get().id() != held.get().id()) {
            return Optional.of(info.withStatus(
                    ReplicationInfo.Status.DEGRADED,
                    peers.name() + " is behind: it holds"
                            + " the snapshot of " + taken.get() + ", the primary's latest is of "
                            + latest.get().timestamp()));
        }
        return Optional.of(info.withStatus(ReplicationInfo.Status.HEALTHY, ""));
    }
}
