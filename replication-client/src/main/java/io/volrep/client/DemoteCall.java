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
public final class DemoteCall extends ForceableCall<DemoteCall, Void> {
    DemoteCall(CallEngine engine, ReplicationSource source) {
        super(engine, source, Rpc.DEMOTE_VOLUME);
    }

    @Override
    Void result(Message response, int attempts) {
        return null;
    }
}
