package io.volrep.ceph;

import io.volrep.api.InvalidArgumentException;
import io.volrep.api.internal.SafeText;
import java.util.List;
import java.util.Map;

/**
 * The image-level mirror-snapshot schedules of the local pool, kept by the mgr's {@code rbd_support} module of this
 * site only (reached with {@code rados_mgr_command}, as the {@code rbd mirror snapshot schedule} command does); so the
 * primary also records its schedule in the image's metadata, which snapshot mirroring copies to the peer, to be applied
 * there when the image is promoted. Pool-level schedules set by an administrator are left alone.
 *
 * <pre>{@code
 * schedules.apply(budget, "vol-0", new SnapshotSchedule("5m", ""), true);   // schedule and record it
 * schedules.remove(budget, "vol-0");
 * }</pre>
 */
final class ImageSchedules {
    private final LocalPool pool;

    ImageSchedules(LocalPool pool) {
        this.pool = pool;
    }

    /**
     * Makes {@code schedule} the image's only image-level mirror-snapshot schedule, and with {@code record} keeps it
     * in the image's metadata, which the peer receives.
     *
     * @throws InvalidArgumentException naming {@code parameters.schedulingStartTime} when the mgr refuses the start
     *                                  time
     */
    void apply(CallBudget budget, String id, SnapshotSchedule schedule, boolean record) {
        if (record) {
            record(budget, id, schedule);
        }
        List<SnapshotSchedule> current = pool.schedules(budget, id);
        if (current.size() == 1 && current.get(0).equals(schedule)) {
            return;
        }
        if (!current.isEmpty()) {
            remove(budget, id);
        }
        try {
            pool.mutateRaw(budget, id, "the schedule", s -> s.addSchedule(id, schedule));
        } catch (RbdException e) {
            if (RbdErrors.badStartTime(e)) {
                throw new InvalidArgumentException("parameters." + SnapshotSchedule.START_TIME
                        + ": the mgr refused it: " + SafeText.escape(MirrorStatus.shorten(e.text(), 200)));
            }
            throw pool.failure(e, id, "schedule mirror snapshots of");
        }
    }

    /** Removes the image's image-level schedules, if it has any. */
    void remove(CallBudget budget, String id) {
        pool.run(budget, id, "the snapshot schedule removal", s -> s.removeSchedules(id));
    }

    /** Keeps the schedule in the image's metadata, writing only what differs. */
    private void record(CallBudget budget, String id, SnapshotSchedule schedule) {
        Map<String, String> meta = pool.metadata(budget, id);
        if (!schedule.interval().equals(meta.get(SnapshotSchedule.META_INTERVAL))) {
            pool.run(
                    budget,
                    id,
                    "the schedule record",
                    s -> s.setMetadata(id, SnapshotSchedule.META_INTERVAL, schedule.interval()));
        }
        if (!schedule.startTime().equals(meta.getOrDefault(SnapshotSchedule.META_START_TIME, ""))) {
            if (schedule.startTime().isEmpty()) {
                pool.run(
                        budget, id, "the schedule record", s -> s.removeMetadata(id, SnapshotSchedule.META_START_TIME));
            } else {
                pool.run(
                        budget,
                        id,
                        "the schedule record",
                        s -> s.setMetadata(id, SnapshotSchedule.META_START_TIME, schedule.startTime()));
            }
        }
    }
}
