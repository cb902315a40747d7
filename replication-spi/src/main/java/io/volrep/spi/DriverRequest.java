package io.volrep.spi;

import io.volrep.api.Secrets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.StringJoiner;

/**
 * What every request a driver is given carries: the orchestrator's {@linkplain #secrets() secrets} and the call's
 * {@linkplain #deadline() deadline}. Requests are immutable values that the runtime validates and normalizes before a
 * driver sees them. Each has a builder ({@code EnableRequest.builder()}, {@code r.toBuilder()}: for tests, and for
 * decorators that pass a changed request on), and its {@code toString} masks the secrets. A field the spec adds
 * becomes one more accessor and builder setter: code that reads or builds requests keeps compiling.
 *
 * <pre>{@code
 * public void promote(PromoteRequest r) {
 *     array.promote(r.source().id(), r.force(), r.deadline().remaining(Duration.ofSeconds(30)));
 * }
 * // a decorator that never forces:
 * super.promote(r.toBuilder().force(false).build());
 * }</pre>
 *
 * <p>Only this package defines requests: the constructors are not accessible to other packages.
 */
public abstract sealed class DriverRequest
        permits SourceRequest, GroupIdRequest, CreateGroupRequest, ListGroupsRequest, HealRequest {
    private final Secrets secrets;
    private final CallDeadline deadline;

    DriverRequest(Builder<?> b) {
        this.secrets = Objects.requireNonNull(b.secrets, "secrets");
        this.deadline = Objects.requireNonNull(b.deadline, "deadline");
    }

    /** The credentials the orchestrator passed (empty when none); masked in {@code toString}. */
    public final Secrets secrets() {
        return secrets;
    }

    /**
     * The time the driver has for this call: from the caller's gRPC deadline and the server's
     * {@linkplain ReplicationServer.Builder#driverTimeout own limit} ({@link CallDeadline#none()} when neither).
     */
    public final CallDeadline deadline() {
        return deadline;
    }

    /** Adds this request's own fields, most general first, for {@link #toString} and {@link #equals}. */
    abstract void fields(Map<String, Object> fields);

    private Map<String, Object> allFields() {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields(fields);
        fields.put("secrets", secrets);
        fields.put("deadline", deadline);
        return fields;
    }

    /** Equal when of the same class with equal fields (the same {@link CallDeadline} instance). */
    @SuppressWarnings("EqualsGetClass") // a demote never equals a promote with the same fields; equals is final
    @Override
    public final boolean equals(Object o) {
        return o != null && o.getClass() == getClass() && allFields().equals(((DriverRequest) o).allFields());
    }

    @Override
    public final int hashCode() {
        return allFields().hashCode();
    }

    /** e.g. {@code PromoteRequest[source=volume vol-1, ..., force=true, secrets=Secrets[user=***], deadline=in 9.7 s]}. */
    @Override
    public final String toString() {
        StringJoiner out = new StringJoiner(", ", getClass().getSimpleName() + "[", "]");
        allFields().forEach((name, value) -> out.add(name + "=" + value));
        return out.toString();
    }

    /**
     * What every request's builder sets: the secrets (default none) and the deadline (default
     * {@link CallDeadline#none()}).
     *
     * @param <B> the builder itself
     */
    public abstract static class Builder<B extends Builder<B>> {
        private Secrets secrets = Secrets.empty();
        private CallDeadline deadline = CallDeadline.none();

        Builder() {}

        Builder(DriverRequest r) {
            this.secrets = r.secrets;
            this.deadline = r.deadline;
        }

        /** The orchestrator's secrets. */
        public final B secrets(Secrets secrets) {
            this.secrets = Objects.requireNonNull(secrets, "secrets");
            return self();
        }

        /** The time the driver has for the call. */
        public final B deadline(CallDeadline deadline) {
            this.deadline = Objects.requireNonNull(deadline, "deadline");
            return self();
        }

        @SuppressWarnings("unchecked")
        final B self() {
            return (B) this;
        }

        /**
         * The request.
         *
         * @throws NullPointerException naming a required field that was not set
         */
        public abstract DriverRequest build();
    }
}
