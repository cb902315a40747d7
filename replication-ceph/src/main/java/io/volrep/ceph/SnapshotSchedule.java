package io.volrep.ceph;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.volrep.api.InvalidArgumentException;
import io.volrep.api.internal.SafeText;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A mirror-snapshot schedule, from the request's parameters as ceph-csi names them: {@code schedulingInterval}
 * ({@code 5m}, {@code 1h}, {@code 1d}: minutes, hours or days) and optionally {@code schedulingStartTime}
 * ({@code 14:00:00-05:00}, ISO 8601 as {@code rbd mirror snapshot schedule add} reads it). The mgr's
 * {@code rbd_support} module takes a mirror snapshot of the primary image at that interval; each snapshot is what
 * the peer syncs, so the interval bounds the data a forced failover loses (RPO).
 *
 * <pre>{@code
 * Optional<SnapshotSchedule> s = SnapshotSchedule.from(Map.of("schedulingInterval", "5m"));   // 5m, no start time
 * }</pre>
 *
 * @param interval e.g. {@code 5m}
 * @param startTime e.g. {@code 14:00:00-05:00}, or ""
 */
record SnapshotSchedule(String interval, String startTime) {
    /** The parameter naming the interval. */
    static final String INTERVAL = "schedulingInterval";
    /** The parameter naming the start time. */
    static final String START_TIME = "schedulingStartTime";
    /** Where the primary keeps its schedule in the image's metadata, which snapshot mirroring copies to the peer. */
    static final String META_INTERVAL = "volrep.schedulingInterval";

    static final String META_START_TIME = "volrep.schedulingStartTime";

    private static final Pattern INTERVAL_FORMAT = Pattern.compile("[1-9][0-9]{0,5}[mhd]");
    private static final Pattern START_FORMAT = Pattern.compile("[0-9T:+\\-.Z]{1,40}");

    /**
     * The schedule the parameters ask for, empty when they ask for none.
     *
     * @throws InvalidArgumentException naming the parameter when a value is malformed
     */
    static Optional<SnapshotSchedule> from(Map<String, String> parameters) {
        String interval = parameters.get(INTERVAL);
        String start = parameters.getOrDefault(START_TIME, "");
        if (interval == null) {
            if (!start.isEmpty()) {
                throw new InvalidArgumentException(
                        "parameters." + START_TIME + ": given without " + "parameters." + INTERVAL);
            }
            return Optional.empty();
        }
        refuseOptionLike(INTERVAL, interval);
        refuseOptionLike(START_TIME, start);
        if (!INTERVAL_FORMAT.matcher(interval).matches()) {
            throw new InvalidArgumentException("parameters." + INTERVAL + ": \"" + SafeText.escape(interval)
                    + "\" is not an interval: a number of minutes, hours or days, e.g. 5m, 1h or 1d");
        }
        if (!start.isEmpty() && !START_FORMAT.matcher(start).matches()) {
            throw new InvalidArgumentException("parameters." + START_TIME + ": \"" + SafeText.escape(start)
                    + "\" is not an ISO 8601 time, e.g. 14:00:00-05:00");
        }
        return Optional.of(new SnapshotSchedule(interval, start));
    }

    /**
     * A value that begins with {@code -} is refused, naming the parameter: nothing the plugin passes on may read as an
     * option (the {@code rbd} command read such a start time as its end of options and added no start time).
     */
    private static void refuseOptionLike(String parameter, String value) {
        if (value.startsWith("-")) {
            throw new InvalidArgumentException("parameters." + parameter + ": \"" + SafeText.escape(value)
                    + "\" begins with '-': not a value this parameter takes");
        }
    }

    /**
     * The schedules at image level {@code spec} ({@code pool/image}) in the mgr's answer to {@code rbd mirror snapshot
     * schedule list}: an object of levels, each {@code {"name": "rbd/vol-0", "schedule": [{"interval": "1m",
     * "start_time": null}]}}. Entries of another shape are left out.
     */
    static List<SnapshotSchedule> fromMgrList(JsonElement answer, String spec) {
        List<SnapshotSchedule> schedules = new ArrayList<>();
        if (!answer.isJsonObject()) {
            return schedules;
        }
        for (Map.Entry<String, JsonElement> level : answer.getAsJsonObject().entrySet()) {
            if (!level.getValue().isJsonObject()) {
                continue;
            }
            JsonObject l = level.getValue().getAsJsonObject();
            if (!spec.equals(text(l, "name"))
                    || !l.has("schedule")
                    || !l.get("schedule").isJsonArray()) {
                continue;
            }
            for (JsonElement e : l.getAsJsonArray("schedule")) {
                if (e.isJsonObject()) {
                    schedules.add(new SnapshotSchedule(
                            text(e.getAsJsonObject(), "interval"), text(e.getAsJsonObject(), "start_time")));
                }
            }
        }
        return schedules;
    }

    private static String text(JsonObject o, String key) {
        JsonElement e = o.get(key);
        return e != null && e.isJsonPrimitive() ? e.getAsString() : "";
    }

    /** The schedule recorded in an image's metadata (copied from the former primary), if any. */
    static Optional<SnapshotSchedule> fromMetadata(Map<String, String> metadata) {
        String interval = metadata.get(META_INTERVAL);
        if (interval == null || !INTERVAL_FORMAT.matcher(interval).matches()) {
            return Optional.empty();
        }
        String start = metadata.getOrDefault(META_START_TIME, "");
        return Optional.of(
                new SnapshotSchedule(interval, START_FORMAT.matcher(start).matches() ? start : ""));
    }
}
