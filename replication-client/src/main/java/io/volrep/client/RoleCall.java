package io.volrep.client;

import com.google.protobuf.Message;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;

/**
 * PromoteVolume or DemoteVolume: makes the source primary or secondary. Both carry the same fields
 * ({@code force}, {@code parameters}, {@code replication_id}, secrets) and answer nothing but the outcome.
 *
 * <pre>{@code
 * client.volume("pvc-1").promote().force().call();
 * client.volume("pvc-1").demote().call();
 * }</pre>
 */
public final class RoleCall extends ForceableCall<RoleCall, Void> {
    RoleCall(CallEngine engine, ReplicationSource source, Rpc rpc) {
        super(engine, source, rpc);
    }

    @Override
    Void result(Message response, int attempts) {
        return null;
    }
}
