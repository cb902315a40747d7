package io.volrep.spi;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A {@code CreateVolumeGroup} request, validated by the runtime ({@code name} present and within 128 bytes, each volume
 * id present, within 128 bytes and given once, maps within 4 KiB); {@code toString} masks the secrets.
 *
 * <pre>{@code
 * public VolumeGroup create(CreateGroupRequest r) {
 *     return array.consistencyGroup(r.name(), r.volumeIds(), r.parameters().getOrDefault("pool", "rbd"));
 * }
 * }</pre>
 */
public final class CreateGroupRequest extends DriverRequest {
    private final String name;
    private final List<String> volumeIds;
    private final Map<String, String> parameters;

    private CreateGroupRequest(Builder b) {
        super(b);
        this.name = Objects.requireNonNull(b.name, "name");
        this.volumeIds = List.copyOf(b.volumeIds);
        this.parameters = RequestParts.copy(b.parameters);
    }

    /** The name the CO suggests; the same name again must answer the same group (idempotent). */
    public String name() {
        return name;
    }

    /** The volumes the new group holds, in the request's order; unmodifiable, may be empty. */
    public List<String> volumeIds() {
        return volumeIds;
    }

    /** Plugin-specific parameters, unmodifiable; empty when none. */
    public Map<String, String> parameters() {
        return parameters;
    }

    @Override
    void fields(Map<String, Object> fields) {
        fields.put("name", name);
        fields.put("volumeIds", volumeIds);
        fields.put("parameters", parameters);
    }

    /** A new builder; {@link Builder#name} is required. */
    public static Builder builder() {
        return new Builder();
    }

    /** A request for {@code name} with these volumes and no parameters, secrets or deadline (handy in tests). */
    public static CreateGroupRequest of(String name, String... volumeIds) {
        return builder().name(name).volumeIds(List.of(volumeIds)).build();
    }

    /** A builder holding this request's fields, to pass on a changed copy. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Builds a {@link CreateGroupRequest}. */
    public static final class Builder extends DriverRequest.Builder<Builder> {
        private String name;
        private List<String> volumeIds = List.of();
        private Map<String, String> parameters = Map.of();

        private Builder() {}

        private Builder(CreateGroupRequest r) {
            super(r);
            this.name = r.name;
            this.volumeIds = r.volumeIds;
            this.parameters = r.parameters;
        }

        /** The group's name (required). */
        public Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /** The volumes (default none). */
        public Builder volumeIds(List<String> volumeIds) {
            this.volumeIds = Objects.requireNonNull(volumeIds, "volumeIds");
            return this;
        }

        /** The parameters (default none). */
        public Builder parameters(Map<String, String> parameters) {
            this.parameters = Objects.requireNonNull(parameters, "parameters");
            return this;
        }

        @Override
        public CreateGroupRequest build() {
            return new CreateGroupRequest(this);
        }
    }
}
