package io.volrep.spi;

import io.volrep.api.Secrets;
import java.util.Objects;

/**
 * A {@code ListVolumeGroups} request as the driver sees it: only the secrets, since the runtime pages the driver's
 * answer itself ({@code max_entries}, {@code starting_token}); {@code toString} masks the secrets.
 *
 * <pre>{@code
 * public List<VolumeGroup> list(ListGroupsRequest r) {
 *     return array.consistencyGroups();      // all of them, each once
 * }
 * }</pre>
 *
 * @param secrets the credentials the orchestrator passed; masked in {@code toString}
 */
public record ListGroupsRequest(Secrets secrets) {
    public ListGroupsRequest {
        Objects.requireNonNull(secrets, "secrets");
    }

    /** A request without secrets (handy in tests). */
    public static ListGroupsRequest of() {
        return new ListGroupsRequest(Secrets.empty());
    }
}
