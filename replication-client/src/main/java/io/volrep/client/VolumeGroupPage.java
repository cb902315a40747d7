package io.volrep.client;

import io.volrep.api.VolumeGroup;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One page of ListVolumeGroups: its groups, and where the next page starts.
 *
 * <pre>{@code
 * VolumeGroupPage page = client.volumeGroups().list().maxEntries(50).call();
 * page.nextToken().ifPresent(t -> client.volumeGroups().list().maxEntries(50).startingToken(t).call());
 * }</pre>
 *
 * @param groups the page's groups, in the plugin's order
 * @param nextToken the {@code starting_token} of the next page; empty on the last page
 */
public record VolumeGroupPage(List<VolumeGroup> groups, Optional<String> nextToken) {
    public VolumeGroupPage {
        groups = List.copyOf(groups);
        Objects.requireNonNull(nextToken, "nextToken");
    }
}
