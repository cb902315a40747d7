package io.volrep.spi;

import io.volrep.api.Secrets;
import java.util.List;
import java.util.Map;

/**
 * A {@code ModifyVolumeGroupMembership} request, validated by the runtime (the group id present and within 128
 * bytes, each volume id present, within 128 bytes and given once, maps within 4 KiB); {@code toString} masks the
 * secrets.
 *
 * <pre>{@code
 * public VolumeGroup modify(ModifyGroupRequest r) {
 *     return array.setMembers(r.volumeGroupId(), r.volumeIds());      // exactly these: add new, remove missing
 * }
 * }</pre>
 *
 * @param volumeGroupId the group to change
 * @param volumeIds the group's whole new membership, unmodifiable; empty removes every member
 * @param parameters plugin-specific parameters for the group or its volumes, unmodifiable
 * @param secrets the credentials the orchestrator passed; masked in {@code toString}
 */
public record ModifyGroupRequest(
        String volumeGroupId, List<String> volumeIds, Map<String, String> parameters, Secrets secrets) {
    public ModifyGroupRequest {
        RequestParts.requireGroupAndSecrets(volumeGroupId, secrets);
        volumeIds = List.copyOf(volumeIds);
        parameters = RequestParts.copy(parameters);
    }

    /** A request making {@code volumeIds} the membership of {@code volumeGroupId}, without parameters or secrets. */
    public static ModifyGroupRequest of(String volumeGroupId, String... volumeIds) {
        return new ModifyGroupRequest(volumeGroupId, List.of(volumeIds), Map.of(), Secrets.empty());
    }
}
