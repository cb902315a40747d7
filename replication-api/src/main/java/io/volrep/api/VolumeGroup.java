package io.volrep.api;

import io.volrep.api.internal.Arguments;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * A volume group as {@code volumegroup.Controller} answers it (CreateVolumeGroup, ModifyVolumeGroupMembership,
 * ControllerGetVolumeGroup, ListVolumeGroups): the id the plugin generated, its context (opaque static properties)
 * and its members. The same group is a replication source: {@code ReplicationSource.volumeGroup(group.id())}.
 *
 * <pre>{@code
 * VolumeGroup group = client.volumeGroups().create("db-1").volumes("pvc-1", "pvc-2").call();
 * client.volumeGroup(group.id()).enable().call();                 // replicate the group
 * for (VolumeGroup.Member m : group.members()) { log.info("{} ({} bytes)", m.volumeId(), m.capacityBytes()); }
 * }</pre>
 *
 * <p>Only nulls are refused here: whether an answer keeps the spec's rules (ids present and within CSI's 128 bytes,
 * maps within 4 KiB, no member twice) is {@code AnswerRules}' to judge, so that a plugin's bad answer is reported as
 * the plugin's fault, not thrown as the caller's.
 *
 * @param id the group's {@code volume_group_id}
 * @param context the group's {@code volume_group_context}; unmodifiable, empty when none
 * @param members the group's volumes, in the plugin's order; unmodifiable, empty for an empty group (or a
 *                CreateVolumeGroup answer that does not list them, which the spec allows)
 */
public record VolumeGroup(String id, Map<String, String> context, List<Member> members) {
    public VolumeGroup {
        Arguments.requireNonNull("id", id, "context", context, "members", members);
        context = copy(context);
        members = List.copyOf(members);
    }

    /** A group with these member volume ids and no context. */
    public static VolumeGroup of(String id, String... volumeIds) {
        return of(id, Arrays.asList(volumeIds));
    }

    /** A group with these member volume ids and no context. */
    public static VolumeGroup of(String id, List<String> volumeIds) {
        List<Member> members = new ArrayList<>();
        volumeIds.forEach(v -> members.add(Member.of(v)));
        return new VolumeGroup(id, Map.of(), members);
    }

    /** The members' volume ids, in order. */
    public List<String> volumeIds() {
        return members.stream().map(Member::volumeId).toList();
    }

    /** This group with another membership (its id and context kept). */
    public VolumeGroup withMembers(List<Member> newMembers) {
        return new VolumeGroup(id, context, newMembers);
    }

    /** This group with a context. */
    public VolumeGroup withContext(Map<String, String> newContext) {
        return new VolumeGroup(id, newContext, members);
    }

    @Override
    public String toString() {
        return "volume group " + id + " " + volumeIds();
    }

    /**
     * One member of a group, as CSI's {@code Volume} describes it: its id, its capacity when known and its context.
     * CSI's {@code content_source} and {@code accessible_topology} are read past (a group's answer about its members
     * is not where a CO learns them).
     *
     * @param volumeId the volume's id
     * @param capacityBytes the capacity in bytes, 0 when unknown (CSI's convention)
     * @param context the volume's {@code volume_context}; unmodifiable
     */
    public record Member(String volumeId, long capacityBytes, Map<String, String> context) {
        public Member {
            Arguments.requireNonNull("volumeId", volumeId, "context", context);
            context = copy(context);
        }

        /** A member known by its id only. */
        public static Member of(String volumeId) {
            return new Member(volumeId, 0, Map.of());
        }

        /** The capacity, when the plugin reported one. */
        public OptionalLong capacity() {
            return capacityBytes == 0 ? OptionalLong.empty() : OptionalLong.of(capacityBytes);
        }

        @Override
        public String toString() {
            return volumeId;
        }
    }

    private static Map<String, String> copy(Map<String, String> map) {
        if (map.isEmpty()) {
            return Map.of();
        }
        Map<String, String> copy = new LinkedHashMap<>();
        map.forEach((k, v) ->
                copy.put(Objects.requireNonNull(k, "context key"), Objects.requireNonNull(v, "context value")));
        return Collections.unmodifiableMap(copy);
    }
}
