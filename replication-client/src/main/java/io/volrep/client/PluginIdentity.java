package io.volrep.client;

import java.util.Map;
import java.util.Objects;

/**
 * What a plugin says about itself through the CSI-Addons Identity service ({@code identity.Identity/GetIdentity}).
 *
 * <pre>{@code
 * PluginIdentity id = client.identity();
 * log.info("{} {}", id.name(), id.vendorVersion());
 * }</pre>
 *
 * @param name the plugin's name, e.g. {@code rbd.csi.ceph.com}
 * @param vendorVersion the plugin's version (may be empty)
 * @param manifest opaque vendor information
 */
public record PluginIdentity(String name, String vendorVersion, Map<String, String> manifest) {
    public PluginIdentity {
        Objects.requireNonNull(name, "name");
        vendorVersion = vendorVersion == null ? "" : vendorVersion;
        manifest = manifest == null ? Map.of() : Map.copyOf(manifest);
    }
}
