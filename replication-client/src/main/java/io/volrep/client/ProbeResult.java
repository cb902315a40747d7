package io.volrep.client;

/**
 * The answer of {@code identity.Identity/Probe}.
 *
 * <pre>{@code
 * if (!client.probe().ready()) { requeueLater(); }
 * }</pre>
 *
 * @param ready whether the plugin is ready to serve; a plugin that leaves the optional {@code ready} unset is
 *              ready (the CSI convention)
 * @param reported whether the plugin set {@code ready} at all
 */
public record ProbeResult(boolean ready, boolean reported) {}
