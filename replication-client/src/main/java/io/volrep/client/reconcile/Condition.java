package io.volrep.client.reconcile;

import java.util.Objects;

/**
 * One condition of a {@link ReconcileResult}, named and valued as the reference orchestrator
 * (kubernetes-csi-addons) sets them on its objects, so that an operator reads the same words in both places.
 *
 * <pre>{@code
 * if (result.condition(Condition.Type.DEGRADED).status() == Condition.Status.TRUE) { ... alert ... }
 * }</pre>
 *
 * @param type    which condition
 * @param status  true, false or unknown
 * @param reason  a short CamelCase reason, e.g. {@code Promoted}, {@code ResyncNotReady}
 * @param message a human-readable sentence (safe to print: untrusted text is escaped)
 */
public record Condition(Type type, Status status, String reason, String message) {

    /** The conditions the reference orchestrator reports. */
    public enum Type {
        /** The desired state was reached. */
        COMPLETED,
        /** The source works but needs attention: a resync in progress or replication not healthy. */
        DEGRADED,
        /** A resync was asked for and the plugin has not yet answered {@code ready}. */
        RESYNCING,
        /** Replication is healthy; read from the plugin's health status when the plugin reports one. */
        REPLICATING
    }

    /** A condition's value. */
    public enum Status {
        TRUE,
        FALSE,
        UNKNOWN
    }

    public Condition {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(message, "message");
    }

    static Condition of(Type type, boolean value, String reason, String message) {
        return new Condition(type, value ? Status.TRUE : Status.FALSE, reason, message);
    }
}
