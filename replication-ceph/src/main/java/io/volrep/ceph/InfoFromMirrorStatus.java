package io.volrep.ceph;

import io.volrep.api.PreconditionFailedException;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.SourceNotFoundException;
import java.time.Instant;
import java.util.Optional;

/**
 * GetVolumeReplicationInfo on RBD, answered by the primary's site from {@code rbd mirror image status}: the last sync
 * is the least synced peer's last completed snapshot, the status the worst peer's health ({@link MirrorStatus}'s
 * table). Before any peer has completed a sync there is no truthful {@code last_sync_time}: 5 NOT_FOUND "not available
 * at the moment", except for a promoted copy, which reports when it was last in sync ({@link LastSyncRecord}).
 *
 * <pre>{@code
 * ReplicationInfo info = new InfoFromMirrorStatus(pool, lastSync).info(budget, "vol-0");
 * }</pre>
 */
final class InfoFromMirrorStatus {
    private final LocalPool pool;
    private final LastSyncRecord lastSync;

    InfoFromMirrorStatus(LocalPool pool, LastSyncRecord lastSync) {
        this.pool = pool;
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
        Optional<MirrorStatus.Sync> last = status.lastSync();
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
        // No peer has synced from this primary yet. An image promoted from a copy was last in sync with the other
        // site when its last received snapshot was taken (what a failover keeps): Promote recorded it.
        Optional<Instant> received = lastSync.recorded(budget, id);
        if (received.isPresent()) {
            return ReplicationInfo.of(received.get()).withStatus(
                    health.status() == ReplicationInfo.Status.ERROR ? ReplicationInfo.Status.ERROR
                            : ReplicationInfo.Status.DEGRADED,
                    "no peer has synced " + id + " since it became primary here; its data was last in sync at "
                            + received.get() + " (the last snapshot it received)"
                            + (health.message().isEmpty() ? "" : "; " + health.message()));
        }
        throw new SourceNotFoundException(pool.site() + ": replication details of " + id + " are not available at"
                + " the moment: no peer has completed a first sync yet"
                + (health.message().isEmpty() ? "" : " (" + health.message() + ")"));
    }
}
