package io.volrep.spi;

import io.volrep.api.ReplicationSource;

/**
 * A {@code ResyncVolume} request, validated and normalized by the runtime before the driver sees it (see
 * {@link EnableRequest}); {@code toString} masks the secrets. {@link #force()}: resync even when it discards local changes.
 *
 * <pre>{@code
 * public ResyncResult resync(ResyncRequest r) {
 *     return backend.resync(r.source().id(), r.force()).isComplete() ? ResyncResult.READY : ResyncResult.IN_PROGRESS;
 * }
 * }</pre>
 */
public final class ResyncRequest extends ForceableRequest {
    private ResyncRequest(Builder b) {
        super(b);
    }

    /** A new builder; {@link Builder#source} is required. */
    public static Builder builder() {
        return new Builder();
    }

    /** A request for {@code source} with no parameters, secrets, replication id or deadline, not forced (handy in tests). */
    public static ResyncRequest of(ReplicationSource source) {
        return builder().source(source).build();
    }

    /** A builder holding this request's fields, to pass on a changed copy. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Builds a {@link ResyncRequest}. */
    public static final class Builder extends ForceableRequest.Builder<Builder> {
        private Builder() {}

        private Builder(ResyncRequest r) {
            super(r);
        }

        @Override
        public ResyncRequest build() {
            return new ResyncRequest(this);
        }
    }
}
