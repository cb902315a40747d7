package io.volrep.client;

import com.google.protobuf.Message;
import io.volrep.api.CsiLimits;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.Secrets;
import java.util.Map;
import java.util.Optional;

/** What one typed replication call sends, validated against the CSI limits before anything goes on the wire. */
record RequestSpec(
        Rpc rpc,
        ReplicationSource source,
        Map<String, String> parameters,
        boolean force,
        String replicationId,
        Secrets secretsOverride,
        RetryPolicy policy)
        implements CallSpec {

    /** @throws io.volrep.api.InvalidArgumentException naming the field, attributed to the RPC, with 0 attempts */
    RequestSpec validate() {
        CallSpec.checkFields(rpc, secretsOverride, () -> {
            CsiLimits.requireId(source.kind().idField(), source.id());
            CsiLimits.requireMapWithinLimit("parameters", parameters);
            CsiLimits.requireStringWithinLimit("replication_id", replicationId);
        });
        return this;
    }

    @Override
    public RequestSpec validate(WireDialect wire) {
        validate();
        wire.requireExpressible(this);
        return this;
    }

    /** The replication service serializes per source (the spec's "one call in flight per replication_source"). */
    @Override
    public Optional<Object> flightKey() {
        return Optional.of(source);
    }

    @Override
    public Optional<ReplicationSource> concerns() {
        return Optional.of(source);
    }

    @Override
    public Message encode(WireDialect wire, Secrets secrets) {
        return wire.request(this, secrets);
    }
}
