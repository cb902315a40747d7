package io.volrep.spi.exec;

import java.util.Locale;
import java.util.Optional;

/**
 * The operations of the exec protocol: the first argument the bridge passes to a driver executable
 * ({@code <driver> <operation> <request-json>}, see docs/exec-drivers.md).
 *
 * <pre>{@code
 * if (driver.supportedOperations().contains(ExecOperation.RESYNC)) { ... }
 * ExecOperation.fromWireName("promote");        // Optional[PROMOTE]
 * ExecOperation.fromWireName("create-group");   // Optional[CREATE_GROUP]
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
    HEAL(false),
    /**
     * CreateVolumeGroup. The five group operations are off unless {@code init} turns them on: Identity advertises
     * {@code VOLUME_GROUP} exactly when {@code create-group} and {@code delete-group} both are, and each optional
     * RPC's capability when its operation is.
     */
    CREATE_GROUP(false),
    /** ModifyVolumeGroupMembership ({@code MODIFY_VOLUME_GROUP}). */
    MODIFY_GROUP(false),
    /** DeleteVolumeGroup. */
    DELETE_GROUP(false),
    /** ControllerGetVolumeGroup ({@code GET_VOLUME_GROUP}). */
    GET_GROUP(false),
    /** ListVolumeGroups ({@code LIST_VOLUME_GROUPS}): the driver prints every group, the bridge pages them. */
    LIST_GROUPS(false);

    private final boolean supportedByDefault;

    ExecOperation(boolean supportedByDefault) {
        this.supportedByDefault = supportedByDefault;
    }

    /** The name on the driver's command line and in {@code capabilities}, e.g. {@code "promote"}, {@code "create-group"}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
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
