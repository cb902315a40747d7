package io.volrep.client;

import com.google.protobuf.Message;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.wire.WireMapping;
import io.volrep.proto.replication.GetVolumeReplicationInfoResponse;
import java.util.Map;

/**
 * GetVolumeReplicationInfo. A response without {@code last_sync_time}, or with a negative byte count or
 * duration, fails with {@link io.volrep.api.ProtocolViolationException}: the plugin broke the spec.
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
        return WireMapping.fromProto((GetVolumeReplicationInfoResponse) response, attempts);
    }
}
