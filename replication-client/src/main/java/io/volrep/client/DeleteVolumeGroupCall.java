package io.volrep.client;

import com.google.protobuf.Message;
import io.volrep.api.Rpc;

/**
 * DeleteVolumeGroup: a group that does not exist is no error (the plugin answers 0 OK). A group in use (replicated,
 * or with snapshots) answers {@link io.volrep.api.PreconditionFailedException}, not retried: make sure nothing uses
 * it, then call again. Unless the plugin advertises {@code DO_NOT_ALLOW_VG_TO_DELETE_VOLUMES}, the spec lets deleting a
 * group delete its volumes: empty it first ({@code modify(id).volumes().call()}) to keep them. Offered when the plugin
 * advertises {@code VolumeGroup.VOLUME_GROUP}.
 *
 * <pre>{@code
 * client.volumeGroups().delete("vg-1").call();
 * }</pre>
 */
public final class DeleteVolumeGroupCall extends ExistingGroupCall<DeleteVolumeGroupCall, Void> {
    DeleteVolumeGroupCall(CallEngine engine, String volumeGroupId) {
        super(engine, Rpc.DELETE_VOLUME_GROUP, volumeGroupId);
    }

    @Override
    Void result(Message response, int attempts) {
        return null;
    }
}
