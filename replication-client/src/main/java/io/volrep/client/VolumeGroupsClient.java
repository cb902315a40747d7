package io.volrep.client;

import java.util.Objects;

/**
 * The operations of CSI-Addons {@code volumegroup.Controller}: the groups that replication replicates
 * ({@code client.volumeGroup(id)}). From {@link ReplicationClient#volumeGroups()}; cheap to create.
 *
 * <p>Each call goes through the client's engine like every other (validated before sending, retried per the
 * service's error tables, secrets, listeners and observers, one call per group in flight, replication calls of the
 * group included) and is offered only when the plugin advertises its capability ({@code VOLUME_GROUP} for create and
 * delete, {@code MODIFY_VOLUME_GROUP}, {@code GET_VOLUME_GROUP}, {@code LIST_VOLUME_GROUPS}): the client asks
 * Identity's GetCapabilities once, on its first volume group call, and refuses a call the plugin does not advertise
 * with {@link CapabilityNotAdvertisedException} before sending anything.
 *
 * <pre>{@code
 * VolumeGroupsClient groups = client.volumeGroups();
 * VolumeGroup g = groups.create("db-1").volumes("pvc-1", "pvc-2").parameter("pool", "rbd").call();
 * client.volumeGroup(g.id()).enable().call();                       // replicate it
 * groups.modify(g.id()).volumes("pvc-1", "pvc-2", "pvc-3").call();   // grow it: the whole membership
 * groups.get(g.id()).call();
 * groups.list().stream().forEach(System.out::println);
 * client.volumeGroup(g.id()).disable().call();
 * groups.delete(g.id()).call();
 * }</pre>
 */
public final class VolumeGroupsClient {
    private final CallEngine engine;

    VolumeGroupsClient(CallEngine engine) {
        this.engine = Objects.requireNonNull(engine, "engine");
    }

    /** CreateVolumeGroup of the group named {@code name}: add {@code volumes(...)} and parameters, then call. */
    public CreateVolumeGroupCall create(String name) {
        return new CreateVolumeGroupCall(engine, name);
    }

    /** ModifyVolumeGroupMembership of {@code volumeGroupId}: give the whole membership with {@code volumes(...)}. */
    public ModifyVolumeGroupCall modify(String volumeGroupId) {
        return new ModifyVolumeGroupCall(engine, volumeGroupId);
    }

    /** DeleteVolumeGroup of {@code volumeGroupId}. */
    public DeleteVolumeGroupCall delete(String volumeGroupId) {
        return new DeleteVolumeGroupCall(engine, volumeGroupId);
    }

    /** ControllerGetVolumeGroup of {@code volumeGroupId}. */
    public GetVolumeGroupCall get(String volumeGroupId) {
        return new GetVolumeGroupCall(engine, volumeGroupId);
    }

    /** ListVolumeGroups: one page with {@code call()}, or every group with {@code stream()}. */
    public ListVolumeGroupsCall list() {
        return new ListVolumeGroupsCall(engine);
    }

    @Override
    public String toString() {
        return "VolumeGroupsClient";
    }
}
