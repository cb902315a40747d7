package io.volrep.client;

import io.volrep.api.Rpc;
import io.volrep.api.UnimplementedException;
import io.volrep.api.VolumeGroupCapability;

/**
 * The plugin does not advertise the capability a call needs (Identity's {@code GetCapabilities}), so the call was
 * never sent ({@code attempts() == 0}): a plugin implements the volume group RPCs exactly when it advertises their
 * capabilities. It is an {@link UnimplementedException} (12 UNIMPLEMENTED, "MUST NOT retry"): what the plugin would
 * answer, without the round trip.
 *
 * <pre>{@code
 * try {
 *     client.volumeGroups().list().stream().forEach(g -> ...);
 * } catch (CapabilityNotAdvertisedException e) {
 *     log.info("no listing here: {}", e.getMessage());     // e.capability() == LIST_VOLUME_GROUPS
 * }
 * }</pre>
 */
public final class CapabilityNotAdvertisedException extends UnimplementedException {
    private static final long serialVersionUID = 1L;

    private final VolumeGroupCapability capability;

    CapabilityNotAdvertisedException(Rpc rpc, VolumeGroupCapability capability, String why) {
        super(
                rpc.methodName() + " is not offered: " + why + " (it needs VolumeGroup." + capability + "); nothing was"
                        + " sent",
                rpc,
                0,
                null);
        this.capability = capability;
    }

    /** The capability the call needs. */
    public VolumeGroupCapability capability() {
        return capability;
    }
}
