package io.volrep.spi;

import java.util.Map;

/**
 * A {@code ListVolumeGroups} request as the driver sees it: only the secrets and the deadline, since the runtime pages
 * the driver's answer itself ({@code max_entries}, {@code starting_token}); {@code toString} masks the secrets.
 *
 * <pre>{@code
 * public List<VolumeGroup> list(ListGroupsRequest r) {
 *     return array.consistencyGroups();      // all of them, each once
 * }
 * }</pre>
 */
public final class ListGroupsRequest extends DriverRequest {
    private ListGroupsRequest(Builder b) {
        super(b);
    }

    @Override
    void fields(Map<String, Object> fields) {}

    /** A new builder. */
    public static Builder builder() {
        return new Builder();
    }

    /** A request without secrets or deadline (handy in tests). */
    public static ListGroupsRequest of() {
        return builder().build();
    }

    /** A builder holding this request's fields, to pass on a changed copy. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Builds a {@link ListGroupsRequest}. */
    public static final class Builder extends DriverRequest.Builder<Builder> {
        private Builder() {}

        private Builder(ListGroupsRequest r) {
            super(r);
        }

        @Override
        public ListGroupsRequest build() {
            return new ListGroupsRequest(this);
        }
    }
}
