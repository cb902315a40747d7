package io.volrep.api;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

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
    ENABLE_VOLUME_REPLICATION(Services.REPLICATION),
    DISABLE_VOLUME_REPLICATION(Services.REPLICATION),
    PROMOTE_VOLUME(Services.REPLICATION),
    DEMOTE_VOLUME(Services.REPLICATION),
    RESYNC_VOLUME(Services.REPLICATION),
    GET_VOLUME_REPLICATION_INFO(Services.REPLICATION),
    /** Upstream 2026: the destination of a replicated source; the legacy revisions do not have it. */
    GET_REPLICATION_DESTINATION_INFO(Services.REPLICATION),
    NODE_HEALER(Services.HEALER),
    /** Creates a volume group, idempotent by name. */
    CREATE_VOLUME_GROUP(Services.VOLUME_GROUP),
    /** Sets a volume group's whole membership (when MODIFY_VOLUME_GROUP is advertised). */
    MODIFY_VOLUME_GROUP_MEMBERSHIP(Services.VOLUME_GROUP),
    /** Deletes a volume group; one that does not exist answers OK. */
    DELETE_VOLUME_GROUP(Services.VOLUME_GROUP),
    /** Lists the volume groups, page by page (when LIST_VOLUME_GROUPS is advertised). */
    LIST_VOLUME_GROUPS(Services.VOLUME_GROUP),
    /** One volume group as it is now (when GET_VOLUME_GROUP is advertised). */
    CONTROLLER_GET_VOLUME_GROUP(Services.VOLUME_GROUP),
    /** The plugin's name, vendor version and manifest. */
    GET_IDENTITY(Services.IDENTITY),
    /** The services and capabilities the plugin declares. */
    GET_CAPABILITIES(Services.IDENTITY),
    /** Whether the plugin is ready to serve. */
    PROBE(Services.IDENTITY);

    private final String service;
    /** The spec names its methods as the constants are named, in UpperCamelCase: {@code EnableVolumeReplication}. */
    private final String methodName = Arrays.stream(name().split("_"))
            .map(word -> word.charAt(0) + word.substring(1).toLowerCase(Locale.ROOT))
            .collect(Collectors.joining());

    Rpc(String service) {
        this.service = service;
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
        return service.equals(Services.REPLICATION);
    }

    /** True for the five {@code volumegroup.Controller} methods. */
    public boolean isVolumeGroup() {
        return service.equals(Services.VOLUME_GROUP);
    }

    /** True for the three {@code identity.Identity} methods, which concern no replication source. */
    public boolean isIdentity() {
        return service.equals(Services.IDENTITY);
    }

    /** The RPC the spec calls {@code methodName}, if any. */
    public static Optional<Rpc> fromMethodName(String methodName) {
        return Arrays.stream(values())
                .filter(r -> r.methodName.equals(methodName))
                .findFirst();
    }

    @Override
    public String toString() {
        return methodName;
    }

    /** The services' names (an enum's constants cannot refer to its own static fields). */
    private static final class Services {
        static final String REPLICATION = "replication.Controller";
        static final String HEALER = "healer.HealerNode";
        static final String VOLUME_GROUP = "volumegroup.Controller";
        static final String IDENTITY = "identity.Identity";
    }
}
