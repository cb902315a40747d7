package io.volrep.client;

import com.google.protobuf.Message;
import io.volrep.api.Rpc;
import io.volrep.api.VolumeGroup;
import io.volrep.api.internal.wire.AnswerRules;
import io.volrep.api.internal.wire.WireMapping;
import io.volrep.proto.volumegroup.ControllerGetVolumeGroupResponse;

/**
 * ControllerGetVolumeGroup: the group as it is now. A group that does not exist answers
 * {@link io.volrep.api.SourceNotFoundException}, retried with back-off only when the {@link SourceVerifier} approves
 * {@code ReplicationSource.volumeGroup(id)}. An answer about another group is a
 * {@link io.volrep.api.ProtocolViolationException}. Offered when the plugin advertises
 * {@code VolumeGroup.GET_VOLUME_GROUP}.
 *
 * <pre>{@code
 * VolumeGroup group = client.volumeGroups().get("vg-1").call();
 * }</pre>
 */
public final class GetVolumeGroupCall extends ExistingGroupCall<GetVolumeGroupCall, VolumeGroup> {
    GetVolumeGroupCall(CallEngine engine, String volumeGroupId) {
        super(engine, Rpc.CONTROLLER_GET_VOLUME_GROUP, volumeGroupId);
    }

    @Override
    VolumeGroup result(Message response, int attempts) {
        ControllerGetVolumeGroupResponse r = (ControllerGetVolumeGroupResponse) response;
        WireMapping.requireNoProblems(AnswerRules.volumeGroup(r, volumeGroupId()), rpc, attempts);
        return WireMapping.fromProto(r.getVolumeGroup());
    }
}
