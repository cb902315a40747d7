package io.volrep.testkit.fake;

/**
 * Protocol violations a {@link FakePlugin} can put into GetVolumeReplicationInfo answers, below the SPI
 * runtime's own response checks, to test how an orchestrator copes with a broken plugin.
 *
 * <pre>{@code
 * fake.violateInfo(InfoViolation.MISSING_LAST_SYNC_TIME);
 * }</pre>
 */
public enum InfoViolation {
    /** Answers as the driver says. */
    NONE,
    /** Drops the REQUIRED {@code last_sync_time}. */
    MISSING_LAST_SYNC_TIME,
    /** Sets {@code last_sync_bytes} to -1 (the spec: MUST NOT be negative). */
    NEGATIVE_LAST_SYNC_BYTES,
    /** Sets {@code last_sync_duration} to -1 s. */
    NEGATIVE_LAST_SYNC_DURATION
}
