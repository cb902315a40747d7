package io.volrep.spi;

import io.volrep.api.ReplicationSource;

/**
 * A {@code PromoteVolume} request, validated and normalized by the runtime before the driver sees it (see
 * {@link EnableRequest}); {@code toString} masks the secrets. {@link #force()}: promote even when the current primary cannot be reached to demote it.
 *
 * <pre>{@code
 * public void promote(PromoteRequest r) {
 *     backend.promote(r.source().id(), r.force());
 * }
 * }</pre>
 */
public final class PromoteRequest extends ForceableRequest {
    private PromoteRequest(Builder b) {
        super(b);
    }

    /** A new builder; {@link Builder#source} is required. */
    public static Builder builder() {
        return new Builder();
    }

    /** A request for {@code source} with no parameters, secrets, replication id or deadline, not forced (handy in tests). */
    public static PromoteRequest of(ReplicationSource source) {
        return builder().source(source).build();
    }

    /** A builder holding this request's fields, to pass on a changed copy. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Builds a {@link PromoteRequest}. */
    public static final class Builder extends ForceableRequest.Builder<Builder> {
        private Builder() {}

        private Builder(PromoteRequest r) {
            super(r);
        }

        @Override
        public PromoteRequest build() {
            return new PromoteRequest(this);
        }
    }
}
