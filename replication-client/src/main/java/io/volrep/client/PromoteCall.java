package io.volrep.client;

import com.google.protobuf.Message;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;

/**
 * PromoteVolume.
 *
 * <pre>{@code
 * client.volume("pvc-1").promote().force().call();
 * }</pre>
 */
public final class PromoteCall extends ParameterizedCall<PromoteCall, Void> {
    private boolean force;

    PromoteCall(CallEngine engine, ReplicationSource source) {
        super(engine, source, Rpc.PROMOTE_VOLUME);
    }

    /** Sets {@code force}: promote even when the plugin would otherwise refuse (plugin-defined). */
    public PromoteCall force() {
        return force(true);
    }

    /** Sets or clears {@code force}. */
    public PromoteCall force(boolean force) {
        this.force = force;
        return this;
    }

    @Override
    RequestSpec spec() {
        return spec(force);
    }

    @Override
    Void result(Message response, int attempts) {
        return null;
    }
}
