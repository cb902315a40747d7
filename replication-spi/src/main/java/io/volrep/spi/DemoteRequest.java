package io.volrep.spi;

import io.volrep.api.ReplicationSource;

/**
 * A {@code DemoteVolume} request, validated and normalized by the runtime before the driver sees it (see
 * {@link EnableRequest}); {@code toString} masks the secrets. {@link #force()}: demote even when it cannot be done cleanly.
 *
 * <pre>{@code
 * public void demote(DemoteRequest r) {
 *     backend.demote(r.source().id(), r.force());
 * }
 * }</pre>
 */
public final class DemoteRequest extends ForceableRequest {
    private DemoteRequest(Builder b) {
        super(b);
    }

    /** A new builder; {@link Builder#source} is required. */
    public static Builder builder() {
        return new Builder();
    }

    /** A request for {@code source} with no parameters, secrets, replication id or deadline, not forced (handy in tests). */
    public static DemoteRequest of(ReplicationSource source) {
        return builder().source(source).build();
    }

    /** A builder holding this request's fields, to pass on a changed copy. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Builds a {@link DemoteRequest}. */
    public static final class Builder extends ForceableRequest.Builder<Builder> {
        private Builder() {}

        private Builder(DemoteRequest r) {
            super(r);
        }

        @Override
        public DemoteRequest build() {
            return new DemoteRequest(this);
        }
    }
}
