package io.volrep.cli;

import io.volrep.api.ReplicationInfo;
import java.time.Duration;
import java.time.format.DateTimeFormatter;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * How every command prints a sync that GetVolumeReplicationInfo reported (info, reconcile, failover): ISO-8601
 * time, the duration as java.time prints it, bytes as {@code 0 B}; a figure the plugin did not report is said so
 * ({@code not reported}) or left out, never shown as zero.
 */
final class SyncText {
    static final String NOT_REPORTED = "not reported";

    private SyncText() {}

    /** {@code 2026-01-01T00:00:00Z}. */
    static String time(ReplicationInfo info) {
        return DateTimeFormatter.ISO_INSTANT.format(info.lastSyncTime());
    }

    /** {@code PT0.25S}, or {@value #NOT_REPORTED}. */
    static String duration(Optional<Duration> duration) {
        return duration.map(Object::toString).orElse(NOT_REPORTED);
    }

    /** {@code 0 B}, {@code 4096 B}, or {@value #NOT_REPORTED}: zero bytes is a value (a sync that moved nothing). */
    static String bytes(OptionalLong bytes) {
        return bytes.isPresent() ? bytes.getAsLong() + " B" : NOT_REPORTED;
    }

    /** One line: {@code 2026-01-01T00:00:00Z, took PT0.25S, 0 B}, leaving out what was not reported. */
    static String summary(ReplicationInfo info) {
        return time(info)
                + info.lastSyncDuration().map(d -> ", took " + d).orElse("")
                + (info.lastSyncBytes().isPresent() ? ", " + bytes(info.lastSyncBytes()) : "");
    }
}
