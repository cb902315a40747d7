package io.volrep.spi;

import io.volrep.api.ReplicationSource;

/**
 * A {@code GetReplicationDestinationInfo} request, validated by the runtime (source kind and id, secrets within CSI's
 * limits); {@code toString} masks the secrets. The request has no parameters and no replication id.
 *
 * <pre>{@code
 * public ReplicationDestination destination(DestinationRequest r) {
 *     return ReplicationDestination.volume(backend.mirror(r.source().id()).peerVolumeId());
 * }
 * }</pre>
 */
public final class DestinationRequest extends SourceRequest {
    private DestinationRequest(Builder b) {
        super(b);
    }

    /** A new builder; {@link Builder#source} is required. */
    public static Builder builder() {
        return new Builder();
    }

    /** A request for {@code source} with no secrets or deadline (handy in tests). */
    public static DestinationRequest of(ReplicationSource source) {
        return builder().source(source).build();
    }

    /** A builder holding this request's fields, to pass on a changed copy. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Builds a {@link DestinationRequest}. */
    public static final class Builder extends SourceRequest.Builder<Builder> {
        private Builder() {}

        private Builder(DestinationRequest r) {
            super(r);
        }

        @Override
        public DestinationRequest build() {
            return new DestinationRequest(this);
        }
    }
}
