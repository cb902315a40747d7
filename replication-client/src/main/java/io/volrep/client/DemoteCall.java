package io.volrep.client;

import com.google.protobuf.Message;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;

/**
 * DemoteVolume.
 *
 * <pre>{@code
 * client.volume("pvc-1").demote().force().call();
 * }</pre>
 */
public final class DemoteCall extends ParameterizedCall<DemoteCall, Void> {
    private boolean force;

    DemoteCall(CallEngine engine, ReplicationSource source) {
        super(engine, source, Rpc.DEMOTE_VOLUME);
    }

    /** Sets {@code force}: demote even when the plugin would otherwise refuse (plugin-defined). */
    public DemoteCall force() {
        return force(true);
    }

    /** Sets or clears {@code force}. */
    public DemoteCall force(boolean force) {
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
