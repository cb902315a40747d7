package io.volrep.api;

import java.util.Arrays;
import java.util.Optional;

/**
 * The RPCs of the CSI-Addons replication ({@code replication.Controller}) and healer
 * ({@code healer.HealerNode}) services.
 *
 * <pre>{@code
 * Rpc.PROMOTE_VOLUME.fullMethodName();   // "replication.Controller/PromoteVolume"
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
    NODE_HEALER("healer.HealerNode", "NodeHealer");

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

    /** The RPC the spec calls {@code methodName}, if any. */
    public static Optional<Rpc> fromMethodName(String methodName) {
        return Arrays.stream(values()).filter(r -> r.methodName.equals(methodName)).findFirst();
    }

    @Override
    public String toString() {
        return methodName;
    }
}
