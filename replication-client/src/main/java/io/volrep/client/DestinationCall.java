package io.volrep.client;

import com.google.protobuf.Message;
import io.volrep.api.ReplicationDestination;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import java.util.Map;

/**
 * GetReplicationDestinationInfo (upstream 2026): where the source is replicated to, a volume destination or a
 * group destination with its member map. Goes through the same engine as every call (retries, listeners,
 * masking, single-flight per source): 14 UNAVAILABLE ("destination info not yet available") is retried with
 * back-off. An answer without a destination, of another kind than the source, or with an empty id fails with
 * {@link io.volrep.api.ProtocolViolationException}. The legacy revisions have no such RPC
 * ({@link UnsupportedByDialectException}, nothing sent). The request has no parameters and no replication id.
 *
 * <pre>{@code
 * ReplicationDestination d = client.volumeGroup("grp-1").destinationCall().secrets(siteA).call();
 * }</pre>
 */
public final class DestinationCall extends TypedCall<DestinationCall, ReplicationDestination> {
    private final ReplicationSource source;

    DestinationCall(CallEngine engine, ReplicationSource source) {
        super(engine, Rpc.GET_REPLICATION_DESTINATION_INFO);
        this.source = source;
    }

    /** The source it addresses. */
    public ReplicationSource source() {
        return source;
    }

    @Override
    RequestSpec spec() {
        return new RequestSpec(rpc, source, Map.of(), false, null, secretsOverride, policy);
    }

    @Override
    ReplicationDestination result(Message response, int attempts) {
        return engine.settings().wire().destination(response, source.kind(), attempts);
    }
}
