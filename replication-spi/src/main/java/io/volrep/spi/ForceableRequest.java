package io.volrep.spi;

import java.util.Map;

/**
 * A source change the orchestrator may {@linkplain #force() force} (promote, demote, resync): what forcing means is
 * each RPC's own, see {@link PromoteRequest}, {@link DemoteRequest}, {@link ResyncRequest}.
 *
 * <pre>{@code
 * if (r.force()) { log.warn("forced {} of {}", r.getClass().getSimpleName(), r.source()); }
 * }</pre>
 */
public abstract sealed class ForceableRequest extends SourceChangeRequest
        permits PromoteRequest, DemoteRequest, ResyncRequest {
    private final boolean force;

    ForceableRequest(Builder<?> b) {
        super(b);
        this.force = b.force;
    }

    /** The spec's {@code force}: go ahead even when it cannot be done cleanly (false by default). */
    public final boolean force() {
        return force;
    }

    @Override
    void fields(Map<String, Object> fields) {
        super.fields(fields);
        fields.put("force", force);
    }

    /**
     * Sets {@code force} besides what every change request carries.
     *
     * @param <B> the builder itself
     */
    public abstract static class Builder<B extends Builder<B>> extends SourceChangeRequest.Builder<B> {
        private boolean force;

        Builder() {}

        Builder(ForceableRequest r) {
            super(r);
            this.force = r.force;
        }

        /** The spec's {@code force} (default false). */
        public final B force(boolean force) {
            this.force = force;
            return self();
        }

        @Override
        public abstract ForceableRequest build();
    }
}
