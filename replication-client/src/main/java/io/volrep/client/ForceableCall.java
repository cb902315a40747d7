package io.volrep.client;

import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;

/**
 * A call with the spec's {@code force} flag: PromoteVolume, DemoteVolume and ResyncVolume.
 *
 * <pre>{@code
 * client.volume("pvc-1").promote().force().call();
 * }</pre>
 */
public abstract class ForceableCall<S extends ForceableCall<S, R>, R> extends ParameterizedCall<S, R> {
    private boolean force;

    ForceableCall(CallEngine engine, ReplicationSource source, Rpc rpc) {
        super(engine, source, rpc);
    }

    /** Sets {@code force}: act even when the plugin would otherwise refuse (plugin-defined). */
    public S force() {
        return force(true);
    }

    /** Sets or clears {@code force}. */
    public S force(boolean force) {
        this.force = force;
        return self();
    }

    @Override
    RequestSpec spec() {
        return spec(force);
    }
}
