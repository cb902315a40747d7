package io.volrep.client;

import io.volrep.api.Rpc;
import io.volrep.api.UnimplementedException;
import io.volrep.api.VolumeGroupCapability;
import io.volrep.api.internal.SafeText;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

/**
 * What Identity says the plugin offers, asked once per client ({@code GetCapabilities}, through the engine like every
 * call, with its retries) on the first call that needs it, and kept: the calls of {@link CallSpec#requiredCapability}
 * are offered exactly when it is advertised. A failed ask is not kept (the next call asks again); a plugin without
 * Identity advertises nothing.
 */
final class CapabilityGate {
    private final CallEngine engine;
    private final String target;
    private final AtomicReference<CompletableFuture<PluginCapabilities>> asked = new AtomicReference<>();

    CapabilityGate(CallEngine engine, String target) {
        this.engine = engine;
        this.target = target;
    }

    /**
     * Completes when the plugin advertises {@code needed}; fails with {@link CapabilityNotAdvertisedException} when it
     * does not (or serves no Identity), or with GetCapabilities' own failure.
     */
    CompletableFuture<Void> require(Rpc rpc, VolumeGroupCapability needed) {
        return capabilities().handle((caps, failure) -> {
            if (failure != null) {
                Throwable cause = CallEngine.unwrap(failure);
                if (cause instanceof UnimplementedException) {
                    throw new CompletionException(new CapabilityNotAdvertisedException(
                            rpc,
                            needed,
                            "the plugin at " + target
                                    + " serves no CSI-Addons Identity service, so it advertises no capability"));
                }
                throw new CompletionException(cause);
            }
            if (!caps.volumeGroupCapabilities().contains(needed)) {
                String advertised =
                        caps.volumeGroupCapabilities().stream().map(Enum::name).collect(Collectors.joining(", "));
                throw new CompletionException(new CapabilityNotAdvertisedException(
                        rpc,
                        needed,
                        "the plugin at "
                                + target + " does not advertise it (its VolumeGroup capabilities: "
                                + (advertised.isEmpty() ? "none" : SafeText.escape(advertised)) + ")"));
            }
            return null;
        });
    }

    /** The capabilities, asked once; an ask in flight is shared, a failed one is asked again. */
    private CompletableFuture<PluginCapabilities> capabilities() {
        while (true) {
            CompletableFuture<PluginCapabilities> current = asked.get();
            if (current != null && !current.isCompletedExceptionally()) {
                return current;
            }
            CompletableFuture<PluginCapabilities> mine = new CompletableFuture<>();
            if (asked.compareAndSet(current, mine)) {
                IdentityCall.capabilities(engine).callAsync().whenComplete((caps, failure) -> {
                    if (failure != null) {
                        mine.completeExceptionally(CallEngine.unwrap(failure));
                    } else {
                        mine.complete(caps);
                    }
                });
                return mine;
            }
        }
    }
}
