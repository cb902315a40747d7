package io.volrep.client;

import io.volrep.api.Rpc;
import io.volrep.api.VolumeGroupCapability;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What a plugin advertises through {@code identity.Identity/GetCapabilities}: which CSI-Addons services it
 * runs (controller and/or node), whether it implements volume replication, and every other capability by name.
 *
 * <pre>{@code
 * PluginCapabilities caps = client.capabilities();
 * if (caps.volumeReplication() && caps.services().contains(PluginCapabilities.Service.CONTROLLER_SERVICE)) {
 *     // drive replication through this endpoint
 * }
 * }</pre>
 *
 * @param services the services the plugin runs at this endpoint
 * @param volumeReplication true when {@code VolumeReplication.VOLUME_REPLICATION} is advertised
 * @param others every other capability as {@code kind.TYPE}, e.g. {@code reclaim_space.ONLINE},
 *               {@code network_fence.NETWORK_FENCE}, in the plugin's order
 */
public record PluginCapabilities(Set<Service> services, boolean volumeReplication, List<String> others) {

    /** {@code Capability.Service.Type}. */
    public enum Service {
        CONTROLLER_SERVICE,
        NODE_SERVICE
    }

    public PluginCapabilities {
        Objects.requireNonNull(services, "services");
        EnumSet<Service> ordered = EnumSet.noneOf(Service.class);
        ordered.addAll(services);
        services = Collections.unmodifiableSet(ordered);
        others = others == null ? List.of() : List.copyOf(others);
    }

    /** {@code VolumeReplication.GET_REPLICATION_DESTINATION_INFO} as {@link #others()} names it. */
    public static final String DESTINATION_INFO = "volume_replication.GET_REPLICATION_DESTINATION_INFO";

    /**
     * True when {@code VolumeReplication.GET_REPLICATION_DESTINATION_INFO} (upstream 2026) is advertised: the plugin
     * answers {@link SourceClient#destination()}.
     */
    public boolean destinationInfo() {
        return others.contains(DESTINATION_INFO);
    }

    /**
     * The {@code VolumeGroup} capabilities advertised (those this build knows), in the enum's order: which
     * {@code volumegroup.Controller} RPCs the plugin offers ({@link VolumeGroupCapability#rpcs()}) and its
     * behaviours. {@link ReplicationClient#volumeGroups()} offers exactly these RPCs.
     *
     * <pre>{@code
     * if (client.capabilities().volumeGroupCapabilities().contains(VolumeGroupCapability.LIST_VOLUME_GROUPS)) { ... }
     * }</pre>
     */
    public Set<VolumeGroupCapability> volumeGroupCapabilities() {
        EnumSet<VolumeGroupCapability> found = EnumSet.noneOf(VolumeGroupCapability.class);
        for (String other : others) {
            if (other.startsWith(VOLUME_GROUP_PREFIX)) {
                String type = other.substring(VOLUME_GROUP_PREFIX.length());
                for (VolumeGroupCapability c : VolumeGroupCapability.values()) {
                    if (c.name().equals(type)) {
                        found.add(c);
                    }
                }
            }
        }
        return Collections.unmodifiableSet(found);
    }

    /** True when the plugin advertises the capability {@code rpc} needs ({@code volumegroup.Controller} methods). */
    public boolean offers(Rpc rpc) {
        return volumeGroupCapabilities().contains(VolumeGroupCapability.requiredFor(rpc));
    }

    /** How {@link #others()} names a {@code VolumeGroup} capability: {@code volume_group.TYPE}. */
    private static final String VOLUME_GROUP_PREFIX = "volume_group.";

    /** True when the plugin runs {@code service} here. */
    public boolean has(Service service) {
        return services.contains(service);
    }
}
