package io.volrep.spi;

import java.util.Map;
import java.util.Objects;

/**
 * A {@code volumegroup.Controller} request about one group, named by its {@linkplain #volumeGroupId() id} (present and
 * within CSI's 128 bytes): delete, get, modify.
 *
 * <pre>{@code
 * VolumeGroup group = array.consistencyGroup(r.volumeGroupId())
 *         .orElseThrow(() -> new SourceNotFoundException("no volume group " + r.volumeGroupId()));
 * }</pre>
 */
public abstract sealed class GroupIdRequest extends DriverRequest
        permits DeleteGroupRequest, GetGroupRequest, ModifyGroupRequest {
    private final String volumeGroupId;

    GroupIdRequest(Builder<?> b) {
        super(b);
        this.volumeGroupId = Objects.requireNonNull(b.volumeGroupId, "volumeGroupId");
    }

    /** The group the request is about. */
    public final String volumeGroupId() {
        return volumeGroupId;
    }

    @Override
    void fields(Map<String, Object> fields) {
        fields.put("volumeGroupId", volumeGroupId);
    }

    /**
     * Sets the group's id (required) besides the secrets and the deadline.
     *
     * @param <B> the builder itself
     */
    public abstract static class Builder<B extends Builder<B>> extends DriverRequest.Builder<B> {
        private String volumeGroupId;

        Builder() {}

        Builder(GroupIdRequest r) {
            super(r);
            this.volumeGroupId = r.volumeGroupId;
        }

        /** The group's id (required). */
        public final B volumeGroupId(String volumeGroupId) {
            this.volumeGroupId = Objects.requireNonNull(volumeGroupId, "volumeGroupId");
            return self();
        }

        @Override
        public abstract GroupIdRequest build();
    }
}
