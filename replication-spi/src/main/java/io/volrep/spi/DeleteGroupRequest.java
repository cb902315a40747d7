package io.volrep.spi;

/**
 * A {@code DeleteVolumeGroup} request, validated by the runtime (the id present and within 128 bytes, the secrets within 4 KiB);
 * {@code toString} masks the secrets.
 *
 * <pre>{@code
 * public void delete(DeleteGroupRequest r) {
 *     if (array.isMirrored(r.volumeGroupId())) {
 *         throw new PreconditionFailedException("group " + r.volumeGroupId() + " is replicated");
 *     }
 *     array.dropConsistencyGroup(r.volumeGroupId());     // no such group: nothing to do, 0 OK
 * }
 * }</pre>
 */
public final class DeleteGroupRequest extends GroupIdRequest {
    private DeleteGroupRequest(Builder b) {
        super(b);
    }

    /** A new builder; {@link Builder#volumeGroupId} is required. */
    public static Builder builder() {
        return new Builder();
    }

    /** A request for {@code volumeGroupId} without secrets or deadline (handy in tests). */
    public static DeleteGroupRequest of(String volumeGroupId) {
        return builder().volumeGroupId(volumeGroupId).build();
    }

    /** A builder holding this request's fields, to pass on a changed copy. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Builds a {@link DeleteGroupRequest}. */
    public static final class Builder extends GroupIdRequest.Builder<Builder> {
        private Builder() {}

        private Builder(DeleteGroupRequest r) {
            super(r);
        }

        @Override
        public DeleteGroupRequest build() {
            return new DeleteGroupRequest(this);
        }
    }
}
