package io.volrep.testkit;

import io.volrep.api.CsiLimits;
import io.volrep.api.ErrorScheme;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.api.VolumeGroupCapability;
import io.volrep.proto.volumegroup.CreateVolumeGroupResponse;
import io.volrep.proto.volumegroup.ListVolumeGroupsResponse;
import io.volrep.proto.volumegroup.VolumeGroup;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The checks of CSI-Addons {@code volumegroup.Controller} (upstream's {@code volumegroup/README.md}): a check for every
 * row of its error tables that a suite can provoke, and for every rule of its RPCs (create idempotent by name, the
 * whole membership replaced, delete of an unknown group OK, get after delete 5, pagination complete without repeats,
 * {@code LIMIT_VOLUME_TO_ONE_VOLUME_GROUP} honoured, every advertised RPC served). The service is optional: a plugin
 * that does not advertise {@code VOLUME_GROUP}, or an RPC's own capability, gets "not implemented" on those checks. Each
 * group a check creates is observed after every call that may change it and deleted after the check
 * ({@link VolumeGroups}). Ids are structural: {@code <RPC>/group/<condition>}.
 */
final class VolumeGroupChecks {
    static final String GROUP = "Volume groups";
    static final String MISSING_GROUP = ControllerChecks.MISSING_GROUP;
    static final String MISSING_VOLUME = ControllerChecks.MISSING_VOLUME;
    /** How many groups the pagination check lists through pages of one. */
    static final int PAGED_GROUPS = 3;

    private static final ErrorScheme SCHEME = ErrorScheme.spec();
    private static final StatusCode INVALID = StatusCode.INVALID_ARGUMENT;

    private VolumeGroupChecks() {}

    static CheckGroup group() {
        return CheckGroup.of(GROUP, config -> checks());
    }

    /** The structural id: {@code CreateVolumeGroup/group/idempotent}. */
    static String id(Rpc rpc, String condition) {
        return rpc.methodName() + "/group/" + condition;
    }

    /** The name of the check of a row's condition and a case: {@code "<row> [<case>]"}. */
    static String row(Rpc rpc, String condition, String variant) {
        return SCHEME.find(rpc, condition)
                        .orElseThrow(() -> new IllegalStateException(rpc + " has no row " + condition))
                        .displayName()
                + " [" + variant + "]";
    }

    private static Check check(
            Rpc rpc, String condition, Requirement requirement, String name, String hint, Check.Body body) {
        return Check.builder()
                .id(id(rpc, condition))
                .name(name)
                .requirement(requirement)
                .hint(hint)
                .body(body)
                .build();
    }

    /**
     * A check of one call and its answer: the plugin must advertise what {@code rpc} needs, and {@code call} must
     * answer {@code code}. Most error rows are provoked so, by one request that breaks one rule.
     */
    private static Check answers(
            Rpc rpc,
            String condition,
            Requirement requirement,
            String name,
            String hint,
            Function<VolumeGroups, Outcome> call,
            StatusCode code,
            String described) {
        return check(
                rpc,
                condition,
                requirement,
                name,
                hint,
                ctx -> ctx.expect(call.apply(VolumeGroups.of(ctx).require(rpc)), code, described));
    }

    /** The missing-field row of an RPC that names its group: an empty {@code volume_group_id} is 3 INVALID_ARGUMENT. */
    private static Check missingGroupId(Rpc rpc, Function<VolumeGroups, Outcome> call) {
        return answers(
                rpc,
                "missing-id",
                Requirement.REQUIRED,
                row(rpc, "Missing required field", "volume_group_id empty"),
                "volume_group_id is REQUIRED",
                call,
                INVALID,
                rpc.methodName() + " without a group id");
    }

    static List<Check> checks() {
        List<Check> checks = new ArrayList<>();
        checks.add(Check.builder()
                .id("volumegroup/plugin/advertised-rpcs-served")
                .name("Volume groups: every advertised RPC is served (none answers 12 UNIMPLEMENTED)")
                .hint("Identity must advertise exactly what the plugin implements: VOLUME_GROUP (create, delete),"
                        + " MODIFY_VOLUME_GROUP, GET_VOLUME_GROUP, LIST_VOLUME_GROUPS")
                .body(VolumeGroupChecks::advertisedRpcsServed)
                .build());
        checks.addAll(create());
        checks.addAll(modify());
        checks.addAll(delete());
        checks.addAll(get());
        checks.addAll(list());
        for (Rpc rpc : List.of(
                Rpc.CREATE_VOLUME_GROUP,
                Rpc.MODIFY_VOLUME_GROUP_MEMBERSHIP,
                Rpc.DELETE_VOLUME_GROUP,
                Rpc.CONTROLLER_GET_VOLUME_GROUP,
                Rpc.LIST_VOLUME_GROUPS)) {
            for (String variant : List.of("wrong", "missing")) {
                checks.add(check(
                        rpc,
                        "auth-" + variant,
                        Requirement.REQUIRED,
                        row(rpc, "Not authenticated", variant + " secrets"),
                        "every call must be authenticated by its own secrets",
                        ctx -> authentication(ctx, rpc, variant)));
            }
        }
        return checks;
    }

    // ---------------------------------------------------------------- the service

    private static void advertisedRpcsServed(ConformanceContext ctx) {
        VolumeGroups g = VolumeGroups.of(ctx).requireService();
        List<String> unserved = new ArrayList<>();
        for (VolumeGroupCapability c : g.advertised) {
            for (Rpc rpc : c.rpcs()) {
                Outcome o = switch (rpc) {
                    case CREATE_VOLUME_GROUP -> g.create(VolumeGroups.name("served"), List.of());
                    case DELETE_VOLUME_GROUP -> g.delete(MISSING_GROUP);
                    case MODIFY_VOLUME_GROUP_MEMBERSHIP -> g.modify(MISSING_GROUP, List.of());
                    case CONTROLLER_GET_VOLUME_GROUP -> g.get(MISSING_GROUP);
                    default -> g.list(1, "", g.secrets());
                };
                if (o.code() == StatusCode.UNIMPLEMENTED) {
                    unserved.add(rpc.methodName() + " (advertised as VolumeGroup." + c + ") -> " + o.describe());
                }
            }
        }
        if (!unserved.isEmpty()) {
            ctx.fail("advertised but not served: " + String.join("; ", unserved));
        }
    }

    private static void authentication(ConformanceContext ctx, Rpc rpc, String variant) {
        VolumeGroups g = VolumeGroups.of(ctx).require(rpc);
        Map<String, String> bad = g.badSecrets(variant);
        String id =
                rpc == Rpc.CREATE_VOLUME_GROUP || rpc == Rpc.LIST_VOLUME_GROUPS ? null : g.created("auth", List.of());
        Outcome o = switch (rpc) {
            case CREATE_VOLUME_GROUP ->
                g.create(VolumeGroups.name("auth"), List.of(), ctx.config().enableParameters(), bad);
            case MODIFY_VOLUME_GROUP_MEMBERSHIP -> g.modify(id, List.of(), bad);
            case DELETE_VOLUME_GROUP -> g.delete(id, bad);
            case CONTROLLER_GET_VOLUME_GROUP -> g.get(id, bad);
            default -> g.list(0, "", bad);
        };
        ctx.expect(o, StatusCode.UNAUTHENTICATED, rpc.methodName() + " with " + variant + " secrets");
        if (id != null) {
            g.observe(id, List.of(), rpc.methodName() + " with " + variant + " secrets");
        }
    }

    // ---------------------------------------------------------------- CreateVolumeGroup

    private static List<Check> create() {
        Rpc rpc = Rpc.CREATE_VOLUME_GROUP;
        List<Check> checks = new ArrayList<>();
        checks.add(answers(
                rpc,
                "missing-name",
                Requirement.REQUIRED,
                row(rpc, "Missing required field", "name empty"),
                "name is REQUIRED (the idempotency key)",
                g -> g.create("", List.of()),
                INVALID,
                "CreateVolumeGroup without a name"));
        checks.add(answers(
                rpc,
                "name-over-limit",
                Requirement.OPTIONAL,
                row(rpc, "Missing required field", "name of " + (CsiLimits.MAX_STRING_BYTES + 1) + " bytes"),
                "CSI's limit of 128 bytes per string field",
                g -> g.create(
                        ControllerChecks.bytes(VolumeGroups.NAME_PREFIX, CsiLimits.MAX_STRING_BYTES + 1), List.of()),
                INVALID,
                "CreateVolumeGroup with a name over 128 bytes"));
        checks.add(check(
                rpc,
                "idempotent",
                Requirement.REQUIRED,
                "CreateVolumeGroup: the same name again -> 0 OK, the"
                        + " same group [empty, then with a member, observed]",
                "the name is the idempotency key: a compatible"
                        + " request for an existing name answers that group, not a new one",
                VolumeGroupChecks::idempotent));
        checks.add(check(
                rpc,
                "incompatible-parameters",
                Requirement.OPTIONAL,
                row(rpc, "Volume group already exists" + " but is incompatible", "the same name with other parameters"),
                "what is compatible is the plugin's"
                        + " to say (hence optional); parameters that differ should be incompatible",
                ctx -> {
                    VolumeGroups g = VolumeGroups.of(ctx).requireService();
                    String name = VolumeGroups.name("incompatible");
                    Outcome first =
                            g.create(name, List.of(), with(ctx, "volrep-conformance-variant", "1"), g.secrets());
                    if (first.code() == INVALID) {
                        ctx.skip("the plugin refuses the parameter volrep-conformance-variant (" + first.describe()
                                + ")");
                    }
                    ctx.expect(first, StatusCode.OK, "CreateVolumeGroup " + name);
                    String id = ((CreateVolumeGroupResponse) first.response())
                            .getVolumeGroup()
                            .getVolumeGroupId();
                    Outcome second =
                            g.create(name, List.of(), with(ctx, "volrep-conformance-variant", "2"), g.secrets());
                    ctx.expect(
                            second,
                            StatusCode.ALREADY_EXISTS,
                            "CreateVolumeGroup " + name + " again with another" + " value of a parameter");
                    g.observe(id, List.of(), "the refused CreateVolumeGroup");
                }));
        checks.add(check(
                rpc,
                "limit-one-group",
                Requirement.REQUIRED,
                row(
                        rpc,
                        "Volumes cannot be grouped together",
                        "a member of another group, LIMIT_VOLUME_TO_ONE_VOLUME_GROUP"),
                "a plugin that advertises"
                        + " LIMIT_VOLUME_TO_ONE_VOLUME_GROUP must refuse a second group for a volume (9; upstream's text says"
                        + " 7, which the suite accepts)",
                ctx -> {
                    VolumeGroups g = VolumeGroups.of(ctx)
                            .requireService()
                            .requireBehaviour(VolumeGroupCapability.LIMIT_VOLUME_TO_ONE_VOLUME_GROUP);
                    List<String> member = g.members(1);
                    String first = g.created("limit-a", member);
                    Outcome second = g.create(VolumeGroups.name("limit-b"), member);
                    ErrorScheme.Row row = g.scheme()
                            .find(rpc, "Volumes cannot be grouped together")
                            .orElseThrow();
                    if (!row.accepts(second.code())) {
                        ctx.expect(
                                second,
                                row.code(),
                                "CreateVolumeGroup of " + member + ", already in volume group " + first);
                    }
                    g.observe(first, member, "the refused CreateVolumeGroup");
                }));
        return checks;
    }

    private static Map<String, String> with(ConformanceContext ctx, String key, String value) {
        Map<String, String> parameters = new LinkedHashMap<>(ctx.config().enableParameters());
        parameters.put(key, value);
        return parameters;
    }

    private static void idempotent(ConformanceContext ctx) {
        VolumeGroups g = VolumeGroups.of(ctx).requireService();
        sameGroupTwice(ctx, g, VolumeGroups.name("idempotent"), List.of());
        if (ctx.config().volumes().isEmpty()
                || (!g.advertised.contains(VolumeGroupCapability.MODIFY_VOLUME_GROUP)
                        && !g.advertised.contains(VolumeGroupCapability.DO_NOT_ALLOW_VG_TO_DELETE_VOLUMES))) {
            return; // no group with members: see VolumeGroups.members
        }
        sameGroupTwice(ctx, g, VolumeGroups.name("idempotent-member"), g.members(1));
    }

    /** Creates {@code name} with {@code members} twice: both 0 OK, one group, observed with its members. */
    private static void sameGroupTwice(ConformanceContext ctx, VolumeGroups g, String name, List<String> members) {
        String[] ids = new String[2];
        for (int i = 0; i < 2; i++) {
            Outcome o = g.create(name, members);
            ctx.expect(o, StatusCode.OK, "CreateVolumeGroup " + name + " of " + members + (i == 0 ? "" : " repeated"));
            ids[i] = ((CreateVolumeGroupResponse) o.response()).getVolumeGroup().getVolumeGroupId();
        }
        if (!ids[0].equals(ids[1])) {
            ctx.fail("CreateVolumeGroup " + name + " of " + members + " twice answered two groups, " + ids[0] + " and "
                    + ids[1] + ": the name is the idempotency key");
        }
        g.observe(ids[0], members, "CreateVolumeGroup repeated");
    }

    // ---------------------------------------------------------------- ModifyVolumeGroupMembership

    private static List<Check> modify() {
        Rpc rpc = Rpc.MODIFY_VOLUME_GROUP_MEMBERSHIP;
        List<Check> checks = new ArrayList<>();
        checks.add(missingGroupId(rpc, g -> g.modify("", List.of())));
        checks.add(answers(
                rpc,
                "unknown-group",
                Requirement.REQUIRED,
                row(rpc, "Volume id or volume group does not" + " exist", "volume group " + MISSING_GROUP),
                "a group that does not exist is 5 NOT_FOUND",
                g -> g.modify(MISSING_GROUP, List.of()),
                StatusCode.NOT_FOUND,
                "ModifyVolumeGroupMembership of volume group " + MISSING_GROUP));
        checks.add(check(
                rpc,
                "unknown-volume",
                Requirement.REQUIRED,
                row(rpc, "Volume id or volume group does not" + " exist", "volume " + MISSING_VOLUME),
                "a volume that does not exist is 5 NOT_FOUND, and the group" + " stays as it was",
                ctx -> {
                    VolumeGroups g = VolumeGroups.of(ctx).require(rpc);
                    String id = g.created("unknown-volume", List.of());
                    ctx.expect(
                            g.modify(id, List.of(MISSING_VOLUME)),
                            StatusCode.NOT_FOUND,
                            "ModifyVolumeGroupMembership adding volume " + MISSING_VOLUME);
                    g.observe(id, List.of(), "the refused ModifyVolumeGroupMembership");
                }));
        checks.add(check(
                rpc,
                "replaces-membership",
                Requirement.REQUIRED,
                "ModifyVolumeGroupMembership: the whole"
                        + " membership -> 0 OK, new volumes added, missing ones removed [observed after each]",
                "volume_ids is" + " the whole new membership, not the volumes to add; the answer lists exactly it",
                VolumeGroupChecks::replacesMembership));
        checks.add(check(
                rpc,
                "empty-removes-all",
                Requirement.REQUIRED,
                "ModifyVolumeGroupMembership: no volume_ids" + " -> 0 OK, every member removed [observed]",
                "an empty volume_ids removes every member (the spec)," + " it is not a call that changes nothing",
                ctx -> {
                    VolumeGroups g = VolumeGroups.of(ctx).require(rpc);
                    List<String> member = g.members(1);
                    String id = g.created("empty", List.of());
                    ctx.expect(g.modify(id, member), StatusCode.OK, "ModifyVolumeGroupMembership to " + member);
                    g.observe(id, member, "ModifyVolumeGroupMembership to " + member);
                    ctx.expect(g.modify(id, List.of()), StatusCode.OK, "ModifyVolumeGroupMembership to []");
                    g.observe(id, List.of(), "ModifyVolumeGroupMembership to []");
                }));
        checks.add(check(
                rpc,
                "limit-one-group",
                Requirement.REQUIRED,
                row(
                        rpc,
                        "Volumes incompatible or not" + " supported",
                        "a member of another group, LIMIT_VOLUME_TO_ONE_VOLUME_GROUP"),
                "a plugin that"
                        + " advertises LIMIT_VOLUME_TO_ONE_VOLUME_GROUP must refuse to add a volume of another group (3, the"
                        + " table's incompatible volume), leaving both groups as they were",
                ctx -> {
                    VolumeGroups g = VolumeGroups.of(ctx)
                            .require(rpc)
                            .requireBehaviour(VolumeGroupCapability.LIMIT_VOLUME_TO_ONE_VOLUME_GROUP);
                    List<String> member = g.members(1);
                    String first = g.created("limit-a", member);
                    String second = g.created("limit-b", List.of());
                    ctx.expect(
                            g.modify(second, member),
                            INVALID,
                            "ModifyVolumeGroupMembership adding " + member + ", a member of volume group " + first);
                    g.observe(second, List.of(), "the refused ModifyVolumeGroupMembership");
                    g.observe(first, member, "the refused ModifyVolumeGroupMembership of another group");
                }));
        return checks;
    }

    private static void replacesMembership(ConformanceContext ctx) {
        VolumeGroups g = VolumeGroups.of(ctx).require(Rpc.MODIFY_VOLUME_GROUP_MEMBERSHIP);
        List<String> volumes = ctx.config().volumes().size() >= 2 ? g.members(2) : g.members(1);
        String id = g.created("membership", List.of());
        List<List<String>> steps = new ArrayList<>();
        steps.add(List.of(volumes.get(0))); // adds
        if (volumes.size() > 1) {
            steps.add(List.of(volumes.get(1))); // adds one, removes the other
            steps.add(volumes); // adds back
            steps.add(volumes); // the same again: idempotent
        } else {
            steps.add(List.of()); // removes
            steps.add(List.of(volumes.get(0)));
            steps.add(List.of(volumes.get(0))); // the same again: idempotent
        }
        for (List<String> membership : steps) {
            Outcome o = g.modify(id, membership);
            ctx.expect(o, StatusCode.OK, "ModifyVolumeGroupMembership of " + id + " to " + membership);
            g.observe(id, membership, "ModifyVolumeGroupMembership to " + membership);
        }
    }

    // ---------------------------------------------------------------- DeleteVolumeGroup

    private static List<Check> delete() {
        Rpc rpc = Rpc.DELETE_VOLUME_GROUP;
        List<Check> checks = new ArrayList<>();
        checks.add(missingGroupId(rpc, g -> g.delete("")));
        checks.add(answers(
                rpc,
                "unknown-group",
                Requirement.REQUIRED,
                "DeleteVolumeGroup: a volume group that does not" + " exist -> 0 OK [volume group " + MISSING_GROUP
                        + "]",
                "the spec: a group that does not exist (any" + " more) answers 0 OK, so that a retried delete succeeds",
                g -> g.delete(MISSING_GROUP),
                StatusCode.OK,
                "DeleteVolumeGroup of " + MISSING_GROUP));
        checks.add(check(
                rpc,
                "deleted",
                Requirement.REQUIRED,
                "DeleteVolumeGroup: an existing group -> 0 OK, then" + " gone; again -> 0 OK [observed]",
                "delete must remove the group, and be idempotent",
                ctx -> {
                    VolumeGroups g = VolumeGroups.of(ctx).requireService();
                    String id = g.created("deleted", List.of());
                    ctx.expect(g.delete(id), StatusCode.OK, "DeleteVolumeGroup of " + id);
                    g.observe(id, null, "DeleteVolumeGroup");
                    ctx.expect(g.delete(id), StatusCode.OK, "DeleteVolumeGroup of " + id + " repeated");
                    g.observe(id, null, "DeleteVolumeGroup repeated");
                }));
        checks.add(check(
                rpc,
                "in-use",
                Requirement.OPTIONAL,
                row(rpc, "Volume group in use", "its replication" + " enabled"),
                "a replicated group is in use: deleting it would leave replication of nothing (the"
                        + " spec does not say replication is a use, hence optional)",
                ctx -> {
                    VolumeGroups g = VolumeGroups.of(ctx).requireService();
                    String id = g.created("in-use", List.of());
                    Outcome enable = ctx.call(Rpc.ENABLE_VOLUME_REPLICATION, Addressing.volumeGroup(id));
                    if (!enable.ok()) {
                        ctx.skip("cannot replicate the group (EnableVolumeReplication -> " + enable.describe() + ")");
                    }
                    ctx.expect(
                            g.delete(id),
                            StatusCode.FAILED_PRECONDITION,
                            "DeleteVolumeGroup of " + id + ", whose replication is enabled");
                    g.observe(id, List.of(), "the refused DeleteVolumeGroup");
                }));
        return checks;
    }

    // ---------------------------------------------------------------- ControllerGetVolumeGroup

    private static List<Check> get() {
        Rpc rpc = Rpc.CONTROLLER_GET_VOLUME_GROUP;
        List<Check> checks = new ArrayList<>();
        checks.add(missingGroupId(rpc, g -> g.get("")));
        checks.add(answers(
                rpc,
                "unknown-group",
                Requirement.REQUIRED,
                row(rpc, "Volume group does not exist", "volume group " + MISSING_GROUP),
                "a group that does not exist is 5 NOT_FOUND",
                g -> g.get(MISSING_GROUP),
                StatusCode.NOT_FOUND,
                "ControllerGetVolumeGroup of " + MISSING_GROUP));
        checks.add(check(
                rpc,
                "deleted",
                Requirement.REQUIRED,
                row(rpc, "Volume group does not exist", "after DeleteVolumeGroup"),
                "a deleted group must not be answered any more",
                ctx -> {
                    VolumeGroups g = VolumeGroups.of(ctx).require(rpc);
                    String id = g.created("get-deleted", List.of());
                    ctx.expect(g.delete(id), StatusCode.OK, "DeleteVolumeGroup of " + id);
                    ctx.expect(
                            g.get(id),
                            StatusCode.NOT_FOUND,
                            "ControllerGetVolumeGroup of " + id + " after" + " DeleteVolumeGroup");
                }));
        return checks;
    }

    // ---------------------------------------------------------------- ListVolumeGroups

    private static List<Check> list() {
        Rpc rpc = Rpc.LIST_VOLUME_GROUPS;
        List<Check> checks = new ArrayList<>();
        checks.add(answers(
                rpc,
                "negative-max-entries",
                Requirement.REQUIRED,
                row(rpc, "Missing required field", "max_entries -1"),
                "max_entries MUST NOT be negative: the request is invalid",
                g -> g.list(-1, "", g.secrets()),
                INVALID,
                "ListVolumeGroups with max_entries -1"));
        checks.add(answers(
                rpc,
                "invalid-token",
                Requirement.REQUIRED,
                row(rpc, "Invalid `starting_token`", "a token the plugin never answered"),
                "a starting_token the plugin did not issue answers 10, so that" + " the CO starts over",
                g -> g.list(1, "volrep-conformance-not-a-token", g.secrets()),
                StatusCode.ABORTED,
                "ListVolumeGroups from a starting_token the plugin never answered"));
        checks.add(check(
                rpc,
                "pagination",
                Requirement.REQUIRED,
                "ListVolumeGroups: pages of max_entries -> every" + " group once [" + PAGED_GROUPS
                        + " groups of the check, max_entries 1, 2 and 0]",
                "no page over" + " max_entries, a next_token while more remain, every group listed, none twice",
                ctx -> {
                    VolumeGroups g = VolumeGroups.of(ctx).require(rpc);
                    List<String> ids = new ArrayList<>();
                    for (int i = 0; i < PAGED_GROUPS; i++) {
                        ids.add(g.created("page-" + i, List.of()));
                    }
                    Set<String> everything = null;
                    for (int max : new int[] {1, 2, 0}) {
                        Map<String, VolumeGroup> listed = g.listAll(max);
                        if (!listed.keySet().containsAll(ids)) {
                            List<String> missing = new ArrayList<>(ids);
                            missing.removeAll(listed.keySet());
                            ctx.fail("ListVolumeGroups with max_entries " + max + " does not list " + missing);
                        }
                        if (everything != null && !everything.equals(listed.keySet())) {
                            ctx.fail("ListVolumeGroups lists other groups with max_entries " + max + " than with a"
                                    + " smaller max_entries, though no group changed: " + listed.keySet() + " against "
                                    + everything);
                        }
                        everything = listed.keySet();
                    }
                    // With max_entries 1 and three groups, the first page must say where the next one starts.
                    Outcome first = g.list(1, "", g.secrets());
                    ctx.expect(first, StatusCode.OK, "ListVolumeGroups with max_entries 1");
                    if (((ListVolumeGroupsResponse) first.response())
                            .getNextToken()
                            .isEmpty()) {
                        ctx.fail("ListVolumeGroups with max_entries 1 answered no next_token although at least "
                                + PAGED_GROUPS + " groups exist: the plugin MUST set next_token while more remain");
                    }
                }));
        return checks;
    }
}
