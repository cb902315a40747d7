package io.volrep.client;

import com.google.protobuf.Message;
import io.volrep.api.InvalidArgumentException;
import io.volrep.api.Rpc;
import io.volrep.api.VolumeGroup;
import io.volrep.api.internal.wire.AnswerRules;
import io.volrep.api.internal.wire.WireMapping;
import io.volrep.proto.volumegroup.ModifyVolumeGroupMembershipResponse;

/**
 * ModifyVolumeGroupMembership: {@link #volumes volumes} become the group's whole membership (the plugin adds the new
 * ones and removes the others; {@code volumes()} with none removes every member). The membership must be set: a call
 * without {@code volumes(...)} is refused before sending, so that a forgotten list never empties a group. The answer
 * must be about the group asked about and list exactly the membership asked for, else
 * {@link io.volrep.api.ProtocolViolationException}. Offered when the
 * plugin advertises {@code VolumeGroup.MODIFY_VOLUME_GROUP}; one call per group in flight, its replication calls
 * included.
 *
 * <pre>{@code
 * VolumeGroup grown = client.volumeGroups().modify("vg-1").volumes("pvc-1", "pvc-2", "pvc-3").call();
 * client.volumeGroups().modify("vg-1").volumes().call();          // removes every member
 * }</pre>
 */
public final class ModifyVolumeGroupCall extends MembershipCall<ModifyVolumeGroupCall> {
    ModifyVolumeGroupCall(CallEngine engine, String volumeGroupId) {
        super(engine, Rpc.MODIFY_VOLUME_GROUP_MEMBERSHIP, volumeGroupId);
    }

    /** The group it changes. */
    public String volumeGroupId() {
        return target;
    }

    @Override
    VolumeGroupSpec spec() {
        if (!membershipSet) {
            throw InvalidArgumentException.ofField(
                    "volume_ids",
                    "the whole new membership is required: give it with"
                            + " volumes(...), or volumes() with none to remove every member",
                    rpc,
                    0);
        }
        return super.spec();
    }

    @Override
    VolumeGroup result(Message response, int attempts) {
        ModifyVolumeGroupMembershipResponse r = (ModifyVolumeGroupMembershipResponse) response;
        WireMapping.requireNoProblems(AnswerRules.volumeGroupModified(r, target, volumeIds), rpc, attempts);
        return WireMapping.fromProto(r.getVolumeGroup());
    }
}
