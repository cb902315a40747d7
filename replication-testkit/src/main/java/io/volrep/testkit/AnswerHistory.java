package io.volrep.testkit;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import io.volrep.api.ReplicationSource.Kind;
import io.volrep.api.Rpc;
import io.volrep.testkit.ExplorationWalker.Problem;
import io.volrep.testkit.LifecycleModel.Action;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;

/**
 * One source's GetVolumeReplicationInfo answers compared over time, as the exploration sees them: a last sync time is
 * the time a sync completed, so it is never the zero timestamp (a plugin without details yet answers 5 NOT_FOUND, "not
 * available at the moment"), never later than the plugin's clock allows (the kit's clock, with a tolerance of
 * {@link #CLOCK_TOLERANCE} for clocks that differ between machines), and never earlier than an answer before it
 * while the source stays primary (a demote or a disable ends that stretch). Owned by one walker.
 */
final class AnswerHistory {
    /** How far a last sync time may lie ahead of the kit's clock: the clocks of two machines differ a little. */
    static final Duration CLOCK_TOLERANCE = Duration.ofMinutes(5);

    private final Kind kind;
    /** The latest last sync time answered since the source last became primary; null when none yet. */
    private Instant latest;

    AnswerHistory(Kind kind) {
        this.kind = kind;
    }

    /** The named check these comparisons report to, e.g. {@code GetVolumeReplicationInfo/volume/last-sync-time-over-time}. */
    static String checkId(Kind kind) {
        return Rpc.GET_VOLUME_REPLICATION_INFO.methodName() + "/" + LifecycleChecks.kindId(kind)
                + "/last-sync-time-over-time";
    }

    /**
     * The problem with {@code o}, an OK answer to {@code a} on {@code target}, against the answers before it; null
     * when there is none (or {@code o} is no Info answer with a last sync time).
     */
    Problem judge(Action a, Outcome o, Addressing target) {
        Instant now = Instant.now();
        Instant time = lastSyncTime(o);
        if (a.rpc() != Rpc.GET_VOLUME_REPLICATION_INFO || time == null) {
            return null;
        }
        String said = "GetVolumeReplicationInfo on " + target + " answered last_sync_time " + time;
        if (time.equals(Instant.EPOCH)) {
            return new Problem(
                    checkId(kind),
                    said + ": the zero timestamp is no sync time (while details are not available, the table's answer"
                            + " is 5 NOT_FOUND \"not available at the moment\")");
        }
        if (time.isAfter(now.plus(CLOCK_TOLERANCE))) {
            return new Problem(
                    checkId(kind),
                    said + ", " + Durations.describe(Duration.between(now, time)) + " after the kit's clock ("
                            + now + "; tolerance " + CLOCK_TOLERANCE.toMinutes()
                            + " minutes): a sync cannot have completed in the future");
        }
        if (latest != null && time.isBefore(latest)) {
            return new Problem(
                    checkId(kind),
                    said + ", earlier than the " + latest + " it answered before while the source stayed primary:"
                            + " the last sync time never goes back");
        }
        latest = latest == null || time.isAfter(latest) ? time : latest;
        return null;
    }

    /** Notes a call's answer: an OK demote or disable ends the source's stretch as primary. */
    void after(Action a, Outcome o) {
        if (o.ok() && (a.rpc() == Rpc.DEMOTE_VOLUME || a.rpc() == Rpc.DISABLE_VOLUME_REPLICATION)) {
            latest = null;
        }
    }

    /** Forgets every answer (the source is back to replication disabled). */
    void reset() {
        latest = null;
    }

    /** The answer's {@code last_sync_time}, in any revision's message; null when absent or not an Info answer. */
    static Instant lastSyncTime(Outcome o) {
        if (!o.ok() || o.rpc() != Rpc.GET_VOLUME_REPLICATION_INFO || o.response() == null) {
            return null;
        }
        Message response = o.response();
        FieldDescriptor field = response.getDescriptorForType().findFieldByName("last_sync_time");
        if (field == null || !response.hasField(field)) {
            return null;
        }
        Message ts = (Message) response.getField(field);
        long seconds = (Long) ts.getField(ts.getDescriptorForType().findFieldByName("seconds"));
        int nanos = (Integer) ts.getField(ts.getDescriptorForType().findFieldByName("nanos"));
        try {
            return Instant.ofEpochSecond(seconds, nanos);
        } catch (DateTimeException outOfRange) {
            return null; // out of Timestamp's range: the answer rules say so
        }
    }
}
