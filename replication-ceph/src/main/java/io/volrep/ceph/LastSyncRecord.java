package io.volrep.ceph;

import io.volrep.api.ReplicationException;
import io.volrep.api.UnavailableException;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When a promoted copy was last in sync with the other site: read from the copy just before Promote promotes it (a
 * forced promote drops the snapshots it received), kept in the image's metadata, and answered by Info until a peer
 * has synced from the new primary. After a forced failover, that is the point the data is recovered to (the RPO).
 *
 * <pre>{@code
 * Optional<Instant> inSyncAt = lastSync.readFromCopy(budget, "vol-0");   // before promoting
 * inSyncAt.ifPresent(t -> lastSync.keep(budget, "vol-0", t));           // after
 * Optional<Instant> recorded = lastSync.recorded(budget, "vol-0");       // Info
 * }</pre>
 */
final class LastSyncRecord {
    private static final Logger LOG = LoggerFactory.getLogger(LastSyncRecord.class);
    /** The image metadata key holding it, in epoch seconds. */
    static final String META_LAST_SYNC = LocalPool.METADATA_PREFIX + "lastSyncTime";

    private final LocalPool pool;

    LastSyncRecord(LocalPool pool) {
        this.pool = pool;
    }

    /**
     * When this non-primary copy was last in sync: the primary's time of the last snapshot it completed, from its
     * replayer's report, else the newest complete snapshot it received ({@code rbd snap ls --all}, the copy's own
     * time of it); empty when neither is known, or when Ceph refuses the status. (A failure to list the snapshots, or
     * a site that does not answer, fails the promote with its row of {@link LocalPool#failure}.)
     */
    Optional<Instant> readFromCopy(CallBudget budget, String id) {
        Optional<MirrorStatus.Sync> own;
        try {
            own = pool.mirrorStatus(budget, id).localSync();
        } catch (ReplicationException e) {
            if (e instanceof UnavailableException) {
                throw e;
            }
            LOG.debug("{}: cannot tell when {} was last in sync: {}", pool.site(), id, e.getMessage());
            return Optional.empty();
        }
        return own.isPresent() ? Optional.of(own.get().snapshotTime()) : lastReceivedSnapshot(budget, id);
    }

    /** Keeps {@code time} in the image's metadata for Info (best effort: the promote has happened). */
    void keep(CallBudget budget, String id, Instant time) {
        try {
            pool.run(
                    budget,
                    id,
                    "the last sync time record",
                    s -> s.setMetadata(id, META_LAST_SYNC, Long.toString(time.getEpochSecond())));
        } catch (RuntimeException e) {
            LOG.warn(
                    "{}: {} promoted, but its last sync time ({}) could not be recorded: {}",
                    pool.site(),
                    id,
                    time,
                    e.getMessage());
        }
    }

    /** What {@link #keep} recorded, if anything readable. */
    Optional<Instant> recorded(CallBudget budget, String id) {
        return Optional.ofNullable(pool.metadata(budget, id).get(META_LAST_SYNC))
                .flatMap(LastSyncRecord::epochSeconds);
    }

    /** The newest complete mirror snapshot this image received as a non-primary copy, or empty. */
    private Optional<Instant> lastReceivedSnapshot(CallBudget budget, String id) {
        return pool.snapshots(budget, id).lastReceived();
    }

    static Optional<Instant> epochSeconds(String text) {
        try {
            return Optional.of(Instant.ofEpochSecond(Long.parseLong(text.strip())));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
