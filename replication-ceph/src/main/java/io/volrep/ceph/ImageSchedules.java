package io.volrep.ceph;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.volrep.api.InvalidArgumentException;
import java.util.Map;

/**
 * The image-level mirror-snapshot schedules of the local pool ({@code rbd mirror snapshot schedule}), kept by the
 * mgr's {@code rbd_support} module of this site only; so the primary also records its schedule in the image's
 * metadata, which snapshot mirroring copies to the peer, to be applied there when the image is promoted. Pool-level
 * schedules set by an administrator are left alone.
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
     * @throws InvalidArgumentException naming {@code parameters.schedulingStartTime} when rbd refuses the start time
     */
    void apply(CallBudget budget, String id, SnapshotSchedule schedule, boolean record) {
        if (record) {
            record(budget, id, schedule);
        }
        JsonElement current;
        try {
            current = pool.cli()
                    .json(budget, "mirror", "snapshot", "schedule", "ls", "--pool", pool.name(), "--image", id);
        } catch (RbdException e) {
            if (e.errno() != RbdException.ENOENT) {
                throw pool.failure(e, id, "read the snapshot schedule of");
            }
            current = new JsonArray(); // rbd answers ENOENT, printing nothing, for no schedule
        }
        if (current.isJsonArray() && current.getAsJsonArray().size() == 1) {
            JsonObject only = current.getAsJsonArray().get(0).getAsJsonObject();
            if (schedule.interval().equals(RbdJson.string(only, "interval"))
                    && schedule.startTime().equals(RbdJson.string(only, "start_time"))) {
                return;
            }
        }
        if (current.isJsonArray() && current.getAsJsonArray().size() > 0) {
            remove(budget, id);
        }
        try {
            if (schedule.startTime().isEmpty()) {
                pool.cli()
                        .run(
                                budget,
                                "mirror",
                                "snapshot",
                                "schedule",
                                "add",
                                "--pool",
                                pool.name(),
                                "--image",
                                id,
                                schedule.interval());
            } else {
                pool.cli()
                        .run(
                                budget,
                                "mirror",
                                "snapshot",
                                "schedule",
                                "add",
                                "--pool",
                                pool.name(),
                                "--image",
                                id,
                                schedule.interval(),
                                schedule.startTime());
            }
        } catch (RbdException e) {
            if (e.errno() == RbdException.EINVAL && e.says("start time")) {
                throw new InvalidArgumentException(
                        "parameters." + SnapshotSchedule.START_TIME + ": rbd refused it: " + e.detail());
            }
            throw pool.failure(e, id, "schedule mirror snapshots of");
        }
    }

    /** Removes the image's image-level schedule, if it has one. */
    void remove(CallBudget budget, String id) {
        try {
            pool.cli().run(budget, "mirror", "snapshot", "schedule", "remove", "--pool", pool.name(), "--image", id);
        } catch (RbdException e) {
            if (e.errno() != RbdException.ENOENT) { // ENOENT: the pool never had a schedule
                throw pool.failure(e, id, "remove the snapshot schedule of");
            }
        }
    }

    /** Keeps the schedule in the image's metadata, writing only what differs. */
    private void record(CallBudget budget, String id, SnapshotSchedule schedule) {
        Map<String, String> meta = pool.metadata(budget, id);
        if (!schedule.interval().equals(meta.get(SnapshotSchedule.META_INTERVAL))) {
            pool.run(
                    budget,
                    id,
                    "record the schedule of",
                    "image-meta",
                    "set",
                    pool.spec(id),
                    SnapshotSchedule.META_INTERVAL,
                    schedule.interval());
        }
        if (!schedule.startTime().equals(meta.getOrDefault(SnapshotSchedule.META_START_TIME, ""))) {
            if (schedule.startTime().isEmpty()) {
                pool.run(
                        budget,
                        id,
                        "record the schedule of",
                        "image-meta",
                        "remove",
                        pool.spec(id),
                        SnapshotSchedule.META_START_TIME);
            } else {
                pool.run(
                        budget,
                        id,
                        "record the schedule of",
                        "image-meta",
                        "set",
                        pool.spec(id),
                        SnapshotSchedule.META_START_TIME,
                        schedule.startTime());
            }
        }
    }
}
