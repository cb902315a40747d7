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

    private static final Rpc[] RPCS = Rpc.values();
    private static final StatusCode[] CODES = StatusCode.values();
    private static final ReplicationSource.Kind[] KINDS = ReplicationSource.Kind.values();
    /** How many RPCs there are: a {@link MeterTable} slot per RPC is its ordinal. */
    static final int RPC_COUNT = RPCS.length;
    /** How many {@link #index(Rpc, StatusCode)} values there are. */
    static final int RPC_CODES = RPCS.length * CODES.length;
    /** How many {@link #kindIndex} values there are: each source kind, and none. */
    static final int KIND_COUNT = KINDS.length + 1;

    private static final Map<Rpc, Tags> BY_RPC = new EnumMap<>(Rpc.class);
    private static final Map<Rpc, KeyValues> KEY_VALUES = new EnumMap<>(Rpc.class);

    static {
        for (Rpc rpc : Rpc.values()) {
            BY_RPC.put(
                    rpc,
                    Tags.of(Tag.of(SYSTEM, "grpc"), Tag.of(SERVICE, rpc.service()), Tag.of(METHOD, rpc.methodName())));
            KEY_VALUES.put(rpc, KeyValues.of(SYSTEM, "grpc", SERVICE, rpc.service(), METHOD, rpc.methodName()));
        }
    }

    private RpcTags() {}

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

    /** A {@link MeterTable} slot per source kind: 0 for none, else 1 + the kind's ordinal. */
    static int kindIndex(Optional<ReplicationSource> source) {
        return source.isEmpty() ? 0 : 1 + source.get().kind().ordinal();
    }

    /**
     * The tag value of a {@link #kindIndex}: {@code volume}, {@code volume_group}, ...: the kind, never the id;
     * {@code none} for an Identity call.
     */
    static String kindName(int kindIndex) {
        return kindIndex == 0 ? "none" : KINDS[kindIndex - 1].name().toLowerCase(Locale.ROOT);
    }

    /** A {@link MeterTable} slot per RPC and code, below {@link #RPC_CODES}. */
    static int index(Rpc rpc, StatusCode code) {
        return rpc.ordinal() * CODES.length + code.ordinal();
    }

    /** The tags of the RPC with this ordinal: those of {@link #of(Rpc)}. */
    static Tags ofOrdinal(int rpc) {
        return of(RPCS[rpc]);
    }

    /** The tags of an {@link #index(Rpc, StatusCode)}: those of {@link #of(Rpc, StatusCode)}. */
    static Tags ofIndex(int index) {
        return of(RPCS[index / CODES.length], CODES[index % CODES.length]);
    }
}
