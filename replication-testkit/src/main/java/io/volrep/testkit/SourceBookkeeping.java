package io.volrep.testkit;

import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.testkit.LifecycleModel.State;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What one check did to its sources, from the OK answers it got and what it observed: which sources it enabled and
 * where it believes each is now (site A), in which state it last observed each replica on the peer site (site B),
 * and which replicas it promoted there itself. The check's restore reads it to undo exactly what the check changed,
 * the settling reads it to tell a primary's "details not available at the moment" (Info 5) from a plain NOT_FOUND,
 * and the two-site calls read it so that nothing on site B changes that was not first observed in the state the call
 * expects. Thread-safe: a check may send calls at once.
 */
final class SourceBookkeeping {
    /** Sources the check enabled and has not disabled since, in replication_source form. */
    private final Map<ReplicationSource, Addressing> enabled = new LinkedHashMap<>();
    /** Where each source of site A is, as the check's OK answers moved it (absent: replication disabled). */
    private final Map<ReplicationSource, State> believed = new LinkedHashMap<>();
    /**
     * The states each replica on site B was last observed in (every state its read-only answers fit: more than one
     * where a revision's probes cannot tell them apart), since the last call that may have changed it.
     */
    private final Map<ReplicationSource, Set<State>> observedOnPeer = new LinkedHashMap<>();
    /** The ids of the walk checks of each source's mutating calls on site A (RPC, force, state before), latest last. */
    private final Map<ReplicationSource, List<String>> calls = new LinkedHashMap<>();
    /** Replicas on site B this check promoted itself (observed secondary before, the promote answered OK). */
    private final Map<ReplicationSource, Addressing> promotedOnPeer = new LinkedHashMap<>();
    /** True once a call that may change a replica on site B answered OK. */
    private boolean changedOnPeer;
    /** The fixtures a call other than EnableVolumeReplication (or one with force) may have changed. */
    private final Set<ReplicationSource> changedOtherwise = new LinkedHashSet<>();

    /** True for the calls that may change a source's state (every RPC but the model's read-only ones). */
    static boolean mutating(Rpc rpc) {
        return rpc == Rpc.ENABLE_VOLUME_REPLICATION
                || rpc == Rpc.DISABLE_VOLUME_REPLICATION
                || rpc == Rpc.PROMOTE_VOLUME
                || rpc == Rpc.DEMOTE_VOLUME
                || rpc == Rpc.RESYNC_VOLUME;
    }

    /** Notes what an answer on the plugin under test (site A) did to {@code target}. */
    synchronized void track(Addressing target, Outcome outcome) {
        if (mutating(outcome.rpc())) {
            // Site A's calls move the pair: what was observed on B is no longer known.
            observedOnPeer.clear();
        }
        Optional<ReplicationSource> fixture = target.fixture();
        if (fixture.isEmpty() || !outcome.ok()) {
            return;
        }
        ReplicationSource f = fixture.get();
        State now = believed(f);
        switch (outcome.rpc()) {
            case ENABLE_VOLUME_REPLICATION -> {
                enabled.putIfAbsent(f, Addressing.of(f));
                if (now == State.DISABLED) {
                    believed.put(f, State.PRIMARY);
                }
            }
            case DEMOTE_VOLUME -> believed.put(f, State.SECONDARY);
            case PROMOTE_VOLUME -> believed.put(f, State.PRIMARY);
            case DISABLE_VOLUME_REPLICATION -> {
                enabled.remove(f);
                believed.remove(f);
            }
            default -> {}
        }
    }

    /** Notes the walk check of a mutating call on {@code target} made in {@code before}, with or without force. */
    synchronized void called(Addressing target, Rpc rpc, boolean force, State before) {
        if (mutating(rpc)) {
            target.fixture().ifPresent(f -> {
                if (rpc != Rpc.ENABLE_VOLUME_REPLICATION || force) {
                    changedOtherwise.add(f);
                }
                List<String> ids = calls.computeIfAbsent(f, k -> new ArrayList<>());
                String id = LifecycleChecks.walkId(rpc, f.kind(), before) + (force ? "/force" : "");
                ids.remove(id);
                ids.add(id);
            });
        }
    }

    /** The walk checks of the mutating calls the check made on {@code target}, the latest first. */
    synchronized List<String> calls(Addressing target) {
        List<String> ids = new ArrayList<>(
                target.fixture().map(f -> calls.getOrDefault(f, List.of())).orElse(List.of()));
        Collections.reverse(ids);
        return ids;
    }

    /**
     * Notes what an answer on the peer site did to {@code replica}; {@code before} is how it was observed before (the
     * states its answers fit).
     */
    synchronized void trackPeer(Addressing replica, Outcome outcome, Set<State> before) {
        if (!mutating(outcome.rpc())) {
            return;
        }
        observedOnPeer.clear();
        Optional<ReplicationSource> r = replica.fixture();
        if (r.isEmpty() || !outcome.ok()) {
            return;
        }
        changedOnPeer = true;
        switch (outcome.rpc()) {
            // Only a promote of a replica observed secondary is the check's doing: an OK promote of a volume that was
            // primary already changed nothing, and restoring it would demote what the check never promoted. (Observed
            // "disabled or secondary" where a revision cannot tell: an OK promote shows it was the secondary.)
            case PROMOTE_VOLUME -> {
                if (before.contains(State.SECONDARY) && !before.contains(State.PRIMARY)) {
                    promotedOnPeer.put(r.get(), replica);
                }
            }
            case DEMOTE_VOLUME, DISABLE_VOLUME_REPLICATION -> promotedOnPeer.remove(r.get());
            default -> {}
        }
    }

    /**
     * Notes that {@code replica} on site B answered its read-only probes as in each of {@code fits} (empty: no state
     * fits, or the replica is not one the kit may act on).
     */
    synchronized void observedOnPeer(Addressing replica, Set<State> fits) {
        replica.fixture().ifPresent(r -> {
            if (fits.isEmpty()) {
                observedOnPeer.remove(r);
            } else {
                observedOnPeer.put(r, Set.copyOf(fits));
            }
        });
    }

    /**
     * The states {@code replica} was last observed in on site B since the last call that may have changed it; empty
     * when not observed since.
     */
    synchronized Set<State> observedOnPeer(Addressing replica) {
        return replica.fixture()
                .map(r -> observedOnPeer.getOrDefault(r, Set.of()))
                .orElse(Set.of());
    }

    /** Where the check believes {@code source} of site A is: replication disabled unless its OK answers moved it. */
    synchronized State believed(ReplicationSource source) {
        return believed.getOrDefault(source, State.DISABLED);
    }

    /** Where the check believes {@code target} is; replication disabled for a request that names no fixture. */
    synchronized State believed(Addressing target) {
        return target.fixture().map(this::believed).orElse(State.DISABLED);
    }

    /** True when the check enabled {@code target} and has not demoted it since: it is primary, as far as we know. */
    synchronized boolean madePrimary(Addressing target) {
        Optional<ReplicationSource> f = target.fixture();
        return f.isPresent() && enabled.containsKey(f.get()) && believed(f.get()) == State.PRIMARY;
    }

    /** True when the check promoted {@code replica} on the peer site and has not demoted it since. */
    synchronized boolean promotedOnPeer(Addressing replica) {
        return replica.fixture().map(promotedOnPeer::containsKey).orElse(false);
    }

    /** True when the check may have left {@code target} demoted. */
    synchronized boolean mayBeDemoted(Addressing target) {
        return believed(target) == State.SECONDARY;
    }

    /** The sources the check enabled and has not disabled since, in {@code replication_source} form. */
    synchronized List<Addressing> enabled() {
        return List.copyOf(enabled.values());
    }

    /** The replicas the check promoted on the peer site and has not demoted since. */
    synchronized List<Addressing> promotedOnPeer() {
        return List.copyOf(promotedOnPeer.values());
    }

    /** The fixtures the check enabled and has not disabled since. */
    synchronized Set<ReplicationSource> enabledFixtures() {
        return new LinkedHashSet<>(enabled.keySet());
    }

    /**
     * True when the only mutating calls the check made on {@code target} enabled it, without force: no demotion, no
     * promotion, no resync, whose effects on real storage outlast the call (the peer replays them for seconds).
     */
    synchronized boolean onlyEnabled(Addressing target) {
        return target.fixture().filter(changedOtherwise::contains).isEmpty();
    }

    /** True once the check changed a replica on site B (a mutating call there answered OK). */
    synchronized boolean changedOnPeer() {
        return changedOnPeer;
    }

    /** Notes that {@code source} came to this check enabled and primary, as the check before it left it. */
    synchronized void carriedIn(ReplicationSource source) {
        enabled.put(source, Addressing.of(source));
        believed.put(source, State.PRIMARY);
    }

    /** Forgets that the check enabled {@code target} (it restored it itself). */
    synchronized void forget(Addressing target) {
        target.fixture().ifPresent(f -> {
            enabled.remove(f);
            believed.remove(f);
        });
    }
}
