package io.volrep.api;

import io.volrep.api.internal.Arguments;
import io.volrep.api.internal.SafeText;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The answer of GetVolumeReplicationInfo: when the last sync happened (REQUIRED), how long it took and how many
 * bytes it moved (both OPTIONAL; bytes never negative), and the replication's health ({@link Status}, REQUIRED
 * upstream) with an OPTIONAL human readable message.
 *
 * <p>A plugin (or a driver) that says nothing about health reports {@link Status#UNKNOWN}: volrep never claims a
 * replication is healthy on nobody's word, so that a DEGRADED replication cannot hide behind a plain success.
 * Revisions before upstream 2026 have no status field: their info reads as UNKNOWN.
 *
 * <pre>{@code
 * ReplicationInfo info = ReplicationInfo.of(Instant.parse("2026-01-01T00:00:00Z"))
 *         .withLastSyncDuration(Duration.ofSeconds(3))
 *         .withLastSyncBytes(4096)
 *         .withStatus(ReplicationInfo.Status.DEGRADED, "peer site unreachable since 10:02");
 * if (info.status().needsAttention()) { alert(info.statusMessage()); }
 * }</pre>
 *
 * @param lastSyncTime when the last sync completed
 * @param lastSyncDuration how long it took, when the plugin reports it
 * @param lastSyncBytes how many bytes it transferred, when the plugin reports it; 0 is a value (a sync that moved
 *                      nothing, printed {@code 0 B}): the current revision's proto3 field cannot tell it from "not
 *                      reported", and it is read as reported; empty only from a revision without the field (v0.1.3)
 * @param status the replication's health; {@link Status#UNKNOWN} when not reported
 * @param statusMessage a human readable message about the status; "" when none (untrusted text: escape it with
 *                      {@link SafeText#escape} before logging or printing)
 */
public record ReplicationInfo(
        Instant lastSyncTime,
        Optional<Duration> lastSyncDuration,
        OptionalLong lastSyncBytes,
        Status status,
        String statusMessage) {

    /** The replication's health, as upstream's {@code GetVolumeReplicationInfoResponse.Status} numbers it. */
    public enum Status {
        /** The plugin does not know, or did not say. */
        UNKNOWN(0),
        /** Replicating as configured. */
        HEALTHY(1),
        /** Replicating, but not as configured; may require user intervention. */
        DEGRADED(2),
        /** Not replicating; may require user intervention. */
        ERROR(3);

        private final int wireNumber;

        Status(int wireNumber) {
            this.wireNumber = wireNumber;
        }

        /** The enum's number on the wire. */
        public int wireNumber() {
            return wireNumber;
        }

        /** True for DEGRADED and ERROR, which "may require user intervention". */
        public boolean needsAttention() {
            return this == DEGRADED || this == ERROR;
        }

        /**
         * The status with this wire number.
         *
         * @throws IllegalArgumentException when the number is not one of the enum's
         */
        public static Status fromWireNumber(int number) {
            for (Status s : values()) {
                if (s.wireNumber == number) {
                    return s;
                }
            }
            throw new IllegalArgumentException(
                    "status " + number + " is not one of UNKNOWN (0), HEALTHY (1), " + "DEGRADED (2), ERROR (3)");
        }
    }

    public ReplicationInfo {
        Objects.requireNonNull(lastSyncTime, "lastSyncTime is REQUIRED");
        Arguments.requireNonNull(
                "lastSyncDuration",
                lastSyncDuration,
                "lastSyncBytes",
                lastSyncBytes,
                "status",
                status,
                "statusMessage",
                statusMessage);
        lastSyncDuration.ifPresent(d -> {
            if (d.isNegative()) {
                throw new IllegalArgumentException("last_sync_duration must not be negative: " + d);
            }
        });
        if (lastSyncBytes.isPresent() && lastSyncBytes.getAsLong() < 0) {
            throw new IllegalArgumentException("last_sync_bytes must not be negative: " + lastSyncBytes.getAsLong());
        }
    }

    /** Sync figures without a reported status ({@link Status#UNKNOWN}). */
    public ReplicationInfo(Instant lastSyncTime, Optional<Duration> lastSyncDuration, OptionalLong lastSyncBytes) {
        this(lastSyncTime, lastSyncDuration, lastSyncBytes, Status.UNKNOWN, "");
    }

    /** Only the required field; status {@link Status#UNKNOWN}. */
    public static ReplicationInfo of(Instant lastSyncTime) {
        return new ReplicationInfo(lastSyncTime, Optional.empty(), OptionalLong.empty());
    }

    /** A copy with the duration set. */
    public ReplicationInfo withLastSyncDuration(Duration duration) {
        return new ReplicationInfo(lastSyncTime, Optional.of(duration), lastSyncBytes, status, statusMessage);
    }

    /** A copy with the byte count set. */
    public ReplicationInfo withLastSyncBytes(long bytes) {
        return new ReplicationInfo(lastSyncTime, lastSyncDuration, OptionalLong.of(bytes), status, statusMessage);
    }

    /** A copy with the health set; {@code message} may be "". */
    public ReplicationInfo withStatus(Status status, String message) {
        return new ReplicationInfo(lastSyncTime, lastSyncDuration, lastSyncBytes, status, message);
    }
}
