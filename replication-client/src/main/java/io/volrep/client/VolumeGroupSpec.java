package io.volrep.client;

import com.google.protobuf.Message;
import io.volrep.api.CsiLimits;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.Secrets;
import io.volrep.api.VolumeGroupCapability;
import io.volrep.proto.volumegroup.ControllerGetVolumeGroupRequest;
import io.volrep.proto.volumegroup.CreateVolumeGroupRequest;
import io.volrep.proto.volumegroup.DeleteVolumeGroupRequest;
import io.volrep.proto.volumegroup.ListVolumeGroupsRequest;
import io.volrep.proto.volumegroup.ModifyVolumeGroupMembershipRequest;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What one {@code volumegroup.Controller} call sends. A call on a group ({@code volumeGroupId} set) concerns the
 * group as a replication source: its secrets, its {@link SourceVerifier}, and its single-flight lane, shared with the
 * group's replication calls (one call per group in flight, whatever the service). CreateVolumeGroup (the group has no
 * id yet) and ListVolumeGroups concern none: no lane, the {@linkplain SecretsProvider#pluginSecrets() plugin's
 * secrets}. Every call needs its {@linkplain VolumeGroupCapability#requiredFor capability} advertised. The service has
 * one revision, so the dialect does not apply.
 *
 * @param name CreateVolumeGroup's name, else null
 * @param volumeGroupId the group of Modify, Delete and Get, else null
 * @param volumeIds the membership of Create and Modify, else null
 * @param parameters the parameters of Create and Modify
 * @param maxEntries ListVolumeGroups' {@code max_entries}
 * @param startingToken ListVolumeGroups' {@code starting_token}, "" for the first page
 */
record VolumeGroupSpec(
        Rpc rpc,
        String name,
        String volumeGroupId,
        List<String> volumeIds,
        Map<String, String> parameters,
        int maxEntries,
        String startingToken,
        Secrets secretsOverride,
        RetryPolicy policy)
        implements CallSpec {

    VolumeGroupSpec {
        if (!rpc.isVolumeGroup()) {
            throw new IllegalArgumentException(rpc + " is not a volumegroup.Controller method");
        }
        parameters = parameters == null ? Map.of() : parameters;
        startingToken = startingToken == null ? "" : startingToken;
    }

    /** CreateVolumeGroup of the group named {@code target}, or ModifyVolumeGroupMembership of group {@code target}. */
    static VolumeGroupSpec membership(
            Rpc rpc,
            String target,
            List<String> volumeIds,
            Map<String, String> parameters,
            Secrets secrets,
            RetryPolicy policy) {
        boolean create = rpc == Rpc.CREATE_VOLUME_GROUP;
        return new VolumeGroupSpec(
                rpc, create ? target : null, create ? null : target, volumeIds, parameters, 0, "", secrets, policy);
    }

    /** DeleteVolumeGroup or ControllerGetVolumeGroup of {@code volumeGroupId}. */
    static VolumeGroupSpec of(Rpc rpc, String volumeGroupId, Secrets secrets, RetryPolicy policy) {
        return new VolumeGroupSpec(rpc, null, volumeGroupId, null, Map.of(), 0, "", secrets, policy);
    }

    static VolumeGroupSpec list(int maxEntries, String startingToken, Secrets secrets, RetryPolicy policy) {
        return new VolumeGroupSpec(
                Rpc.LIST_VOLUME_GROUPS, null, null, null, Map.of(), maxEntries, startingToken, secrets, policy);
    }

    /** A call on a group concerns it as a replication source; Create and List concern none. */
    @Override
    public Optional<ReplicationSource> concerns() {
        return volumeGroupId == null ? Optional.empty() : Optional.of(ReplicationSource.volumeGroup(volumeGroupId));
    }

    /** Every request of the service has a secrets field. */
    @Override
    public boolean sendsSecrets() {
        return true;
    }

    /** The group's lane, the same as its replication calls': one call per group in flight. */
    @Override
    public Optional<Object> flightKey() {
        return concerns().map(source -> source);
    }

    @Override
    public Optional<VolumeGroupCapability> requiredCapability() {
        return Optional.of(VolumeGroupCapability.requiredFor(rpc));
    }

    @Override
    public String subject() {
        if (name != null) {
            return rpc.methodName() + " for the volume group named " + name;
        }
        return volumeGroupId != null ? rpc.methodName() + " for volume group " + volumeGroupId : rpc.methodName();
    }

    /**
     * {@code name} and the group id REQUIRED within 128 bytes, each volume id too and none twice, the maps within
     * 4 KiB, {@code max_entries} not negative: the checks the SPI runtime makes, with the same messages.
     */
    @Override
    public VolumeGroupSpec validate(WireDialect wire) {
        CallSpec.checkFields(rpc, secretsOverride, () -> {
            if (rpc == Rpc.CREATE_VOLUME_GROUP) {
                CsiLimits.requireId("name", name);
            } else if (rpc != Rpc.LIST_VOLUME_GROUPS) {
                CsiLimits.requireId("volume_group_id", volumeGroupId);
            }
            if (volumeIds != null) {
                CsiLimits.requireIds("volume_ids", volumeIds);
            }
            CsiLimits.requireMapWithinLimit("parameters", parameters);
            CsiLimits.requireNotNegative("max_entries", maxEntries);
        });
        return this;
    }

    @Override
    public Message encode(WireDialect wire, Secrets secrets) {
        Map<String, String> s = secrets.asMap();
        return switch (rpc) {
            case CREATE_VOLUME_GROUP ->
                CreateVolumeGroupRequest.newBuilder()
                        .setName(name)
                        .putAllParameters(parameters)
                        .putAllSecrets(s)
                        .addAllVolumeIds(volumeIds)
                        .build();
            case MODIFY_VOLUME_GROUP_MEMBERSHIP ->
                ModifyVolumeGroupMembershipRequest.newBuilder()
                        .setVolumeGroupId(volumeGroupId)
                        .addAllVolumeIds(volumeIds)
                        .putAllSecrets(s)
                        .putAllParameters(parameters)
                        .build();
            case DELETE_VOLUME_GROUP ->
                DeleteVolumeGroupRequest.newBuilder()
                        .setVolumeGroupId(volumeGroupId)
                        .putAllSecrets(s)
                        .build();
            case LIST_VOLUME_GROUPS ->
                ListVolumeGroupsRequest.newBuilder()
                        .setMaxEntries(maxEntries)
                        .setStartingToken(startingToken)
                        .putAllSecrets(s)
                        .build();
            case CONTROLLER_GET_VOLUME_GROUP ->
                ControllerGetVolumeGroupRequest.newBuilder()
                        .setVolumeGroupId(volumeGroupId)
                        .putAllSecrets(s)
                        .build();
            default -> throw new IllegalStateException(rpc + " is not a volumegroup.Controller method");
        };
    }
}
