package io.volrep.api;

import java.util.Arrays;
import java.util.Optional;

/**
 * The RPCs of the CSI-Addons replication ({@code replication.Controller}), healer ({@code healer.HealerNode}),
 * volume group ({@code volumegroup.Controller}) and identity ({@code identity.Identity}) services.
 *
 * <p>The Identity RPCs concern the plugin itself, not a replication source, and the spec gives them no error
 * table: {@link ErrorScheme#recovery} classes their codes without one.
 *
 * <pre>{@code
 * Rpc.PROMOTE_VOLUME.fullMethodName();   // "replication.Controller/PromoteVolume"
 * Rpc.PROBE.isIdentity();                // true
 * Rpc.CREATE_VOLUME_GROUP.isVolumeGroup(); // true
 * }</pre>
 */
public enum Rpc {
    ENABLE_VOLUME_REPLICATION("replication.Controller", "EnableVolumeReplication"),
    DISABLE_VOLUME_REPLICATION("replication.Controller", "DisableVolumeReplication"),
    PROMOTE_VOLUME("replication.Controller", "PromoteVolume"),
    DEMOTE_VOLUME("replication.Controller", "DemoteVolume"),
    RESYNC_VOLUME("replication.Controller", "ResyncVolume"),
    GET_VOLUME_REPLICATION_INFO("replication.Controller", "GetVolumeReplicationInfo"),
    /** Upstream 2026: the destination of a replicated source; the legacy revisions do not have it. */
    GET_REPLICATION_DESTINATION_INFO("replication.Controller", "GetReplicationDestinationInfo"),
    NODE_HEALER("healer.HealerNode", "NodeHealer"),
    /** Creates a volume group, idempotent by name. */
    CREATE_VOLUME_GROUP(Services.VOLUME_GROUP, "CreateVolumeGroup"),
    /** Sets a volume group's whole membership (when MODIFY_VOLUME_GROUP is advertised). */
    MODIFY_VOLUME_GROUP_MEMBERSHIP(Services.VOLUME_GROUP, "ModifyVolumeGroupMembership"),
    /** Deletes a volume group; one that does not exist answers OK. */
    DELETE_VOLUME_GROUP(Services.VOLUME_GROUP, "DeleteVolumeGroup"),
    /** Lists the volume groups, page by page (when LIST_VOLUME_GROUPS is advertised). */
    LIST_VOLUME_GROUPS(Services.VOLUME_GROUP, "ListVolumeGroups"),
    /** One volume group as it is now (when GET_VOLUME_GROUP is advertised). */
    CONTROLLER_GET_VOLUME_GROUP(Services.VOLUME_GROUP, "ControllerGetVolumeGroup"),
    /** The plugin's name, vendor version and manifest. */
    GET_IDENTITY("identity.Identity", "GetIdentity"),
    /** The services and capabilities the plugin declares. */
    GET_CAPABILITIES("identity.Identity", "GetCapabilities"),
    /** Whether the plugin is ready to serve. */
    PROBE("identity.Identity", "Probe");

    private final String service;
    private final String methodName;

    Rpc(String service, String methodName) {
        this.service = service;
        this.methodName = methodName;
    }

    /** The fully qualified gRPC service name, e.g. {@code replication.Controller}. */
    public String service() {
        return service;
    }

    /** The method name as the spec writes it, e.g. {@code PromoteVolume}. */
    public String methodName() {
        return methodName;
    }

    /** {@code service/method}, as gRPC names the method on the wire. */
    public String fullMethodName() {
        return service + "/" + methodName;
    }

    /** True for the seven {@code replication.Controller} methods. */
    public boolean isReplication() {
        return service.equals("replication.Controller");
    }

    /** True for the five {@code volumegroup.Controller} methods. */
    public boolean isVolumeGroup() {
        return service.equals(Services.VOLUME_GROUP);
    }

    /** True for the three {@code identity.Identity} methods, which concern no replication source. */
    public boolean isIdentity() {
        return service.equals("identity.Identity");
    }

    /** The RPC the spec calls {@code methodName}, if any. */
    public static Optional<Rpc> fromMethodName(String methodName) {
        return Arrays.stream(values()).filter(r -> r.methodName.equals(methodName)).findFirst();
    }

    @Override
    public String toString() {
        return methodName;
    }

    /** Service names used by more than one constant (an enum's constants cannot refer to its own static fields). */
    private static final class Services {
        static final String VOLUME_GROUP = "volumegroup.Controller";
    }
}
