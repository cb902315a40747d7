package io.volrep.spi;

/**
 * A {@code ControllerGetVolumeGroup} request, validated by the runtime (the id present and within 128 bytes, the secrets within 4 KiB);
 * {@code toString} masks the secrets.
 *
 * <pre>{@code
 * public VolumeGroup get(GetGroupRequest r) {
 *     return array.consistencyGroup(r.volumeGroupId())
 *             .orElseThrow(() -> new SourceNotFoundException("no volume group " + r.volumeGroupId()));
 * }
 * }</pre>
 */
public final class GetGroupRequest extends GroupIdRequest {
    private GetGroupRequest(Builder b) {
        super(b);
    }

    /** A new builder; {@link Builder#volumeGroupId} is required. */
    public static Builder builder() {
        return new Builder();
    }

    /** A request for {@code volumeGroupId} without secrets or deadline (handy in tests). */
    public static GetGroupRequest of(String volumeGroupId) {
        return builder().volumeGroupId(volumeGroupId).build();
    }

    /** A builder holding this request's fields, to pass on a changed copy. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Builds a {@link GetGroupRequest}. */
    public static final class Builder extends GroupIdRequest.Builder<Builder> {
        private Builder() {}

        private Builder(GetGroupRequest r) {
            super(r);
        }

        @Override
        public GetGroupRequest build() {
            return new GetGroupRequest(this);
        }
    }
}
