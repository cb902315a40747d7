package io.volrep.api;

import java.util.Objects;

/**
 * The answer of NodeHealer: whether the volume is abnormal, and the plugin's message describing its condition
 * (REQUIRED by the spec, also for a healthy volume).
 *
 * <pre>{@code
 * HealReport report = HealReport.healthy("filesystem clean");
 * if (report.abnormal()) { alert(report.message()); }
 * }</pre>
 *
 * @param abnormal true when the volume is not available for use or not operating optimally
 * @param message the condition of the volume, never empty
 */
public record HealReport(boolean abnormal, String message) {
    public HealReport {
        Objects.requireNonNull(message, "message is REQUIRED");
        if (message.isBlank()) {
            throw new IllegalArgumentException("message is REQUIRED and must not be blank");
        }
    }

    /** A normal volume. */
    public static HealReport healthy(String message) {
        return new HealReport(false, message);
    }

    /** An abnormal volume. */
    public static HealReport abnormal(String message) {
        return new HealReport(true, message);
    }
}
