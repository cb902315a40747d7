package io.volrep.testkit.reference;

import io.volrep.api.ReplicationSource;
import java.time.Instant;
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
    /**
     * A source's state on this site and its effect counter, guarded by {@link #lock}: its own monitor, or in a
     * {@link ReferencePair} the monitor it shares with the same source on the peer site (a call changes both).
     */
    static final class Fixture {
        final ReferenceFixtures site;
        /** Set once, when a pair is built and before either site serves a call; read through {@link #lock()}. */
        private Object lock = this;
        /** The same source on the peer site, in a {@link ReferencePair}; else null. */
        Fixture peer;

        ReferenceDriver.SourceState state;
        long effects;
        /** When this site last demoted the source: the peer refuses non-forced promotes until the window passed. */
        Instant demotedAt;
        /** Until when Info answers 5 NOT_FOUND: the first sync after an enable or a promote has not completed. */
        Instant firstSyncAt;
        /** Promoted by force while the peer site was primary: both hold a primary until this one resyncs. */
        boolean splitBrain;

        /** The monitor guarding this source's state (shared with its peer's in a pair). */
        Object lock() {
            return lock;
        }

        Fixture(ReferenceFixtures site, ReplicationSource source) {
            this.site = site;
            state = ReferenceDriver.SourceState.initial(source);
        }
    }

    private final Map<ReplicationSource, Fixture> bySource = Collections.synchronizedMap(new LinkedHashMap<>());
    private final AtomicLong sequence = new AtomicLong();
    private final List<ReferenceDriver.Effect> effects = new ArrayList<>();

    ReferenceFixtures(Set<ReplicationSource> sources) {
        sources.forEach(s -> bySource.put(s, new Fixture(this, s)));
    }

    /** The source's fixture, or null when it does not exist. */
    Fixture get(ReplicationSource source) {
        return bySource.get(source);
    }

    /** Makes a created volume group a source, disabled and primary (once). */
    void addGroup(String id) {
        bySource.computeIfAbsent(ReplicationSource.volumeGroup(id), s -> new Fixture(this, s));
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
        synchronized (f.lock()) {
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
    /** Applies and records a change in the log of {@code f}'s site; called holding the fixture's lock. */
    static void apply(Fixture f, ReferenceDriver.Change change, ReferenceDriver.SourceState after) {
        ReferenceFixtures site = f.site;
        synchronized (site.effects) {
            f.state = after;
            f.effects++;
            site.effects.add(new ReferenceDriver.Effect(
                    site.sequence.incrementAndGet(), f.effects, after.source(), change, after));
        }
    }

    /**
     * Links every source of {@code a} with the same source of {@code b}: one replication pair on two sites. Groups
     * created later through volumegroup.Controller are not paired.
     */
    static void pair(ReferenceFixtures a, ReferenceFixtures b) {
        if (!a.sources().equals(b.sources())) {
            throw new IllegalArgumentException("the two sites of a pair need the same sources");
        }
        for (ReplicationSource source : a.sources()) {
            Fixture fa = a.get(source);
            Fixture fb = b.get(source);
            fb.lock = fa.lock;
            fa.peer = fb;
            fb.peer = fa;
        }
    }

    /**
     * Every source back to disabled and primary, the log cleared; of the volume groups only {@code groupIds} remain
     * (the fixture groups), each a source again.
     */
    void reset(Set<String> groupIds) {
        synchronized (bySource) {
            bySource.keySet()
                    .removeIf(s -> s.kind() == ReplicationSource.Kind.VOLUME_GROUP && !groupIds.contains(s.id()));
            groupIds.forEach(this::addGroup);
        }
        for (Fixture f : sources().stream().map(bySource::get).toList()) {
            synchronized (f.lock()) {
                f.state = ReferenceDriver.SourceState.initial(f.state.source());
                f.effects = 0;
                f.demotedAt = null;
                f.firstSyncAt = null;
                f.splitBrain = false;
            }
        }
        synchronized (effects) {
            effects.clear();
            sequence.set(0);
        }
    }
}
