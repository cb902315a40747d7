package io.volrep.spi;

import io.volrep.api.Secrets;

/**
 * A {@code ControllerGetVolumeGroup} request, validated by the runtime (the id present and within 128 bytes, the
 * secrets within 4 KiB); {@code toString} masks the secrets.
 *
 * <pre>{@code
 * public VolumeGroup get(GetGroupRequest r) {
 *     return array.consistencyGroup(r.volumeGroupId())
 *             .orElseThrow(() -> new SourceNotFoundException("no volume group " + r.volumeGroupId()));
 * }
 * }</pre>
 *
 * @param volumeGroupId the group to describe
 * @param secrets the credentials the orchestrator passed; masked in {@code toString}
 */
public record GetGroupRequest(String volumeGroupId, Secrets secrets) {
    public GetGroupRequest {
        RequestParts.requireGroupAndSecrets(volumeGroupId, secrets);
    }

    /** A request for {@code volumeGroupId} without secrets (handy in tests). */
    public static GetGroupRequest of(String volumeGroupId) {
        return new GetGroupRequest(volumeGroupId, Secrets.empty());
    }
}
