package io.volrep.micrometer;

import io.micrometer.common.KeyValues;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The tags every volrep meter carries, after OpenTelemetry's RPC semantic conventions: {@code rpc.system=grpc},
 * {@code rpc.service} (e.g. {@code replication.Controller}), {@code rpc.method} (e.g.
 * {@code EnableVolumeReplication}) and {@code rpc.grpc.status_code} (the numeric code, e.g. {@code 14}). All values
 * come from closed sets: a source id, a secret or anything else a caller sends never becomes a tag value.
 */
final class RpcTags {
    static final String SYSTEM = "rpc.system";
    static final String SERVICE = "rpc.service";
    static final String METHOD = "rpc.method";
    static final String STATUS_CODE = "rpc.grpc.status_code";
    static final String SOURCE_KIND = "volrep.source.kind";

    private static final Map<Rpc, Tags> BY_RPC = new EnumMap<>(Rpc.class);
    private static final Map<Rpc, KeyValues> KEY_VALUES = new EnumMap<>(Rpc.class);

    static {
        for (Rpc rpc : Rpc.values()) {
            BY_RPC.put(rpc, Tags.of(Tag.of(SYSTEM, "grpc"), Tag.of(SERVICE, rpc.service()),
                    Tag.of(METHOD, rpc.methodName())));
            KEY_VALUES.put(rpc, KeyValues.of(SYSTEM, "grpc", SERVICE, rpc.service(), METHOD, rpc.methodName()));
        }
    }

    private RpcTags() {
    }

    static Tags of(Rpc rpc) {
        return BY_RPC.get(rpc);
    }

    static Tags of(Rpc rpc, StatusCode code) {
        return BY_RPC.get(rpc).and(STATUS_CODE, code(code));
    }

    static KeyValues keyValues(Rpc rpc) {
        return KEY_VALUES.get(rpc);
    }

    static String code(StatusCode code) {
        return Integer.toString(code.value());
    }

    /** {@code volume}, {@code volume_group}, ...: the kind, never the id; {@code none} for an Identity call. */
    static String kind(Optional<ReplicationSource> source) {
        return source.map(s -> s.kind().name().toLowerCase(Locale.ROOT)).orElse("none");
    }
}
