package io.volrep.spi;

import io.volrep.api.Secrets;

/**
 * A {@code DeleteVolumeGroup} request, validated by the runtime (the id present and within 128 bytes, the secrets
 * within 4 KiB); {@code toString} masks the secrets.
 *
 * <pre>{@code
 * public void delete(DeleteGroupRequest r) {
 *     if (array.isMirrored(r.volumeGroupId())) {
 *         throw new PreconditionFailedException("group " + r.volumeGroupId() + " is replicated");
 *     }
 *     array.dropConsistencyGroup(r.volumeGroupId());     // no such group: nothing to do, 0 OK
 * }
 * }</pre>
 *
 * @param volumeGroupId the group to delete
 * @param secrets the credentials the orchestrator passed; masked in {@code toString}
 */
public record DeleteGroupRequest(String volumeGroupId, Secrets secrets) {
    public DeleteGroupRequest {
        RequestParts.requireGroupAndSecrets(volumeGroupId, secrets);
    }

    /** A request for {@code volumeGroupId} without secrets (handy in tests). */
    public static DeleteGroupRequest of(String volumeGroupId) {
        return new DeleteGroupRequest(volumeGroupId, Secrets.empty());
    }
}
