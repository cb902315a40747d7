package io.volrep.client;

import com.google.protobuf.Message;
import io.volrep.api.Rpc;
import io.volrep.api.VolumeGroup;
import io.volrep.api.internal.wire.AnswerRules;
import io.volrep.api.internal.wire.WireMapping;
import io.volrep.proto.volumegroup.CreateVolumeGroupResponse;

/**
 * CreateVolumeGroup: the group named {@link #name()}, holding the {@link #volumes volumes} given (none: an empty
 * group). Idempotent by name: the same name with compatible parameters answers the same group, an incompatible one
 * 6 ALREADY_EXISTS ({@code ReplicationException} of that code, not retried). Volumes that cannot be grouped answer
 * {@link io.volrep.api.PreconditionFailedException}, also when the plugin sends upstream's "7" for it. Offered when
 * the plugin advertises {@code VolumeGroup.VOLUME_GROUP}; sends the {@linkplain SecretsProvider#pluginSecrets()
 * plugin's secrets} unless {@link #secrets} overrides them. The answer may list fewer members, or none, than were
 * asked for (the spec requires them of Get, List and Modify only), but never one that was not asked for
 * ({@link io.volrep.api.ProtocolViolationException}).
 *
 * <pre>{@code
 * VolumeGroup group = client.volumeGroups().create("db-1").volumes("pvc-1", "pvc-2")
 *         .parameter("replicationClass", "rbd-mirror").call();
 * client.volumeGroup(group.id()).enable().call();
 * }</pre>
 */
public final class CreateVolumeGroupCall extends MembershipCall<CreateVolumeGroupCall> {
    CreateVolumeGroupCall(CallEngine engine, String name) {
        super(engine, Rpc.CREATE_VOLUME_GROUP, name);
    }

    /** The name asked for. */
    public String name() {
        return target;
    }

    @Override
    VolumeGroup result(Message response, int attempts) {
        CreateVolumeGroupResponse r = (CreateVolumeGroupResponse) response;
        WireMapping.requireNoProblems(AnswerRules.volumeGroupCreated(r, volumeIds), rpc, attempts);
        return WireMapping.fromProto(r.getVolumeGroup());
    }
}
