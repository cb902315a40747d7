package io.volrep.api;

import java.util.Objects;

/**
 * The answer of NodeHealer: whether the volume is abnormal, and the plugin's message describing its condition
 * (REQUIRED by the spec, also for a healthy volume). The client never returns a report with an empty message (it
 * is a protocol violation); a driver's report with one is answered by the SPI runtime as an invalid driver answer.
 *
 * <pre>{@code
 * HealReport report = HealReport.healthy("filesystem clean");
 * if (report.abnormal()) { alert(report.message()); }
 * }</pre>
 *
 * @param abnormal true when the volume is not available for use or not operating optimally
 * @param message the condition of the volume; REQUIRED by the spec, so not empty in a valid report
 */
public record HealReport(boolean abnormal, String message) {
    public HealReport {
        Objects.requireNonNull(message, "message is REQUIRED");
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
