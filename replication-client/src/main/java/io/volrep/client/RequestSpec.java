package io.volrep.client;

import io.volrep.api.CsiLimits;
import io.volrep.api.InvalidArgumentException;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.Secrets;
import java.util.Map;

/** What one typed call sends, validated against the CSI limits before anything goes on the wire. */
record RequestSpec(Rpc rpc, ReplicationSource source, Map<String, String> parameters, boolean force,
                   String replicationId, Secrets secretsOverride, RetryPolicy policy) {

    /** @throws InvalidArgumentException naming the field, attributed to the RPC, with 0 attempts */
    RequestSpec validate() {
        try {
            CsiLimits.requireId(source.kind().idField(), source.id());
            CsiLimits.requireMapWithinLimit("parameters", parameters);
            CsiLimits.requireStringWithinLimit("replication_id", replicationId);
            if (secretsOverride != null) {
                CsiLimits.requireMapWithinLimit("secrets", secretsOverride.asMap());
            }
        } catch (InvalidArgumentException e) {
            throw (InvalidArgumentException) e.withContext(rpc, 0);
        }
        return this;
    }
}
