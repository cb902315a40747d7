package io.volrep.spi.exec;

import java.util.Locale;
import java.util.Optional;

/**
 * The operations of the exec protocol: the first argument the bridge passes to a driver executable
 * ({@code <driver> <operation> <request-json>}, see docs/exec-drivers.md).
 *
 * <pre>{@code
 * if (driver.supportedOperations().contains(ExecOperation.RESYNC)) { ... }
 * ExecOperation.fromWireName("promote");   // Optional[PROMOTE]
 * }</pre>
 */
public enum ExecOperation {
    /** Run once at start; answers the driver's capabilities. Always run, never gated. */
    INIT(true),
    /** EnableVolumeReplication. */
    ENABLE(true),
    /** DisableVolumeReplication. */
    DISABLE(true),
    /** PromoteVolume. */
    PROMOTE(true),
    /** DemoteVolume. */
    DEMOTE(true),
    /** ResyncVolume. */
    RESYNC(true),
    /** GetVolumeReplicationInfo. */
    INFO(true),
    /**
     * GetReplicationDestinationInfo (upstream 2026). Off unless {@code init} says {@code "destination": true}:
     * Identity advertises the capability exactly when the driver serves it, and a driver written before the
     * operation existed must not be called with a name it does not know.
     */
    DESTINATION(false),
    /**
     * NodeHealer (the healer service). Off unless {@code init} says {@code "heal": true}: serving it means
     * running a node plugin, which a replication driver usually is not.
     */
    HEAL(false);

    private final boolean supportedByDefault;

    ExecOperation(boolean supportedByDefault) {
        this.supportedByDefault = supportedByDefault;
    }

    /** The name on the driver's command line and in {@code capabilities}, e.g. {@code "promote"}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Whether the operation counts as supported when {@code init}'s capabilities do not mention it. */
    public boolean supportedByDefault() {
        return supportedByDefault;
    }

    /** The operation called {@code name} on the wire (exact, lower case). */
    public static Optional<ExecOperation> fromWireName(String name) {
        for (ExecOperation op : values()) {
            if (op.wireName().equals(name)) {
                return Optional.of(op);
            }
        }
        return Optional.empty();
    }
}
