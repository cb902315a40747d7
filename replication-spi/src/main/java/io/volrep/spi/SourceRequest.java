package io.volrep.spi;

import io.volrep.api.ReplicationSource;
import java.util.Map;
import java.util.Objects;

/**
 * A {@code replication.Controller} request: it names its {@linkplain #source() source}, always set by the runtime (a
 * request that carried only the deprecated {@code volume_id} arrives as a volume source) and of a kind the driver
 * {@linkplain ReplicationDriver#supportedSourceKinds() supports}.
 *
 * <pre>{@code
 * void audit(SourceRequest r) {
 *     log.info("{} for {} ({} left)", r.getClass().getSimpleName(), r.source(), r.deadline());
 * }
 * }</pre>
 */
public abstract sealed class SourceRequest extends DriverRequest
        permits SourceChangeRequest, InfoRequest, DestinationRequest {
    private final ReplicationSource source;

    SourceRequest(Builder<?> b) {
        super(b);
        this.source = Objects.requireNonNull(b.source, "source");
    }

    /** What the request is about: a volume, a volume group or a volume snapshot, by its id. */
    public final ReplicationSource source() {
        return source;
    }

    @Override
    void fields(Map<String, Object> fields) {
        fields.put("source", source);
    }

    /**
     * Sets the source (required) besides the secrets and the deadline.
     *
     * @param <B> the builder itself
     */
    public abstract static class Builder<B extends Builder<B>> extends DriverRequest.Builder<B> {
        private ReplicationSource source;

        Builder() {}

        Builder(SourceRequest r) {
            super(r);
            this.source = r.source;
        }

        /** The source the request names (required). */
        public final B source(ReplicationSource source) {
            this.source = Objects.requireNonNull(source, "source");
            return self();
        }

        @Override
        public abstract SourceRequest build();
    }
}
