package io.volrep.spi;

import io.volrep.api.ReplicationSource;

/**
 * A {@code DisableVolumeReplication} request, validated and normalized by the runtime before the driver sees it
 * (see {@link EnableRequest}); {@code toString} masks the secrets.
 *
 * <pre>{@code
 * public void disable(DisableRequest r) {
 *     backend.disableMirroring(r.source().id(), r.secrets().get("user").orElseThrow());
 * }
 * }</pre>
 */
public final class DisableRequest extends SourceChangeRequest {
    private DisableRequest(Builder b) {
        super(b);
    }

    /** A new builder; {@link Builder#source} is required. */
    public static Builder builder() {
        return new Builder();
    }

    /** A request for {@code source} with no parameters, secrets, replication id or deadline (handy in tests). */
    public static DisableRequest of(ReplicationSource source) {
        return builder().source(source).build();
    }

    /** A builder holding this request's fields, to pass on a changed copy. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Builds a {@link DisableRequest}. */
    public static final class Builder extends SourceChangeRequest.Builder<Builder> {
        private Builder() {}

        private Builder(DisableRequest r) {
            super(r);
        }

        @Override
        public DisableRequest build() {
            return new DisableRequest(this);
        }
    }
}
