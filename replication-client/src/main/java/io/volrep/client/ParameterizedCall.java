package io.volrep.client;

import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A call that carries the plugin-specific {@code parameters} map (every RPC but GetVolumeReplicationInfo).
 *
 * <pre>{@code
 * client.volume("pvc-1").enable().parameter("mirroringMode", "snapshot").parameters(storageClassParams).call();
 * }</pre>
 */
public abstract class ParameterizedCall<S extends ParameterizedCall<S, R>, R> extends ReplicationCall<S, R> {
    final Map<String, String> parameters = new LinkedHashMap<>();

    ParameterizedCall(CallEngine engine, ReplicationSource source, Rpc rpc) {
        super(engine, source, rpc);
    }

    /** Adds one parameter; together at most 4 KiB (checked before sending). */
    public S parameter(String key, String value) {
        return withParameter(parameters, key, value);
    }

    /** Adds every entry of {@code parameters}. */
    public S parameters(Map<String, String> parameters) {
        return withParameters(this.parameters, parameters);
    }

    RequestSpec spec(boolean force) {
        return new RequestSpec(rpc, source, Map.copyOf(parameters), force, replicationId, secretsOverride, policy);
    }
}
