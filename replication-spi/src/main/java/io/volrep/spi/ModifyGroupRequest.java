package io.volrep.spi;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A {@code ModifyVolumeGroupMembership} request, validated by the runtime (the group id present and within 128 bytes,
 * each volume id present, within 128 bytes and given once, maps within 4 KiB); {@code toString} masks the secrets.
 * {@link #volumeIds()} is the group's whole new membership: empty removes every member.
 *
 * <pre>{@code
 * public VolumeGroup modify(ModifyGroupRequest r) {
 *     return array.setMembers(r.volumeGroupId(), r.volumeIds());      // exactly these: add new, remove missing
 * }
 * }</pre>
 */
public final class ModifyGroupRequest extends GroupIdRequest {
    private final List<String> volumeIds;
    private final Map<String, String> parameters;

    private ModifyGroupRequest(Builder b) {
        super(b);
        this.volumeIds = List.copyOf(b.volumeIds);
        this.parameters = RequestParts.copy(b.parameters);
    }

    /** The group's whole new membership, in the request's order; unmodifiable, empty removes every member. */
    public List<String> volumeIds() {
        return volumeIds;
    }

    /** Plugin-specific parameters for the group or its volumes, unmodifiable; empty when none. */
    public Map<String, String> parameters() {
        return parameters;
    }

    @Override
    void fields(Map<String, Object> fields) {
        super.fields(fields);
        fields.put("volumeIds", volumeIds);
        fields.put("parameters", parameters);
    }

    /** A new builder; {@link Builder#volumeGroupId} is required. */
    public static Builder builder() {
        return new Builder();
    }

    /** A request making {@code volumeIds} the membership of {@code volumeGroupId}, with nothing else (handy in tests). */
    public static ModifyGroupRequest of(String volumeGroupId, String... volumeIds) {
        return builder()
                .volumeGroupId(volumeGroupId)
                .volumeIds(List.of(volumeIds))
                .build();
    }

    /** A builder holding this request's fields, to pass on a changed copy. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Builds a {@link ModifyGroupRequest}. */
    public static final class Builder extends GroupIdRequest.Builder<Builder> {
        private List<String> volumeIds = List.of();
        private Map<String, String> parameters = Map.of();

        private Builder() {}

        private Builder(ModifyGroupRequest r) {
            super(r);
            this.volumeIds = r.volumeIds;
            this.parameters = r.parameters;
        }

        /** The whole new membership (default none: the group is emptied). */
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
        public ModifyGroupRequest build() {
            return new ModifyGroupRequest(this);
        }
    }
}
