package io.volrep.testkit.reference;

import io.volrep.api.ReplicationSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The reference plugin's replication sources, each with its state, and the effect log of every change applied to
 * them. The builder's fixtures are here from the start; a group that CreateVolumeGroup makes joins them and leaves
 * with DeleteVolumeGroup. Lock order: a source's monitor, then the log's; never the log's while taking a source's.
 */
final class ReferenceFixtures {
    /** A source's state and its effect counter; guarded by its own monitor. */
    static final class Fixture {
        ReferenceDriver.SourceState state;
        long effects;

        Fixture(ReplicationSource source) {
            state = ReferenceDriver.SourceState.initial(source);
        }
    }

    private final Map<ReplicationSource, Fixture> bySource = Collections.synchronizedMap(new LinkedHashMap<>());
    private final AtomicLong sequence = new AtomicLong();
    private final List<ReferenceDriver.Effect> effects = new ArrayList<>();

    ReferenceFixtures(Set<ReplicationSource> sources) {
        sources.forEach(s -> bySource.put(s, new Fixture(s)));
    }

    /** The source's fixture, or null when it does not exist. */
    Fixture get(ReplicationSource source) {
        return bySource.get(source);
    }

    /** Makes a created volume group a source, disabled and primary (once). */
    void addGroup(String id) {
        bySource.computeIfAbsent(ReplicationSource.volumeGroup(id), Fixture::new);
    }

    /** Forgets a deleted volume group. */
    void remove(ReplicationSource source) {
        bySource.remove(source);
    }

    /** Every source, in creation order (a copy). */
    Set<ReplicationSource> sources() {
        synchronized (bySource) {
            return Collections.unmodifiableSet(new LinkedHashSet<>(bySource.keySet()));
        }
    }

    /** The state of a source. */
    ReferenceDriver.SourceState state(ReplicationSource source) {
        Fixture f = bySource.get(source);
        if (f == null) {
            throw new IllegalArgumentException("not a fixture of this driver: " + source);
        }
        synchronized (f) {
            return f.state;
        }
    }

    /** The effect log, in the order applied (a copy). */
    List<ReferenceDriver.Effect> effects() {
        synchronized (effects) {
            return List.copyOf(effects);
        }
    }

    /** Applies and records a change; called holding the fixture's monitor. */
    void apply(Fixture f, ReferenceDriver.Change change, ReferenceDriver.SourceState after) {
        synchronized (effects) {
            f.state = after;
            f.effects++;
            effects.add(new ReferenceDriver.Effect(sequence.incrementAndGet(), f.effects, after.source(), change,
                    after));
        }
    }

    /**
     * Every source back to disabled and primary, the log cleared; of the volume groups only {@code groupIds} remain
     * (the fixture groups), each a source again.
     */
    void reset(Set<String> groupIds) {
        synchronized (bySource) {
            bySource.keySet().removeIf(s -> s.kind() == ReplicationSource.Kind.VOLUME_GROUP
                    && !groupIds.contains(s.id()));
            groupIds.forEach(this::addGroup);
        }
        for (Fixture f : sources().stream().map(bySource::get).toList()) {
            synchronized (f) {
                f.state = ReferenceDriver.SourceState.initial(f.state.source());
                f.effects = 0;
            }
        }
        synchronized (effects) {
            effects.clear();
            sequence.set(0);
        }
    }
}
