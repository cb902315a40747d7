package io.volrep.api;

import java.util.Optional;
import java.util.Set;

/**
 * What Identity's {@code Capability.VolumeGroup} types say a plugin does ({@code identity.Capability.VolumeGroup.Type},
 * with its wire numbers): which {@code volumegroup.Controller} RPCs it implements (the spec: "MUST implement this RPC
 * call if it has X capability") and two behaviours. The client offers exactly the RPCs a plugin advertises; the SPI
 * runtime advertises exactly what a driver serves.
 *
 * <pre>{@code
 * VolumeGroupCapability.requiredFor(Rpc.LIST_VOLUME_GROUPS);          // LIST_VOLUME_GROUPS
 * VolumeGroupCapability.LIMIT_VOLUME_TO_ONE_VOLUME_GROUP.rpcs();      // [] (a behaviour, not an RPC)
 * }</pre>
 */
public enum VolumeGroupCapability {
    /** The service itself: CreateVolumeGroup and DeleteVolumeGroup. */
    VOLUME_GROUP(1, Set.of(Rpc.CREATE_VOLUME_GROUP, Rpc.DELETE_VOLUME_GROUP)),
    /** A volume is a member of at most one group. */
    LIMIT_VOLUME_TO_ONE_VOLUME_GROUP(2, Set.of()),
    /** Deleting a group never deletes its volumes: the CO deletes only the group. */
    DO_NOT_ALLOW_VG_TO_DELETE_VOLUMES(3, Set.of()),
    /** ModifyVolumeGroupMembership. */
    MODIFY_VOLUME_GROUP(4, Set.of(Rpc.MODIFY_VOLUME_GROUP_MEMBERSHIP)),
    /** ControllerGetVolumeGroup. */
    GET_VOLUME_GROUP(5, Set.of(Rpc.CONTROLLER_GET_VOLUME_GROUP)),
    /** ListVolumeGroups. */
    LIST_VOLUME_GROUPS(6, Set.of(Rpc.LIST_VOLUME_GROUPS));

    private final int wireNumber;
    private final Set<Rpc> rpcs;

    VolumeGroupCapability(int wireNumber, Set<Rpc> rpcs) {
        this.wireNumber = wireNumber;
        this.rpcs = rpcs;
    }

    /** The number of the type on the wire. */
    public int wireNumber() {
        return wireNumber;
    }

    /** The RPCs the capability makes available; empty for the two behaviours. */
    public Set<Rpc> rpcs() {
        return rpcs;
    }

    /** True for a behaviour ({@code LIMIT_...}, {@code DO_NOT_ALLOW_...}) rather than an RPC. */
    public boolean isBehaviour() {
        return rpcs.isEmpty();
    }

    /** The type of a wire number; empty for 0 (UNKNOWN) and numbers this build does not know. */
    public static Optional<VolumeGroupCapability> fromWireNumber(int number) {
        for (VolumeGroupCapability c : values()) {
            if (c.wireNumber == number) {
                return Optional.of(c);
            }
        }
        return Optional.empty();
    }

    /**
     * The capability a plugin must advertise to implement {@code rpc}.
     *
     * @throws IllegalArgumentException when {@code rpc} is not a {@code volumegroup.Controller} method
     */
    public static VolumeGroupCapability requiredFor(Rpc rpc) {
        for (VolumeGroupCapability c : values()) {
            if (c.rpcs.contains(rpc)) {
                return c;
            }
        }
        throw new IllegalArgumentException(rpc + " is not a volumegroup.Controller method");
    }
}
