package io.volrep.spi.internal.runtime;

import io.volrep.api.CsiLimits;
import io.volrep.api.InvalidArgumentException;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Secrets;
import io.volrep.api.internal.SafeText;
import io.volrep.api.internal.wire.WireMapping;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The checks the runtime makes before a driver sees a request (replication, NodeHealer, volume groups), each failing with an
 * {@link InvalidArgumentException} whose message names the wire field (and quotes the caller's text escaped,
 * {@link SafeText#escape}: it is echoed to the client and logged).
 *
 * <pre>{@code
 * ReplicationSource source = RequestValidation.source(r.hasReplicationSource(), r.getReplicationSource(),
 *         r.getVolumeId(), driver.supportedSourceKinds());
 * }</pre>
 */
public final class RequestValidation {
    private RequestValidation() {}

    /**
     * The request's source: {@code replication_source} if set, else the deprecated {@code volume_id} as a
     * volume source. Fails when neither is set, an id is empty or over 128 bytes, {@code volume_id} names
     * another source than {@code replication_source}, or the driver does not support the kind.
     */
    public static ReplicationSource source(
            boolean hasReplicationSource,
            io.volrep.proto.replication.ReplicationSource replicationSource,
            String volumeId,
            Set<ReplicationSource.Kind> supportedKinds) {
        CsiLimits.requireStringWithinLimit("volume_id", volumeId);
        ReplicationSource source;
        if (hasReplicationSource) {
            source = WireMapping.fromProto(replicationSource);
            if (!volumeId.isEmpty()
                    && !(source.kind() == ReplicationSource.Kind.VOLUME
                            && source.id().equals(volumeId))) {
                throw InvalidArgumentException.ofField(
                        "volume_id",
                        "the deprecated volume_id \"" + SafeText.escape(volumeId)
                                + "\" disagrees with replication_source (" + SafeText.escape(source.toString())
                                + "); send replication_source only");
            }
        } else if (volumeId.isEmpty()) {
            throw InvalidArgumentException.ofField(
                    "replication_source", "required field is missing (and the deprecated volume_id is not set either)");
        } else {
            source = ReplicationSource.volume(volumeId);
        }
        if (!supportedKinds.contains(source.kind())) {
            throw InvalidArgumentException.ofField(
                    "replication_source",
                    source.kind().wireName()
                            + " sources are not supported by this plugin (supported: "
                            + supportedKinds.stream()
                                    .map(ReplicationSource.Kind::wireName)
                                    .sorted()
                                    .collect(Collectors.joining(", "))
                            + ")");
        }
        return source;
    }

    /** The parameters, within CSI's 4 KiB limit. */
    public static Map<String, String> parameters(Map<String, String> parameters) {
        return CsiLimits.requireMapWithinLimit("parameters", parameters);
    }

    /** The secrets, within CSI's 4 KiB limit (the message names sizes, never values). */
    public static Secrets secrets(Map<String, String> secrets) {
        return Secrets.of(CsiLimits.requireMapWithinLimit("secrets", secrets));
    }

    /**
     * A NodeHealer path: {@code required} paths must be non-empty; {@code absolute} paths (when given) must start
     * with {@code /}; none may contain NUL or exceed {@code maxBytes} UTF-8 bytes (the spec exempts these paths
     * from CSI's 128-byte limit).
     */
    public static String path(String field, String value, boolean required, boolean absolute, int maxBytes) {
        if (value.isEmpty()) {
            if (required) {
                throw InvalidArgumentException.ofField(field, "required field is missing");
            }
            return value;
        }
        int bytes = CsiLimits.utf8Length(value);
        if (bytes > maxBytes) {
            throw InvalidArgumentException.ofField(
                    field, bytes + " bytes, more than the " + maxBytes + " bytes this plugin accepts");
        }
        if (value.indexOf('\0') >= 0) {
            throw InvalidArgumentException.ofField(field, "contains a NUL character");
        }
        if (absolute && !value.startsWith("/")) {
            throw InvalidArgumentException.ofField(
                    field, "must be an absolute path, got \"" + SafeText.escape(value) + "\"");
        }
        return value;
    }

    /** The alpha {@code replication_id}, at most 128 bytes; {@code ""} when not sent. */
    public static String replicationId(String replicationId) {
        return CsiLimits.requireStringWithinLimit("replication_id", replicationId);
    }
}
