package io.volrep.api;

import java.util.Arrays;
import java.util.Optional;

/**
 * The RPCs of the CSI-Addons replication ({@code replication.Controller}), healer ({@code healer.HealerNode})
 * and identity ({@code identity.Identity}) services.
 *
 * <p>The Identity RPCs concern the plugin itself, not a replication source, and the spec gives them no error
 * table: {@link ErrorScheme#recovery} classes their codes without one.
 *
 * <pre>{@code
 * Rpc.PROMOTE_VOLUME.fullMethodName();   // "replication.Controller/PromoteVolume"
 * Rpc.PROBE.isIdentity();                // true
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
}
