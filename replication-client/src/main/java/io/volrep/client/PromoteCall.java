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
public final class PromoteCall extends ForceableCall<PromoteCall, Void> {
    PromoteCall(CallEngine engine, ReplicationSource source) {
        super(engine, source, Rpc.PROMOTE_VOLUME);
    }

    @Override
    Void result(Message response, int attempts) {
        return null;
    }
}
