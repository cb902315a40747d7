package io.volrep.spi;

import io.volrep.api.UnimplementedException;
import io.volrep.api.VolumeGroup;
import io.volrep.api.VolumeGroupCapability;
import java.util.List;
import java.util.Set;

/**
 * What a storage vendor implements to serve CSI-Addons {@code volumegroup.Controller}: the groups that
 * {@code replication.Controller} replicates as {@code ReplicationSource.volumeGroup(id)}. {@link #create} and
 * {@link #delete} are the service ({@code VOLUME_GROUP}); {@link #modify}, {@link #get} and {@link #list} are
 * optional, each with its own capability. Implement only what the storage supports and declare it in
 * {@link #served()}: Identity advertises exactly that, and the runtime answers 12 UNIMPLEMENTED for the rest without
 * calling the driver.
 *
 * <p>The runtime ({@link ReplicationServer.Builder#volumeGroups}) validates every request first ({@code name} and ids
 * present and within CSI's 128 bytes, no volume id twice, maps within 4 KiB, {@code max_entries} not negative, the
 * pagination token its own), answers ABORTED to a second concurrent call for the same group (or name), maps
 * exceptions as for replication, and checks every answer against the spec's rules (a group with an id, members with
 * ids, Modify's answer exactly the membership asked for): a bad answer becomes UNKNOWN "driver returned an invalid
 * response". It paginates {@link #list}'s answer itself. Throw, as the error tables say:
 * <ul>
 *   <li>create: {@link io.volrep.api.InvalidArgumentException} for parameters the storage does not support, a
 *       {@code ReplicationException} of code 6 ALREADY_EXISTS for a name taken by an incompatible group,
 *       {@link io.volrep.api.PreconditionFailedException} when the volumes cannot be grouped together;</li>
 *   <li>modify: {@link io.volrep.api.InvalidArgumentException} for an incompatible volume,
 *       {@link io.volrep.api.SourceNotFoundException} for an unknown group or volume,
 *       {@link io.volrep.api.ResourceExhaustedException} when the group is full;</li>
 *   <li>delete: nothing for an unknown group (0 OK), {@link io.volrep.api.PreconditionFailedException} for a group
 *       in use (replicated, or with snapshots);</li>
 *   <li>get: {@link io.volrep.api.SourceNotFoundException} for an unknown group.</li>
 * </ul>
 * Every method must be idempotent and thread-safe.
 *
 * <pre>{@code
 * public final class MyGroups implements VolumeGroupDriver {
 *     public VolumeGroup create(CreateGroupRequest r) {
 *         return array.consistencyGroup(r.name(), r.volumeIds());   // the same group again for the same name
 *     }
 *     public void delete(DeleteGroupRequest r) {
 *         array.dropConsistencyGroup(r.volumeGroupId());           // keeps the volumes
 *     }
 *     public VolumeGroup modify(ModifyGroupRequest r) {
 *         return array.setMembers(r.volumeGroupId(), r.volumeIds());
 *     }
 *     public Set<VolumeGroupCapability> served() {       // create and delete, and modify
 *         return EnumSet.of(VolumeGroupCapability.VOLUME_GROUP, VolumeGroupCapability.MODIFY_VOLUME_GROUP);
 *     }
 *     public Set<VolumeGroupCapability> behaviours() {
 *         return Set.of(VolumeGroupCapability.LIMIT_VOLUME_TO_ONE_VOLUME_GROUP,
 *                 VolumeGroupCapability.DO_NOT_ALLOW_VG_TO_DELETE_VOLUMES);
 *     }
 * }
 * ReplicationServer.builder().driver(replication).volumeGroups(new MyGroups()).listen(uri).build().start();
 * }</pre>
 */
public interface VolumeGroupDriver {

    /**
     * CreateVolumeGroup: the group named {@code name}, with the volumes asked for. The same name again with compatible
     * parameters answers the same group (idempotent). The answer's members may be left empty (the spec requires them
     * only of Get, List and Modify), but a driver that knows them should say them.
     */
    VolumeGroup create(CreateGroupRequest request);

    /** DeleteVolumeGroup: remove the group; a group that does not exist is no error. */
    void delete(DeleteGroupRequest request);

    /**
     * ModifyVolumeGroupMembership: make {@code volumeIds} the group's whole membership (add the new ones, remove the
     * others; none removes all) and answer the group as it is then. Served when {@link #served()} declares
     * {@code MODIFY_VOLUME_GROUP}.
     */
    default VolumeGroup modify(ModifyGroupRequest request) {
        throw new UnimplementedException("ModifyVolumeGroupMembership is not implemented by this driver");
    }

    /** ControllerGetVolumeGroup: the group as it is now. Served when {@link #served()} declares {@code GET_VOLUME_GROUP}. */
    default VolumeGroup get(GetGroupRequest request) {
        throw new UnimplementedException("ControllerGetVolumeGroup is not implemented by this driver");
    }

    /**
     * ListVolumeGroups: every group the plugin knows, each once, in any order; the runtime pages it (sorted by id,
     * {@code max_entries} per page, its own {@code next_token}). Served when {@link #served()} declares
     * {@code LIST_VOLUME_GROUPS}.
     */
    default List<VolumeGroup> list(ListGroupsRequest request) {
        throw new UnimplementedException("ListVolumeGroups is not implemented by this driver");
    }

    /**
     * The RPC capabilities this driver serves, read once when the server is built: {@code VOLUME_GROUP} (create and
     * delete) always, plus {@code MODIFY_VOLUME_GROUP}, {@code GET_VOLUME_GROUP}, {@code LIST_VOLUME_GROUPS} for each of
     * {@link #modify}, {@link #get}, {@link #list} the driver implements. Identity advertises exactly these, and the
     * runtime answers 12 UNIMPLEMENTED to the others without calling the driver. The default is {@code VOLUME_GROUP}
     * alone: a declaration is explicit, never inferred from which methods a class overrides, so a wrapper
     * ({@link ForwardingVolumeGroupDriver}) declares what it wraps.
     *
     * <pre>{@code
     * public Set<VolumeGroupCapability> served() {
     *     return EnumSet.of(VolumeGroupCapability.VOLUME_GROUP, VolumeGroupCapability.MODIFY_VOLUME_GROUP);
     * }
     * }</pre>
     */
    default Set<VolumeGroupCapability> served() {
        return Set.of(VolumeGroupCapability.VOLUME_GROUP);
    }

    /**
     * The behaviours Identity advertises besides the RPCs: {@code LIMIT_VOLUME_TO_ONE_VOLUME_GROUP} (a volume is in
     * at most one group) and {@code DO_NOT_ALLOW_VG_TO_DELETE_VOLUMES} (deleting a group keeps its volumes). None by
     * default. Read once, when the server is built; any other capability here fails the build.
     */
    default Set<VolumeGroupCapability> behaviours() {
        return Set.of();
    }
}
