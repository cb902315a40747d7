package io.volrep.api.internal.wire;

import com.google.protobuf.Duration;
import com.google.protobuf.Message;
import com.google.protobuf.Timestamp;
import io.volrep.api.CsiLimits;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.internal.SafeText;
import io.volrep.api.internal.wire.AnswerProblem.Kind;
import io.volrep.proto.healer.NodeHealerResponse;
import io.volrep.proto.identity.GetCapabilitiesResponse;
import io.volrep.proto.identity.GetIdentityResponse;
import io.volrep.proto.identity.ProbeResponse;
import io.volrep.proto.replication.GetReplicationDestinationInfoResponse;
import io.volrep.proto.replication.GetVolumeReplicationInfoResponse;
import io.volrep.proto.replication.ReplicationDestination;
import io.volrep.proto.replication.ResyncVolumeResponse;
import io.volrep.proto.volumegroup.ControllerGetVolumeGroupResponse;
import io.volrep.proto.volumegroup.CreateVolumeGroupResponse;
import io.volrep.proto.volumegroup.ListVolumeGroupsResponse;
import io.volrep.proto.volumegroup.ModifyVolumeGroupMembershipResponse;
import io.volrep.proto.volumegroup.VolumeGroup;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The spec's rules for what a plugin answers: one function per answer message, each listing what is wrong with an
 * answer (empty when nothing is). They are the only copy of these rules: the client throws
 * {@code ProtocolViolationException} for them, the SPI runtime and the exec bridge answer a driver's answer that
 * breaks them as an invalid driver answer, and the conformance kit fails the plugin, so the four can never disagree.
 * Answers of the older spec revisions are judged in the current revision's form ({@link Transcoder#responseFromWire}).
 *
 * <pre>{@code
 * List<AnswerProblem> problems = AnswerRules.info(response);
 * if (!problems.isEmpty()) {
 *     throw new ProtocolViolationException(AnswerProblem.describe(problems), rpc, attempts);
 * }
 * }</pre>
 *
 * <p>Besides each field's own rules, CSI's size limits bound what a plugin answers as they bound what it is asked:
 * an identifier at most 128 bytes, a map at most 4 KiB (keys and values together). Free text (a status message, a
 * NodeHealer message) is not bounded by them; whoever prints it escapes it.
 *
 * <p>Some rules judge an answer against what was asked ({@link Asked}): a destination has its source's kind, an
 * answer about one volume group is about the group asked about, a ModifyVolumeGroupMembership answer lists exactly the
 * membership asked for, a CreateVolumeGroup answer none but the volumes asked for, a ListVolumeGroups page holds at
 * most {@code max_entries} entries.
 *
 * <p>A new answer message gets one function here and one line in {@link #of}; its layers then apply it unchanged.
 * {@code AnswerRulesTest} pins each rule's words; {@code AnswerAgreementTest} (module {@code answer-agreement}) runs
 * good and bad answers of every message through the client, the runtime, the exec bridge and the kit, which must
 * agree.
 */
public final class AnswerRules {
    /** Timestamp's range: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z. */
    static final long MIN_TIMESTAMP_SECONDS = -62_135_596_800L;

    static final long MAX_TIMESTAMP_SECONDS = 253_402_300_799L;
    /** Duration's range: about +-10,000 years. */
    static final long MAX_DURATION_SECONDS = 315_576_000_000L;

    private static final int MAX_NANOS = 999_999_999;
    /** GetIdentity's name: at most this many characters. */
    public static final int MAX_NAME_CHARS = 63;
    /** GetIdentity's name: alphanumeric at both ends, dashes, dots and alphanumerics between. */
    private static final Pattern DOMAIN_NAME = Pattern.compile("[a-zA-Z0-9]([-.a-zA-Z0-9]*[a-zA-Z0-9])?");
    /** How much of an answered text a problem quotes. */
    private static final int QUOTED_CHARS = 64;

    private AnswerRules() {}

    /**
     * What a call asked that its answer is judged against; each rule reads only its own part.
     *
     * <pre>{@code
     * AnswerRules.of(Rpc.CONTROLLER_GET_VOLUME_GROUP, answer, Asked.group("vg-1"));
     * AnswerRules.of(Rpc.MODIFY_VOLUME_GROUP_MEMBERSHIP, answer, Asked.membership("vg-1", List.of("vol-0", "vol-1")));
     * AnswerRules.of(Rpc.LIST_VOLUME_GROUPS, page, Asked.page(10));
     * }</pre>
     *
     * @param sourceKind the kind of source the call named (a destination must have the same); null when none
     * @param volumeGroupId the group a ControllerGetVolumeGroup or ModifyVolumeGroupMembership asked about (the
     *        answer must be about it); null when not known
     * @param volumeIds the whole membership a ModifyVolumeGroupMembership asked for, or the volumes a
     *        CreateVolumeGroup asked for; null when not known
     * @param maxEntries the {@code max_entries} a ListVolumeGroups asked for; 0 for no limit
     */
    public record Asked(
            ReplicationSource.Kind sourceKind, String volumeGroupId, List<String> volumeIds, int maxEntries) {
        public Asked {
            volumeIds = volumeIds == null ? null : List.copyOf(volumeIds);
        }

        /** Nothing the rules need: NodeHealer, Identity, and a judge that does not know what was asked. */
        public static Asked nothing() {
            return new Asked(null, null, null, 0);
        }

        /** A call that named a source of {@code kind} (null: none). */
        public static Asked source(ReplicationSource.Kind kind) {
            return new Asked(kind, null, null, 0);
        }

        /** A ControllerGetVolumeGroup of group {@code volumeGroupId}. */
        public static Asked group(String volumeGroupId) {
            return new Asked(null, Objects.requireNonNull(volumeGroupId, "volumeGroupId"), null, 0);
        }

        /** A ModifyVolumeGroupMembership that asked for exactly these members of group {@code volumeGroupId}. */
        public static Asked membership(String volumeGroupId, List<String> volumeIds) {
            return new Asked(
                    null,
                    Objects.requireNonNull(volumeGroupId, "volumeGroupId"),
                    Objects.requireNonNull(volumeIds, "volumeIds"),
                    0);
        }

        /** A CreateVolumeGroup that asked for these volumes (none: an empty group). */
        public static Asked creation(List<String> volumeIds) {
            return new Asked(null, null, Objects.requireNonNull(volumeIds, "volumeIds"), 0);
        }

        /** A ListVolumeGroups that asked for at most {@code maxEntries} entries (0: no limit). */
        public static Asked page(int maxEntries) {
            return new Asked(null, null, null, maxEntries);
        }
    }

    /**
     * The problems of {@code answer}, an answer of {@code rpc} in the current revision's form.
     *
     * @param sourceKind the kind of source the call named (the destination's kind must be the same); ignored by the
     *                   other answers, so null for those that name no source (NodeHealer, Identity, volume groups)
     */
    public static List<AnswerProblem> of(Rpc rpc, Message answer, ReplicationSource.Kind sourceKind) {
        return of(rpc, answer, Asked.source(sourceKind));
    }

    /** The problems of {@code answer}, an answer of {@code rpc} to a call that asked {@code asked}. */
    public static List<AnswerProblem> of(Rpc rpc, Message answer, Asked asked) {
        return switch (rpc) {
            case GET_VOLUME_REPLICATION_INFO -> info((GetVolumeReplicationInfoResponse) answer);
            case GET_REPLICATION_DESTINATION_INFO ->
                destination((GetReplicationDestinationInfoResponse) answer, asked.sourceKind());
            case RESYNC_VOLUME -> resync((ResyncVolumeResponse) answer);
            case NODE_HEALER -> healer((NodeHealerResponse) answer);
            case CREATE_VOLUME_GROUP -> volumeGroupCreated((CreateVolumeGroupResponse) answer, asked.volumeIds());
            case MODIFY_VOLUME_GROUP_MEMBERSHIP ->
                volumeGroupModified(
                        (ModifyVolumeGroupMembershipResponse) answer, asked.volumeGroupId(), asked.volumeIds());
            case CONTROLLER_GET_VOLUME_GROUP ->
                volumeGroup((ControllerGetVolumeGroupResponse) answer, asked.volumeGroupId());
            case LIST_VOLUME_GROUPS -> volumeGroups((ListVolumeGroupsResponse) answer, asked.maxEntries());
            case GET_IDENTITY -> identity((GetIdentityResponse) answer);
            case GET_CAPABILITIES -> capabilities((GetCapabilitiesResponse) answer);
            case PROBE -> probe((ProbeResponse) answer);
            // Their answers are empty messages: nothing can be wrong with them.
            case ENABLE_VOLUME_REPLICATION,
                    DISABLE_VOLUME_REPLICATION,
                    PROMOTE_VOLUME,
                    DEMOTE_VOLUME,
                    DELETE_VOLUME_GROUP -> List.of();
        };
    }

    /**
     * GetVolumeReplicationInfo: {@code last_sync_time} REQUIRED and a valid Timestamp (years 0001 to 9999, nanos in
     * [0, 999999999]); {@code last_sync_duration} a valid Duration (about +-10,000 years, seconds and nanos of one
     * sign) and not negative (the time a sync took); {@code last_sync_bytes} not negative (MUST); {@code status} one of
     * the enum's values.
     */
    public static List<AnswerProblem> info(GetVolumeReplicationInfoResponse r) {
        Problems p = new Problems();
        if (!r.hasLastSyncTime()) {
            p.add("last_sync_time", Kind.MISSING, "REQUIRED but not set");
        } else {
            timestamp(p, "last_sync_time", r.getLastSyncTime());
        }
        if (r.hasLastSyncDuration()) {
            duration(p, "last_sync_duration", r.getLastSyncDuration());
        }
        if (r.getLastSyncBytes() < 0) {
            p.add("last_sync_bytes", Kind.OUT_OF_RANGE, "MUST NOT be negative, got " + r.getLastSyncBytes());
        }
        if (r.getStatus() == GetVolumeReplicationInfoResponse.Status.UNRECOGNIZED) {
            p.add(
                    "status",
                    Kind.OUT_OF_RANGE,
                    r.getStatusValue() + " is none of UNKNOWN (0), HEALTHY (1), DEGRADED (2), ERROR (3)");
        }
        return p.list();
    }

    @SuppressWarnings("ProtoTimestampGetSecondsGetNano") // each field's range is checked on its own
    private static void timestamp(Problems p, String field, Timestamp t) {
        if (t.getSeconds() < MIN_TIMESTAMP_SECONDS || t.getSeconds() > MAX_TIMESTAMP_SECONDS) {
            p.add(
                    field + ".seconds",
                    Kind.OUT_OF_RANGE,
                    t.getSeconds() + " is out of range [" + MIN_TIMESTAMP_SECONDS + ", " + MAX_TIMESTAMP_SECONDS
                            + "] (years 0001 to 9999)");
        }
        if (t.getNanos() < 0 || t.getNanos() > MAX_NANOS) {
            p.add(field + ".nanos", Kind.OUT_OF_RANGE, t.getNanos() + " is out of range [0, " + MAX_NANOS + "]");
        }
    }

    @SuppressWarnings("ProtoDurationGetSecondsGetNano") // each field's range is checked on its own
    private static void duration(Problems p, String field, Duration d) {
        if (Math.abs(d.getSeconds()) > MAX_DURATION_SECONDS) {
            p.add(
                    field + ".seconds",
                    Kind.OUT_OF_RANGE,
                    d.getSeconds() + " is out of range [-" + MAX_DURATION_SECONDS + ", " + MAX_DURATION_SECONDS
                            + "] (about 10,000 years)");
        }
        if (Math.abs(d.getNanos()) > MAX_NANOS) {
            p.add(
                    field + ".nanos",
                    Kind.OUT_OF_RANGE,
                    d.getNanos() + " is out of range [-" + MAX_NANOS + ", " + MAX_NANOS + "]");
        }
        if ((d.getSeconds() > 0 && d.getNanos() < 0) || (d.getSeconds() < 0 && d.getNanos() > 0)) {
            p.add(
                    field,
                    Kind.OUT_OF_RANGE,
                    "seconds " + d.getSeconds() + " and nanos " + d.getNanos() + " must have the same sign");
        } else if (d.getSeconds() < 0 || d.getNanos() < 0) {
            p.add(
                    field,
                    Kind.OUT_OF_RANGE,
                    "must not be negative (the time the last sync took), got seconds " + d.getSeconds() + ", nanos "
                            + d.getNanos());
        }
    }

    /**
     * GetReplicationDestinationInfo for a source of {@code sourceKind}: {@code replication_destination} REQUIRED and
     * of the source's kind, its id REQUIRED and at most 128 bytes; a group's member map (OPTIONAL) has no empty
     * source or destination id, none over 128 bytes, and is at most 4 KiB in all.
     */
    public static List<AnswerProblem> destination(
            GetReplicationDestinationInfoResponse r, ReplicationSource.Kind sourceKind) {
        Objects.requireNonNull(sourceKind, "sourceKind");
        Problems p = new Problems();
        ReplicationDestination d = r.getReplicationDestination();
        if (!r.hasReplicationDestination() || d.getTypeCase() == ReplicationDestination.TypeCase.TYPE_NOT_SET) {
            p.add("replication_destination", Kind.MISSING, "REQUIRED but not set");
            return p.list();
        }
        boolean group = d.getTypeCase() == ReplicationDestination.TypeCase.VOLUMEGROUP;
        ReplicationSource.Kind kind = group ? ReplicationSource.Kind.VOLUME_GROUP : ReplicationSource.Kind.VOLUME;
        if (kind != sourceKind) {
            p.add(
                    "replication_destination",
                    Kind.MALFORMED,
                    "a " + kind.wireName() + " destination answered for a " + sourceKind.wireName()
                            + " source: the destination's kind must be the source's");
            return p.list();
        }
        if (!group) {
            id(p, "replication_destination.volume.volume_id", d.getVolume().getVolumeId());
            return p.list();
        }
        id(
                p,
                "replication_destination.volumegroup.volume_group_id",
                d.getVolumegroup().getVolumeGroupId());
        members(
                p,
                "replication_destination.volumegroup.volume_ids",
                d.getVolumegroup().getVolumeIdsMap());
        return p.list();
    }

    /** A REQUIRED identifier: not empty, at most 128 bytes. */
    private static void id(Problems p, String field, String id) {
        if (id.isEmpty()) {
            p.add(field, Kind.MISSING, "REQUIRED but empty");
        } else {
            int bytes = CsiLimits.utf8Length(id);
            if (bytes > CsiLimits.MAX_STRING_BYTES) {
                p.add(
                        field,
                        Kind.OVER_LIMIT,
                        bytes + " bytes exceeds the CSI limit of " + CsiLimits.MAX_STRING_BYTES + " bytes");
            }
        }
    }

    /** Source volume id -> destination volume id: the first bad member, and the map's size. */
    private static void members(Problems p, String field, Map<String, String> members) {
        for (Map.Entry<String, String> e : members.entrySet()) {
            int keyBytes = CsiLimits.utf8Length(e.getKey());
            int valueBytes = CsiLimits.utf8Length(e.getValue());
            if (keyBytes == 0) {
                p.add(field, Kind.MISSING, "has an empty source volume id (a key)");
            } else if (valueBytes == 0) {
                p.add(field, Kind.MISSING, "has an empty destination volume id for " + quoted(e.getKey()));
            } else if (keyBytes > CsiLimits.MAX_STRING_BYTES) {
                p.add(
                        field,
                        Kind.OVER_LIMIT,
                        "has a source volume id (a key) of " + keyBytes + " bytes, over the CSI limit of "
                                + CsiLimits.MAX_STRING_BYTES + " bytes");
            } else if (valueBytes > CsiLimits.MAX_STRING_BYTES) {
                p.add(
                        field,
                        Kind.OVER_LIMIT,
                        "has a destination volume id of " + valueBytes + " bytes for " + quoted(e.getKey())
                                + ", over the CSI limit of " + CsiLimits.MAX_STRING_BYTES + " bytes");
            } else {
                continue;
            }
            break; // one bad member says enough: a map of 60,000 must not make 60,000 problems
        }
        map(p, field, members);
    }

    /** A map: at most 4 KiB, keys and values together. */
    private static void map(Problems p, String field, Map<String, String> map) {
        int bytes = CsiLimits.mapBytes(map);
        if (bytes > CsiLimits.MAX_MAP_BYTES) {
            p.add(
                    field,
                    Kind.OVER_LIMIT,
                    bytes + " bytes in total (" + map.size() + " entries) exceeds the CSI limit" + " of "
                            + CsiLimits.MAX_MAP_BYTES + " bytes");
        }
    }

    /**
     * CreateVolumeGroup: {@code volume_group} REQUIRED and a valid group (see below) holding none but the volumes
     * {@code asked} for. Its {@code volumes} may be fewer, or none, even when volumes were asked for: the spec requires
     * them listed only by Get, List and Modify. {@code asked} null: not compared.
     */
    public static List<AnswerProblem> volumeGroupCreated(CreateVolumeGroupResponse r, List<String> asked) {
        Problems p = new Problems();
        if (requiredGroup(p, "volume_group", r.hasVolumeGroup(), r.getVolumeGroup()) && asked != null) {
            Set<String> answered = members(r.getVolumeGroup());
            Set<String> extra = new LinkedHashSet<>(answered);
            extra.removeAll(asked);
            if (!extra.isEmpty()) {
                p.add(
                        "volume_group.volumes",
                        Kind.MALFORMED,
                        "the volumes asked for are " + ids(new LinkedHashSet<>(asked)) + ", the answer lists "
                                + ids(answered) + " (not asked for " + ids(extra) + ")");
            }
        }
        return p.list();
    }

    /**
     * ModifyVolumeGroupMembership: {@code volume_group} REQUIRED and a valid group (see below), the group
     * {@code askedGroup} the call asked about, whose members are exactly {@code asked}, the whole membership the call
     * asked for (the spec: new ids added, missing ones removed, none removes all; and the answer lists the members of
     * a group that has some). {@code askedGroup} or {@code asked} null: that part is not compared.
     */
    public static List<AnswerProblem> volumeGroupModified(
            ModifyVolumeGroupMembershipResponse r, String askedGroup, List<String> asked) {
        Problems p = new Problems();
        if (requiredGroup(p, "volume_group", r.hasVolumeGroup(), r.getVolumeGroup())) {
            sameGroup(p, r.getVolumeGroup(), askedGroup);
            if (asked != null) {
                Set<String> answered = members(r.getVolumeGroup());
                Set<String> wanted = new LinkedHashSet<>(asked);
                if (!answered.equals(wanted)) {
                    Set<String> missing = new LinkedHashSet<>(wanted);
                    missing.removeAll(answered);
                    Set<String> extra = new LinkedHashSet<>(answered);
                    extra.removeAll(wanted);
                    p.add(
                            "volume_group.volumes",
                            Kind.MALFORMED,
                            "the membership asked for is " + ids(wanted)
                                    + ", the answer lists " + ids(answered)
                                    + (missing.isEmpty() ? "" : " (missing " + ids(missing) + ")")
                                    + (extra.isEmpty() ? "" : " (not asked for " + ids(extra) + ")"));
                }
            }
        }
        return p.list();
    }

    /**
     * ControllerGetVolumeGroup: {@code volume_group} REQUIRED and a valid group (see below); not compared with what
     * was asked (the exec bridge judges a driver's group this way; the runtime and the client compare it too).
     */
    public static List<AnswerProblem> volumeGroup(ControllerGetVolumeGroupResponse r) {
        return volumeGroup(r, null);
    }

    /**
     * ControllerGetVolumeGroup of group {@code askedGroup}: {@code volume_group} REQUIRED, a valid group (see below),
     * and the group asked about, never another. {@code askedGroup} null: not compared.
     */
    public static List<AnswerProblem> volumeGroup(ControllerGetVolumeGroupResponse r, String askedGroup) {
        Problems p = new Problems();
        if (requiredGroup(p, "volume_group", r.hasVolumeGroup(), r.getVolumeGroup())) {
            sameGroup(p, r.getVolumeGroup(), askedGroup);
        }
        return p.list();
    }

    /** An answer about one group must be about the group asked about ({@code asked} null: not known). */
    private static void sameGroup(Problems p, VolumeGroup answered, String asked) {
        String id = answered.getVolumeGroupId();
        if (asked != null && !id.isEmpty() && !id.equals(asked)) {
            p.add(
                    "volume_group.volume_group_id",
                    Kind.MALFORMED,
                    "the answer is about volume group " + quoted(id) + ", the call asked about " + quoted(asked));
        }
    }

    /** A group's member volume ids, in its order. */
    private static Set<String> members(VolumeGroup g) {
        Set<String> ids = new LinkedHashSet<>();
        g.getVolumesList().forEach(v -> ids.add(v.getVolumeId()));
        return ids;
    }

    /**
     * ListVolumeGroups: at most {@code maxEntries} entries when it is not 0 (the plugin MUST NOT return more); each
     * entry's {@code volume_group} REQUIRED and a valid group (see below); no group twice in one page. Only the
     * first bad entry is named: a page of 10,000 must not make 10,000 problems.
     */
    public static List<AnswerProblem> volumeGroups(ListVolumeGroupsResponse r, int maxEntries) {
        Problems p = new Problems();
        if (maxEntries > 0 && r.getEntriesCount() > maxEntries) {
            p.add(
                    "entries",
                    Kind.OVER_LIMIT,
                    r.getEntriesCount() + " entries answered, max_entries asked for at most " + maxEntries);
        }
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < r.getEntriesCount(); i++) {
            var entry = r.getEntries(i);
            String field = "entries[" + i + "].volume_group";
            int before = p.found.size();
            if (requiredGroup(p, field, entry.hasVolumeGroup(), entry.getVolumeGroup())
                    && !seen.add(entry.getVolumeGroup().getVolumeGroupId())) {
                p.add(
                        field + ".volume_group_id",
                        Kind.MALFORMED,
                        quoted(entry.getVolumeGroup().getVolumeGroupId()) + " is listed twice in one page");
            }
            if (p.found.size() > before) {
                break;
            }
        }
        return p.list();
    }

    /**
     * A volume group ({@code field}, REQUIRED): {@code volume_group_id} REQUIRED and at most 128 bytes,
     * {@code volume_group_context} at most 4 KiB; each member's {@code volume_id} REQUIRED and at most 128 bytes, its
     * {@code capacity_bytes} not negative, its {@code volume_context} at most 4 KiB, and no member listed twice.
     *
     * @return whether the group was there to judge
     */
    private static boolean requiredGroup(Problems p, String field, boolean present, VolumeGroup g) {
        if (!present) {
            p.add(field, Kind.MISSING, "REQUIRED but not set");
            return false;
        }
        group(p, field, g);
        return true;
    }

    private static void group(Problems p, String field, VolumeGroup g) {
        id(p, field + ".volume_group_id", g.getVolumeGroupId());
        map(p, field + ".volume_group_context", g.getVolumeGroupContextMap());
        Set<String> members = new HashSet<>();
        for (int i = 0; i < g.getVolumesCount(); i++) {
            var v = g.getVolumes(i);
            String member = field + ".volumes[" + i + "]";
            int before = p.found.size();
            id(p, member + ".volume_id", v.getVolumeId());
            if (v.getCapacityBytes() < 0) {
                p.add(
                        member + ".capacity_bytes",
                        Kind.OUT_OF_RANGE,
                        "MUST NOT be negative, got " + v.getCapacityBytes());
            }
            map(p, member + ".volume_context", v.getVolumeContextMap());
            if (!v.getVolumeId().isEmpty() && !members.add(v.getVolumeId())) {
                p.add(member + ".volume_id", Kind.MALFORMED, quoted(v.getVolumeId()) + " is listed twice");
            }
            if (p.found.size() > before) {
                break; // one bad member says enough
            }
        }
    }

    /** Volume ids for a problem's text: each escaped and cut, at most a few of them. */
    private static String ids(Set<String> ids) {
        List<String> shown = ids.stream().limit(8).map(AnswerRules::quoted).toList();
        return "[" + String.join(", ", shown) + (ids.size() > shown.size() ? ", ... (" + ids.size() + " in all)" : "")
                + "]";
    }

    /**
     * ResyncVolume: nothing can be wrong on the wire ({@code ready} is a plain bool, false when unset); a driver's
     * missing answer is the runtime's to catch.
     */
    public static List<AnswerProblem> resync(ResyncVolumeResponse r) {
        return List.of();
    }

    /** NodeHealer: {@code message} REQUIRED (also for a healthy volume); blank counts as empty. */
    public static List<AnswerProblem> healer(NodeHealerResponse r) {
        Problems p = new Problems();
        if (r.getMessage().isBlank()) {
            p.add("message", Kind.MISSING, "REQUIRED but empty");
        }
        return p.list();
    }

    /**
     * GetIdentity: {@code name} REQUIRED, in domain-name notation (at most 63 characters, beginning and ending with
     * an alphanumeric character, dashes, dots and alphanumerics between); {@code vendor_version} REQUIRED;
     * {@code manifest} (OPTIONAL) at most 4 KiB.
     */
    public static List<AnswerProblem> identity(GetIdentityResponse r) {
        Problems p = new Problems();
        String name = r.getName();
        if (name.isEmpty()) {
            p.add("name", Kind.MISSING, "REQUIRED but empty");
        } else if (name.length() > MAX_NAME_CHARS || !DOMAIN_NAME.matcher(name).matches()) {
            p.add(
                    "name",
                    Kind.MALFORMED,
                    "MUST be " + MAX_NAME_CHARS + " characters or less, beginning and ending"
                            + " with an alphanumeric character ([a-z0-9A-Z]) with dashes (-), dots (.), and alphanumerics"
                            + " between; got " + quoted(name) + " (" + name.length() + " characters)");
        }
        if (r.getVendorVersion().isEmpty()) {
            p.add("vendor_version", Kind.MISSING, "REQUIRED but empty");
        }
        map(p, "manifest", r.getManifestMap());
        return p.list();
    }

    /**
     * GetCapabilities: nothing is REQUIRED, and a type or capability this build does not know is a later revision's,
     * not an error: a client must read past it.
     */
    public static List<AnswerProblem> capabilities(GetCapabilitiesResponse r) {
        return List.of();
    }

    /** Probe: {@code ready} is OPTIONAL (absent means ready) and either value is valid. */
    public static List<AnswerProblem> probe(ProbeResponse r) {
        return List.of();
    }

    /** Answered text in a problem: escaped, and cut so that a huge answer does not make a huge message. */
    private static String quoted(String text) {
        String cut = text.length() <= QUOTED_CHARS ? text : text.substring(0, QUOTED_CHARS) + "...";
        return "\"" + SafeText.escape(cut) + "\"";
    }

    /** The problems found so far. */
    private static final class Problems {
        private final List<AnswerProblem> found = new ArrayList<>();

        void add(String field, Kind kind, String detail) {
            found.add(new AnswerProblem(field, kind, detail));
        }

        List<AnswerProblem> list() {
            return List.copyOf(found);
        }
    }
}
