package io.volrep.client;

import com.google.protobuf.Message;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;

/**
 * EnableVolumeReplication.
 *
 * <pre>{@code
 * client.volume("pvc-1").enable().parameter("mirroringMode", "snapshot").call();
 * }</pre>
 */
public final class EnableCall extends ParameterizedCall<EnableCall, Void> {
    EnableCall(CallEngine engine, ReplicationSource source) {
        super(engine, source, Rpc.ENABLE_VOLUME_REPLICATION);
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
