package io.volrep.api;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The answer of GetVolumeReplicationInfo: when the last sync happened (REQUIRED), how long it took and
 * how many bytes it moved (both OPTIONAL; bytes never negative).
 *
 * <pre>{@code
 * ReplicationInfo info = ReplicationInfo.of(Instant.parse("2026-01-01T00:00:00Z"))
 *         .withLastSyncDuration(Duration.ofSeconds(3))
 *         .withLastSyncBytes(4096);
 * }</pre>
 *
 * @param lastSyncTime when the last sync completed
 * @param lastSyncDuration how long it took, when the plugin reports it
 * @param lastSyncBytes how many bytes it transferred, when the plugin reports it
 */
public record ReplicationInfo(Instant lastSyncTime, Optional<Duration> lastSyncDuration, OptionalLong lastSyncBytes) {

    public ReplicationInfo {
        Objects.requireNonNull(lastSyncTime, "lastSyncTime is REQUIRED");
        Objects.requireNonNull(lastSyncDuration, "lastSyncDuration");
        Objects.requireNonNull(lastSyncBytes, "lastSyncBytes");
        lastSyncDuration.ifPresent(d -> {
            if (d.isNegative()) {
                throw new IllegalArgumentException("last_sync_duration must not be negative: " + d);
            }
        });
        if (lastSyncBytes.isPresent() && lastSyncBytes.getAsLong() < 0) {
            throw new IllegalArgumentException("last_sync_bytes must not be negative: " + lastSyncBytes.getAsLong());
        }
    }

    /** Only the required field. */
    public static ReplicationInfo of(Instant lastSyncTime) {
        return new ReplicationInfo(lastSyncTime, Optional.empty(), OptionalLong.empty());
    }

    /** A copy with the duration set. */
    public ReplicationInfo withLastSyncDuration(Duration duration) {
        return new ReplicationInfo(lastSyncTime, Optional.of(duration), lastSyncBytes);
    }

    /** A copy with the byte count set. */
    public ReplicationInfo withLastSyncBytes(long bytes) {
        return new ReplicationInfo(lastSyncTime, lastSyncDuration, OptionalLong.of(bytes));
    }
}
