package io.volrep.client;

import com.google.protobuf.Message;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;

/**
 * DisableVolumeReplication.
 *
 * <pre>{@code
 * client.volume("pvc-1").disable().call();
 * }</pre>
 */
public final class DisableCall extends ParameterizedCall<DisableCall, Void> {
    DisableCall(CallEngine engine, ReplicationSource source) {
        super(engine, source, Rpc.DISABLE_VOLUME_REPLICATION);
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
