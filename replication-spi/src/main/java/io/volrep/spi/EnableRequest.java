package io.volrep.spi;

import io.volrep.api.ReplicationSource;

/**
 * An {@code EnableVolumeReplication} request, validated and normalized by the runtime before the driver sees it:
 * the source is always set (a request that carried only the deprecated {@code volume_id} arrives as a volume source),
 * maps are within CSI's limits, and {@code toString} masks the secrets.
 *
 * <pre>{@code
 * public void enable(EnableRequest r) {
 *     String mode = r.parameters().getOrDefault("mirroringMode", "snapshot");
 *     backend.enableMirroring(r.source().id(), mode, r.secrets().get("user").orElseThrow());
 * }
 * EnableRequest test = EnableRequest.builder().source(ReplicationSource.volume("vol-1"))
 *         .parameters(Map.of("mirroringMode", "snapshot")).build();
 * }</pre>
 */
public final class EnableRequest extends SourceChangeRequest {
    private EnableRequest(Builder b) {
        super(b);
    }

    /** A new builder; {@link Builder#source} is required. */
    public static Builder builder() {
        return new Builder();
    }

    /** A request for {@code source} with no parameters, secrets, replication id or deadline (handy in tests). */
    public static EnableRequest of(ReplicationSource source) {
        return builder().source(source).build();
    }

    /** A builder holding this request's fields, to pass on a changed copy. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Builds a {@link EnableRequest}. */
    public static final class Builder extends SourceChangeRequest.Builder<Builder> {
        private Builder() {}

        private Builder(EnableRequest r) {
            super(r);
        }

        @Override
        public EnableRequest build() {
            return new EnableRequest(this);
        }
    }
}
