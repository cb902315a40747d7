package io.volrep.testkit.reference;

import io.volrep.api.InvalidArgumentException;
import io.volrep.api.PreconditionFailedException;
import io.volrep.api.ReplicationException;
import io.volrep.api.ReplicationSource;
import io.volrep.api.SourceNotFoundException;
import io.volrep.api.StatusCode;
import io.volrep.api.VolumeGroup;
import io.volrep.spi.CreateGroupRequest;
import io.volrep.spi.ModifyGroupRequest;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The reference plugin's volume groups: each group's name, parameters and members, kept apart from the replication
 * state it shares its sources with ({@link ReferenceDriver} registers a created group as a replication source and
 * forgets it when it is deleted). One lock guards it all; it never calls back into the driver while holding it.
 *
 * <p>Semantics: a group is compatible with a CreateVolumeGroup of its name when the parameters and the set of volumes
 * are the same (6 ALREADY_EXISTS otherwise); a volume is in at most one group ({@code LIMIT_VOLUME_TO_ONE_VOLUME_GROUP}:
 * 9 FAILED_PRECONDITION from create, 3 INVALID_ARGUMENT from modify, as their tables say); an unknown volume is 3 from
 * create (its table has no 5) and 5 from modify; deleting a group keeps its volumes
 * ({@code DO_NOT_ALLOW_VG_TO_DELETE_VOLUMES}). Ids are {@code vg-1}, {@code vg-2}, ... in creation order; the fixture
 * groups of the builder ({@code grp-0}, ...) are groups of that name, without members.
 */
final class ReferenceVolumeGroups {
    /** One group. */
    private record Group(String id, String name, Map<String, String> parameters, List<String> members) {
        VolumeGroup typed() {
            return VolumeGroup.of(id, members);
        }
    }

    private final Map<String, Group> byId = new LinkedHashMap<>();
    private final Map<String, String> idByName = new LinkedHashMap<>();
    private final Set<String> fixtures = new LinkedHashSet<>();
    private final Predicate<String> volumeExists;
    private long created;

    ReferenceVolumeGroups(Predicate<String> volumeExists) {
        this.volumeExists = volumeExists;
    }

    /** A fixture group of the builder: its id is its name, it has no members. */
    synchronized void fixture(String id) {
        Group g = new Group(id, id, Map.of(), List.of());
        byId.put(id, g);
        idByName.put(id, id);
        fixtures.add(id);
    }

    /** The same group for a compatible name, else a new one; {@code register} makes its id a replication source. */
    VolumeGroup create(CreateGroupRequest r, Consumer<String> register) {
        Group made;
        synchronized (this) {
            String existing = idByName.get(r.name());
            if (existing != null) {
                Group g = byId.get(existing);
                if (!g.parameters().equals(r.parameters())
                        || !Set.copyOf(g.members()).equals(Set.copyOf(r.volumeIds()))) {
                    throw ReplicationException.of(
                            StatusCode.ALREADY_EXISTS,
                            "a volume group named " + r.name() + " exists with other parameters or volumes (" + g.id()
                                    + ")",
                            null,
                            0,
                            null);
                }
                return g.typed();
            }
            for (int i = 0; i < r.volumeIds().size(); i++) {
                String volume = r.volumeIds().get(i);
                if (!volumeExists.test(volume)) {
                    throw InvalidArgumentException.ofField(
                            "volume_ids[" + i + "]", "volume " + volume + " does not exist");
                }
                Optional<Group> other = groupOf(volume);
                if (other.isPresent()) {
                    throw new PreconditionFailedException("volumes cannot be grouped together: volume " + volume
                            + " is in volume group " + other.get().id() + " (a volume is in at most one group)");
                }
            }
            made = new Group("vg-" + ++created, r.name(), r.parameters(), List.copyOf(r.volumeIds()));
            byId.put(made.id(), made);
            idByName.put(made.name(), made.id());
        }
        register.accept(made.id());
        return made.typed();
    }

    /** The whole new membership of a group. */
    synchronized VolumeGroup modify(ModifyGroupRequest r) {
        Group g = byId.get(r.volumeGroupId());
        if (g == null) {
            throw new SourceNotFoundException("volume group " + r.volumeGroupId() + " does not exist");
        }
        for (int i = 0; i < r.volumeIds().size(); i++) {
            String volume = r.volumeIds().get(i);
            if (!volumeExists.test(volume)) {
                throw new SourceNotFoundException("volume " + volume + " (volume_ids[" + i + "]) does not exist");
            }
            Optional<Group> other = groupOf(volume).filter(o -> !o.id().equals(g.id()));
            if (other.isPresent()) {
                throw InvalidArgumentException.ofField(
                        "volume_ids[" + i + "]",
                        "volume " + volume + " is in volume" + " group "
                                + other.get().id() + " (a volume is in at most one group)");
            }
        }
        Group changed = new Group(g.id(), g.name(), g.parameters(), List.copyOf(r.volumeIds()));
        byId.put(g.id(), changed);
        return changed.typed();
    }

    /**
     * Removes a group unless {@code inUse} says it is (its replication is enabled: 9 FAILED_PRECONDITION); one that
     * does not exist is no error. Returns whether there was one to remove.
     */
    synchronized boolean delete(String id, Predicate<String> inUse) {
        Group g = byId.get(id);
        if (g == null) {
            return false;
        }
        if (inUse.test(id)) {
            throw new PreconditionFailedException(
                    "volume group " + id + " is in use: its replication is enabled;" + " disable it first");
        }
        byId.remove(id);
        idByName.remove(g.name());
        return true;
    }

    synchronized Optional<VolumeGroup> get(String id) {
        return Optional.ofNullable(byId.get(id)).map(Group::typed);
    }

    synchronized List<VolumeGroup> list() {
        return byId.values().stream().map(Group::typed).toList();
    }

    /** A group's members now; empty for an unknown group. */
    synchronized List<String> members(String id) {
        Group g = byId.get(id);
        return g == null ? List.of() : g.members();
    }

    /** Every group back to its fixture form (created groups removed, fixture groups back and empty); the ids now. */
    synchronized Set<String> reset() {
        byId.clear();
        idByName.clear();
        for (String fixture : fixtures) {
            byId.put(fixture, new Group(fixture, fixture, Map.of(), List.of()));
            idByName.put(fixture, fixture);
        }
        created = 0;
        return new LinkedHashSet<>(byId.keySet());
    }

    private Optional<Group> groupOf(String volume) {
        return byId.values().stream().filter(g -> g.members().contains(volume)).findFirst();
    }

    /** The replication source of a group id. */
    static ReplicationSource source(String id) {
        return ReplicationSource.volumeGroup(id);
    }
}
