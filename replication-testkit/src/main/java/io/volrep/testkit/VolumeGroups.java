package io.volrep.testkit;

import com.google.protobuf.Message;
import io.volrep.api.ErrorScheme;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.api.VolumeGroupCapability;
import io.volrep.api.internal.wire.AnswerRules;
import io.volrep.proto.identity.Capability;
import io.volrep.proto.identity.GetCapabilitiesRequest;
import io.volrep.proto.identity.GetCapabilitiesResponse;
import io.volrep.proto.volumegroup.ControllerGetVolumeGroupRequest;
import io.volrep.proto.volumegroup.ControllerGetVolumeGroupResponse;
import io.volrep.proto.volumegroup.CreateVolumeGroupRequest;
import io.volrep.proto.volumegroup.CreateVolumeGroupResponse;
import io.volrep.proto.volumegroup.DeleteVolumeGroupRequest;
import io.volrep.proto.volumegroup.ListVolumeGroupsRequest;
import io.volrep.proto.volumegroup.ListVolumeGroupsResponse;
import io.volrep.proto.volumegroup.ModifyVolumeGroupMembershipRequest;
import io.volrep.proto.volumegroup.ModifyVolumeGroupMembershipResponse;
import io.volrep.proto.volumegroup.VolumeGroup;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One check's dealings with {@code volumegroup.Controller}: what the plugin advertises (asked once per check), raw
 * requests, every OK answer judged by the {@link AnswerRules}, every group the check creates deleted after it (emptied
 * first when it has members, so that a plugin whose delete deletes volumes never deletes a fixture volume), and the
 * state of a group observed after every call that may change it, with ControllerGetVolumeGroup (or ListVolumeGroups
 * when Get is not advertised).
 *
 * <p>The suite creates only groups it can delete: empty ones always; ones with members (the configured volumes) only
 * when it can empty them before deleting them ({@code MODIFY_VOLUME_GROUP}) or the plugin keeps a deleted group's
 * volumes ({@code DO_NOT_ALLOW_VG_TO_DELETE_VOLUMES}). Its groups are named {@code volrep-conformance-<purpose>-<hex>},
 * a fresh name per check, so that a group left by an interrupted run never meets a later one.
 */
final class VolumeGroups {
    static final String NAME_PREFIX = "volrep-conformance-";

    final ConformanceContext ctx;
    final Set<VolumeGroupCapability> advertised;
    /** The groups this check created and their members as last asked for (null once deleted). */
    private final Map<String, List<String>> created = new LinkedHashMap<>();

    private VolumeGroups(ConformanceContext ctx, Set<VolumeGroupCapability> advertised) {
        this.ctx = ctx;
        this.advertised = advertised;
    }

    /** The volume groups of the plugin behind {@code ctx}: asks Identity what it advertises. */
    static VolumeGroups of(ConformanceContext ctx) {
        Outcome caps = ctx.send(Rpc.GET_CAPABILITIES, GetCapabilitiesRequest.getDefaultInstance());
        Set<VolumeGroupCapability> advertised = EnumSet.noneOf(VolumeGroupCapability.class);
        if (caps.ok()) {
            for (Capability c : ((GetCapabilitiesResponse) caps.response()).getCapabilitiesList()) {
                if (c.hasVolumeGroup()) {
                    VolumeGroupCapability.fromWireNumber(c.getVolumeGroup().getTypeValue())
                            .ifPresent(advertised::add);
                }
            }
        } else if (caps.code() != StatusCode.UNIMPLEMENTED) {
            ctx.fail("identity.Identity/GetCapabilities -> " + caps.describe()
                    + ": the suite asks it which volume group" + " RPCs the plugin offers");
        }
        return new VolumeGroups(ctx, advertised);
    }

    ErrorScheme scheme() {
        return ctx.scheme();
    }

    /** Reports "not implemented" unless the plugin advertises the service ({@code VOLUME_GROUP}). */
    VolumeGroups requireService() {
        if (!advertised.contains(VolumeGroupCapability.VOLUME_GROUP)) {
            ctx.notImplemented("volumegroup.Controller (Identity does not advertise VolumeGroup.VOLUME_GROUP)");
        }
        return this;
    }

    /** Reports "not implemented" unless the plugin advertises the service and what {@code rpc} needs. */
    VolumeGroups require(Rpc rpc) {
        requireService();
        VolumeGroupCapability needed = VolumeGroupCapability.requiredFor(rpc);
        if (!advertised.contains(needed)) {
            ctx.notImplemented(rpc.fullMethodName() + " (Identity does not advertise VolumeGroup." + needed + ")");
        }
        return this;
    }

    /** Skips unless the plugin advertises {@code behaviour}. */
    VolumeGroups requireBehaviour(VolumeGroupCapability behaviour) {
        if (!advertised.contains(behaviour)) {
            ctx.skip("the plugin does not advertise VolumeGroup." + behaviour);
        }
        return this;
    }

    /**
     * The first {@code n} configured volumes, to put into groups; skips when fewer are configured, or when the suite
     * could not delete a group with members without risking its volumes.
     */
    List<String> members(int n) {
        if (!advertised.contains(VolumeGroupCapability.MODIFY_VOLUME_GROUP)
                && !advertised.contains(VolumeGroupCapability.DO_NOT_ALLOW_VG_TO_DELETE_VOLUMES)) {
            ctx.skip("the suite puts volumes into a group only when it can delete the group without deleting them:"
                    + " the plugin advertises neither MODIFY_VOLUME_GROUP (to empty it first) nor"
                    + " DO_NOT_ALLOW_VG_TO_DELETE_VOLUMES");
        }
        if (ctx.config().volumes().size() < n) {
            ctx.skip("needs " + n + " fixture volumes (--volume)");
        }
        return List.copyOf(ctx.config().volumes().subList(0, n));
    }

    /** A fresh group name for this check. */
    static String name(String purpose) {
        return NAME_PREFIX + purpose + "-"
                + Integer.toHexString(ThreadLocalRandom.current().nextInt(1 << 20, 1 << 24));
    }

    // ---------------------------------------------------------------- raw calls

    Outcome create(String name, List<String> volumeIds, Map<String, String> parameters, Map<String, String> secrets) {
        Outcome o = ctx.send(
                Rpc.CREATE_VOLUME_GROUP,
                CreateVolumeGroupRequest.newBuilder()
                        .setName(name)
                        .addAllVolumeIds(volumeIds)
                        .putAllParameters(parameters)
                        .putAllSecrets(secrets)
                        .build());
        if (o.ok()) {
            // Whatever created it, the suite deletes it; judged after the bookkeeping, so a bad answer is cleaned too.
            VolumeGroup g = ((CreateVolumeGroupResponse) o.response()).getVolumeGroup();
            if (!g.getVolumeGroupId().isEmpty() && !created.containsKey(g.getVolumeGroupId())) {
                String id = g.getVolumeGroupId();
                created.put(id, volumeIds);
                ctx.atEnd(() -> cleanUp(id));
            }
            ResponseRules.requireValid(
                    ctx, Rpc.CREATE_VOLUME_GROUP, o.response(), AnswerRules.Asked.creation(volumeIds));
        }
        return o;
    }

    Outcome create(String name, List<String> volumeIds) {
        return create(name, volumeIds, ctx.config().enableParameters(), secrets());
    }

    /**
     * A group the check goes on with: CreateVolumeGroup must answer 0 OK; a plugin that cannot group the configured
     * volumes (they are in a configured group, say) skips the check, naming why.
     *
     * @return the group's id
     */
    String created(String purpose, List<String> volumeIds) {
        Outcome o = create(name(purpose), volumeIds);
        if (!volumeIds.isEmpty()
                && scheme().find(Rpc.CREATE_VOLUME_GROUP, StatusCode.FAILED_PRECONDITION)
                        .filter(row -> row.accepts(o.code()))
                        .isPresent()) {
            ctx.skip("the plugin cannot group " + volumeIds + " (" + o.describe() + "): configure fixture volumes"
                    + " that are in no group");
        }
        ctx.expect(o, StatusCode.OK, "CreateVolumeGroup of " + volumeIds);
        String id = ((CreateVolumeGroupResponse) o.response()).getVolumeGroup().getVolumeGroupId();
        observe(id, volumeIds, "CreateVolumeGroup");
        return id;
    }

    Outcome modify(String id, List<String> volumeIds, Map<String, String> secrets) {
        Outcome o = ctx.send(
                Rpc.MODIFY_VOLUME_GROUP_MEMBERSHIP,
                ModifyVolumeGroupMembershipRequest.newBuilder()
                        .setVolumeGroupId(id)
                        .addAllVolumeIds(volumeIds)
                        .putAllSecrets(secrets)
                        .putAllParameters(ctx.config().enableParameters())
                        .build());
        if (o.ok()) {
            if (created.containsKey(id)) {
                created.put(id, volumeIds);
            }
            ResponseRules.requireValid(
                    ctx, Rpc.MODIFY_VOLUME_GROUP_MEMBERSHIP, o.response(), AnswerRules.Asked.membership(id, volumeIds));
        }
        return o;
    }

    Outcome modify(String id, List<String> volumeIds) {
        return modify(id, volumeIds, secrets());
    }

    Outcome delete(String id, Map<String, String> secrets) {
        Outcome o = ctx.send(
                Rpc.DELETE_VOLUME_GROUP,
                DeleteVolumeGroupRequest.newBuilder()
                        .setVolumeGroupId(id)
                        .putAllSecrets(secrets)
                        .build());
        if (o.ok() && created.containsKey(id)) {
            created.put(id, null);
        }
        return o;
    }

    Outcome delete(String id) {
        return delete(id, secrets());
    }

    Outcome get(String id, Map<String, String> secrets) {
        Outcome o = ctx.send(
                Rpc.CONTROLLER_GET_VOLUME_GROUP,
                ControllerGetVolumeGroupRequest.newBuilder()
                        .setVolumeGroupId(id)
                        .putAllSecrets(secrets)
                        .build());
        if (o.ok()) {
            ResponseRules.requireValid(ctx, Rpc.CONTROLLER_GET_VOLUME_GROUP, o.response(), AnswerRules.Asked.group(id));
        }
        return o;
    }

    Outcome get(String id) {
        return get(id, secrets());
    }

    Outcome list(int maxEntries, String token, Map<String, String> secrets) {
        Outcome o = ctx.send(
                Rpc.LIST_VOLUME_GROUPS,
                ListVolumeGroupsRequest.newBuilder()
                        .setMaxEntries(maxEntries)
                        .setStartingToken(token)
                        .putAllSecrets(secrets)
                        .build());
        if (o.ok()) {
            ResponseRules.requireValid(ctx, Rpc.LIST_VOLUME_GROUPS, o.response(), AnswerRules.Asked.page(maxEntries));
        }
        return o;
    }

    /**
     * Every group, page by page with {@code maxEntries}: each page OK and valid, no group twice in the listing (nothing
     * else changes meanwhile: the suite runs one call at a time), the walk ending.
     */
    Map<String, VolumeGroup> listAll(int maxEntries) {
        Map<String, VolumeGroup> all = new LinkedHashMap<>();
        Set<String> tokens = new HashSet<>();
        String token = "";
        do {
            Outcome o = list(maxEntries, token, secrets());
            ctx.expect(
                    o,
                    StatusCode.OK,
                    "ListVolumeGroups with max_entries " + maxEntries
                            + (token.isEmpty() ? "" : " from a next_token it answered"));
            ListVolumeGroupsResponse page = (ListVolumeGroupsResponse) o.response();
            for (ListVolumeGroupsResponse.Entry e : page.getEntriesList()) {
                if (all.put(e.getVolumeGroup().getVolumeGroupId(), e.getVolumeGroup()) != null) {
                    ctx.fail("ListVolumeGroups with max_entries " + maxEntries + " listed volume group "
                            + e.getVolumeGroup().getVolumeGroupId() + " twice, though no group changed meanwhile");
                }
            }
            token = page.getNextToken();
            if (!token.isEmpty() && !tokens.add(token)) {
                ctx.fail("ListVolumeGroups answered a next_token it had answered before: the listing never ends");
            }
        } while (!token.isEmpty());
        return all;
    }

    // ---------------------------------------------------------------- observation

    /**
     * Observes group {@code id}: gone ({@code members} null) or with exactly {@code members}; with
     * ControllerGetVolumeGroup when advertised, else with ListVolumeGroups, else not at all (the spec offers no other
     * read).
     */
    void observe(String id, List<String> members, String after) {
        String expected = members == null ? "gone" : "with members " + members;
        if (advertised.contains(VolumeGroupCapability.GET_VOLUME_GROUP)) {
            Outcome o = get(id);
            if (members == null) {
                ctx.expect(
                        o,
                        StatusCode.NOT_FOUND,
                        "after " + after + ", volume group " + id + " must be gone:" + " ControllerGetVolumeGroup");
                return;
            }
            ctx.expect(
                    o,
                    StatusCode.OK,
                    "after " + after + ", volume group " + id + " must exist:" + " ControllerGetVolumeGroup");
            requireMembers(
                    ((ControllerGetVolumeGroupResponse) o.response()).getVolumeGroup(),
                    members,
                    after,
                    "ControllerGetVolumeGroup");
        } else if (advertised.contains(VolumeGroupCapability.LIST_VOLUME_GROUPS)) {
            VolumeGroup listed = listAll(0).get(id);
            if (members == null) {
                if (listed != null) {
                    ctx.fail("after " + after + ", volume group " + id + " must be " + expected + ", but"
                            + " ListVolumeGroups lists it");
                }
                return;
            }
            if (listed == null) {
                ctx.fail("after " + after + ", volume group " + id + " must be " + expected + ", but ListVolumeGroups"
                        + " does not list it");
            }
            requireMembers(listed, members, after, "ListVolumeGroups");
        }
    }

    private void requireMembers(VolumeGroup g, List<String> members, String after, String by) {
        Set<String> answered = new LinkedHashSet<>();
        g.getVolumesList().forEach(v -> answered.add(v.getVolumeId()));
        if (!answered.equals(new LinkedHashSet<>(members))) {
            ctx.fail("after " + after + ", volume group " + g.getVolumeGroupId() + " must have the members " + members
                    + ", but " + by + " answers " + answered);
        }
    }

    // ---------------------------------------------------------------- clean-up

    /** Deletes a group the check created, emptied first when it has members and can be emptied. */
    private void cleanUp(String id) {
        List<String> members = created.get(id);
        if (members == null) {
            return; // deleted by the check
        }
        if (!members.isEmpty() && advertised.contains(VolumeGroupCapability.MODIFY_VOLUME_GROUP)) {
            Outcome emptied = modify(id, List.of());
            if (!emptied.ok()) {
                throw new IllegalStateException("could not empty volume group " + id + " the check created (so as"
                        + " to delete it without its volumes): ModifyVolumeGroupMembership -> " + emptied.describe());
            }
        }
        Outcome deleted = delete(id);
        if (!deleted.ok()) {
            throw new IllegalStateException("could not delete volume group " + id + " the check created:"
                    + " DeleteVolumeGroup -> " + deleted.describe());
        }
    }

    Map<String, String> secrets() {
        return ctx.config().secrets().asMap();
    }

    /** The configured secrets with every value wrong ({@code "wrong"}), or none ({@code "missing"}); skips without. */
    Map<String, String> badSecrets(String variant) {
        Map<String, String> bad = new LinkedHashMap<>();
        if (variant.equals("wrong")) {
            ctx.requireSecrets().keys().forEach(k -> bad.put(k, "volrep-conformance-wrong-secret"));
        } else {
            ctx.requireSecrets();
        }
        return bad;
    }

    /** The ids of every group this check created and has not deleted. */
    List<String> live() {
        List<String> live = new ArrayList<>();
        created.forEach((id, members) -> {
            if (members != null) {
                live.add(id);
            }
        });
        return live;
    }

    /** Any OK answer as a message, for checks that judge it themselves. */
    static VolumeGroup groupOf(Message answer) {
        if (answer instanceof CreateVolumeGroupResponse r) {
            return r.getVolumeGroup();
        }
        if (answer instanceof ModifyVolumeGroupMembershipResponse r) {
            return r.getVolumeGroup();
        }
        return ((ControllerGetVolumeGroupResponse) answer).getVolumeGroup();
    }
}
