package io.volrep.spi;

import io.volrep.api.ReplicationSource;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@code GetVolumeReplicationInfo} request, validated and normalized by the runtime (see {@link EnableRequest}); it
 * carries no parameters. {@code toString} masks the secrets.
 *
 * <pre>{@code
 * public ReplicationInfo info(InfoRequest r) {
 *     Mirror m = backend.mirror(r.source().id());
 *     return ReplicationInfo.of(m.lastSync()).withLastSyncBytes(m.bytes());
 * }
 * }</pre>
 */
public final class InfoRequest extends SourceRequest {
    private final Optional<String> replicationId;

    private InfoRequest(Builder b) {
        super(b);
        this.replicationId = RequestParts.replicationId(b.replicationId);
    }

    /** The orchestrator's id of the replication, empty when not sent. */
    public Optional<String> replicationId() {
        return replicationId;
    }

    @Override
    void fields(Map<String, Object> fields) {
        super.fields(fields);
        fields.put("replicationId", replicationId);
    }

    /** A new builder; {@link Builder#source} is required. */
    public static Builder builder() {
        return new Builder();
    }

    /** A request for {@code source} with no secrets, replication id or deadline (handy in tests). */
    public static InfoRequest of(ReplicationSource source) {
        return builder().source(source).build();
    }

    /** A builder holding this request's fields, to pass on a changed copy. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Builds an {@link InfoRequest}. */
    public static final class Builder extends SourceRequest.Builder<Builder> {
        private String replicationId = "";

        private Builder() {}

        private Builder(InfoRequest r) {
            super(r);
            this.replicationId = r.replicationId.orElse("");
        }

        /** The replication id ({@code ""}, the default: not sent). */
        public Builder replicationId(String replicationId) {
            this.replicationId = Objects.requireNonNull(replicationId, "replicationId");
            return this;
        }

        @Override
        public InfoRequest build() {
            return new InfoRequest(this);
        }
    }
}
