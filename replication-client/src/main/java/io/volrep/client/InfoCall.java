package io.volrep.client;

import com.google.protobuf.Message;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import java.util.Map;

/**
 * GetVolumeReplicationInfo. A response without {@code last_sync_time}, or with a negative byte count or
 * duration, fails with {@link io.volrep.api.ProtocolViolationException}: the plugin broke the spec. Under spec
 * revision v0.1.3 only {@code last_sync_time} exists (duration and bytes read as not reported); v0.1.0 has no
 * such RPC ({@link UnsupportedByDialectException}, nothing sent).
 *
 * <pre>{@code
 * ReplicationInfo info = client.volume("pvc-1").infoCall().replicationId("rid-1").call();
 * }</pre>
 */
public final class InfoCall extends ReplicationCall<InfoCall, ReplicationInfo> {
    InfoCall(CallEngine engine, ReplicationSource source) {
        super(engine, source, Rpc.GET_VOLUME_REPLICATION_INFO);
    }

    @Override
    RequestSpec spec() {
        return new RequestSpec(rpc, source, Map.of(), false, replicationId, secretsOverride, policy);
    }

    @Override
    ReplicationInfo result(Message response, int attempts) {
        return engine.settings().wire().info(response, attempts);
    }
}
