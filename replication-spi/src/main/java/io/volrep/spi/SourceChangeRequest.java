package io.volrep.spi;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A request that changes a source's replication (enable, disable, promote, demote, resync): besides the source, the
 * storage class's {@linkplain #parameters() parameters} and the orchestrator's {@linkplain #replicationId() replication
 * id}.
 *
 * <pre>{@code
 * String mode = r.parameters().getOrDefault("mirroringMode", "snapshot");
 * r.replicationId().ifPresent(id -> log.info("replication {}", id));
 * }</pre>
 */
public abstract sealed class SourceChangeRequest extends SourceRequest
        permits EnableRequest, DisableRequest, ForceableRequest {
    private final Map<String, String> parameters;
    private final Optional<String> replicationId;

    SourceChangeRequest(Builder<?> b) {
        super(b);
        this.parameters = RequestParts.copy(b.parameters);
        this.replicationId = RequestParts.replicationId(b.replicationId);
    }

    /** The storage class's opaque parameters (never secret), unmodifiable; empty when none. */
    public final Map<String, String> parameters() {
        return parameters;
    }

    /** The orchestrator's id of the replication (the spec's alpha {@code replication_id}), empty when not sent. */
    public final Optional<String> replicationId() {
        return replicationId;
    }

    @Override
    void fields(Map<String, Object> fields) {
        super.fields(fields);
        fields.put("parameters", parameters);
        fields.put("replicationId", replicationId);
    }

    /**
     * Sets the parameters and the replication id besides the source, the secrets and the deadline.
     *
     * @param <B> the builder itself
     */
    public abstract static class Builder<B extends Builder<B>> extends SourceRequest.Builder<B> {
        private Map<String, String> parameters = Map.of();
        private String replicationId = "";

        Builder() {}

        Builder(SourceChangeRequest r) {
            super(r);
            this.parameters = r.parameters;
            this.replicationId = r.replicationId.orElse("");
        }

        /** The parameters (default none). */
        public final B parameters(Map<String, String> parameters) {
            this.parameters = Objects.requireNonNull(parameters, "parameters");
            return self();
        }

        /** The replication id ({@code ""}, the default: not sent). */
        public final B replicationId(String replicationId) {
            this.replicationId = Objects.requireNonNull(replicationId, "replicationId");
            return self();
        }

        @Override
        public abstract SourceChangeRequest build();
    }
}
