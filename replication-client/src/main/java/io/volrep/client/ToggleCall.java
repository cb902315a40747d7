package io.volrep.client;

import com.google.protobuf.Message;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;

/**
 * EnableVolumeReplication or DisableVolumeReplication: switches replication of the source on or off. Both carry
 * the same fields ({@code parameters}, {@code replication_id}, secrets) and answer nothing but the outcome.
 *
 * <pre>{@code
 * client.volume("pvc-1").enable().parameter("mirroringMode", "snapshot").call();
 * client.volume("pvc-1").disable().call();
 * }</pre>
 */
public final class ToggleCall extends ParameterizedCall<ToggleCall, Void> {
    ToggleCall(CallEngine engine, ReplicationSource source, Rpc rpc) {
        super(engine, source, rpc);
    }

    @Override
    RequestSpec spec() {
        return spec(false);
    }

    @Override
    Void result(Message response, int attempts) {
        return null;
    }
}
