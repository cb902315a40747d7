package io.volrep.testkit.reference;

import io.volrep.spi.ReplicationDriver;
import io.volrep.spi.ReplicationDriverProvider;
import java.time.Duration;
import java.util.Map;

/**
 * Makes the {@link ReferenceDriver} discoverable as {@code "reference"} through {@link java.util.ServiceLoader}.
 * Configuration keys: {@code volumes}, {@code groups} (counts, default 16 and 2), {@code latency}
 * (ISO-8601, e.g. {@code PT0.25S}), {@code resyncCallsUntilReady}, and {@code secret.KEY} for each required secret.
 *
 * <pre>{@code
 * ReplicationDriver driver = ReplicationDriverProvider.find("reference").orElseThrow()
 *         .create(Map.of("volumes", "4", "secret.user", "admin"));
 * }</pre>
 */
public final class ReferenceDriverProvider implements ReplicationDriverProvider {
    @Override
    public String name() {
        return "reference";
    }

    @Override
    public ReplicationDriver create() {
        return create(Map.of());
    }

    @Override
    public ReplicationDriver create(Map<String, String> config) {
        ReferenceDriver.Builder b = ReferenceDriver.builder()
                .volumes(Integer.parseInt(
                        config.getOrDefault("volumes", String.valueOf(ReferencePlugin.DEFAULT_VOLUMES))))
                .groups(Integer.parseInt(
                        config.getOrDefault("groups", String.valueOf(ReferencePlugin.DEFAULT_GROUPS))));
        if (config.containsKey("latency")) {
            b.latency(Duration.parse(config.get("latency")));
        }
        if (config.containsKey("resyncCallsUntilReady")) {
            b.resyncCallsUntilReady(Integer.parseInt(config.get("resyncCallsUntilReady")));
        }
        config.forEach((key, value) -> {
            if (key.startsWith("secret.")) {
                b.requiredSecret(key.substring("secret.".length()), value);
            }
        });
        return b.build();
    }
}
