package io.volrep.spi;

import io.volrep.api.Secrets;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A {@code CreateVolumeGroup} request, validated by the runtime ({@code name} present and within 128 bytes, each
 * volume id present, within 128 bytes and given once, maps within 4 KiB); {@code toString} masks the secrets.
 *
 * <pre>{@code
 * public VolumeGroup create(CreateGroupRequest r) {
 *     return array.consistencyGroup(r.name(), r.volumeIds(), r.parameters().getOrDefault("pool", "rbd"));
 * }
 * }</pre>
 *
 * @param name the name the CO suggests; the same name again must answer the same group (idempotent)
 * @param parameters plugin-specific parameters, unmodifiable
 * @param secrets the credentials the orchestrator passed; masked in {@code toString}
 * @param volumeIds the volumes the new group holds, in the request's order; unmodifiable, may be empty
 */
public record CreateGroupRequest(String name, Map<String, String> parameters, Secrets secrets, List<String> volumeIds) {
    public CreateGroupRequest {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(secrets, "secrets");
        parameters = RequestParts.copy(parameters);
        volumeIds = List.copyOf(volumeIds);
    }

    /** A request for {@code name} with these volumes and no parameters or secrets (handy in tests). */
    public static CreateGroupRequest of(String name, String... volumeIds) {
        return new CreateGroupRequest(name, Map.of(), Secrets.empty(), List.of(volumeIds));
    }
}
