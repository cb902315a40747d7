package io.volrep.testkit;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one check did to its sources, from the OK answers it got: which it enabled, which it may have left demoted,
 * which replicas it promoted on the peer site. The check's restore reads it to return every source to "replication
 * disabled, primary", and the settling reads it to tell a primary's "details not available at the moment" (Info 5)
 * from a plain NOT_FOUND. Thread-safe: a check may send calls at once.
 */
final class SourceBookkeeping {
    /** Sources the check enabled, keyed by {@link #key}, in replication_source form. */
    private final Map<String, Addressing> enabled = new LinkedHashMap<>();
    /** Sources the check may have left demoted. */
    private final Set<String> demoted = new LinkedHashSet<>();
    /** Replicas on the peer site the check promoted (keyed as {@link #enabled}). */
    private final Map<String, Addressing> promotedOnPeer = new LinkedHashMap<>();

    /** {@code "volume/ID"} or {@code "group/ID"}: how {@link Needs#fixture} and the bookkeeping name a source. */
    static String key(Addressing target) {
        if (target.source() != null
                && target.source().hasVolume()
                && !target.source().getVolume().getVolumeId().isEmpty()) {
            return "volume/" + target.source().getVolume().getVolumeId();
        }
        if (target.source() != null
                && target.source().hasVolumegroup()
                && !target.source().getVolumegroup().getVolumeGroupId().isEmpty()) {
            return "group/" + target.source().getVolumegroup().getVolumeGroupId();
        }
        if (target.source() == null && !target.volumeId().isEmpty()) {
            return "volume/" + target.volumeId();
        }
        return null;
    }

    /** Notes what an answer on the plugin under test did to {@code target}. */
    synchronized void track(Addressing target, Outcome outcome) {
        String key = key(target);
        if (key == null || !outcome.ok()) {
            return;
        }
        switch (outcome.rpc()) {
            case ENABLE_VOLUME_REPLICATION -> enabled.putIfAbsent(key, normalized(target));
            case DEMOTE_VOLUME, RESYNC_VOLUME -> demoted.add(key);
            case PROMOTE_VOLUME -> demoted.remove(key);
            case DISABLE_VOLUME_REPLICATION -> {
                enabled.remove(key);
                demoted.remove(key);
            }
            default -> {}
        }
    }

    /** Notes what an answer on the peer site did to {@code replica}. */
    synchronized void trackPeer(Addressing replica, Outcome outcome) {
        String key = key(replica);
        if (key == null || !outcome.ok()) {
            return;
        }
        switch (outcome.rpc()) {
            case PROMOTE_VOLUME -> promotedOnPeer.put(key, replica);
            case DEMOTE_VOLUME, DISABLE_VOLUME_REPLICATION -> promotedOnPeer.remove(key);
            default -> {}
        }
    }

    /** True when the check enabled {@code target} and has not demoted it since: it is primary, as far as we know. */
    synchronized boolean madePrimary(Addressing target) {
        String key = key(target);
        return key != null && enabled.containsKey(key) && !demoted.contains(key);
    }

    /** True when the check promoted {@code replica} on the peer site and has not demoted it since. */
    synchronized boolean promotedOnPeer(Addressing replica) {
        String key = key(replica);
        return key != null && promotedOnPeer.containsKey(key);
    }

    /** True when the check may have left {@code target} demoted. */
    synchronized boolean mayBeDemoted(Addressing target) {
        return demoted.contains(key(target));
    }

    /** The sources the check enabled and has not disabled since, in {@code replication_source} form. */
    synchronized List<Addressing> enabled() {
        return List.copyOf(enabled.values());
    }

    /** The replicas the check promoted on the peer site and has not demoted since. */
    synchronized List<Addressing> promotedOnPeer() {
        return List.copyOf(promotedOnPeer.values());
    }

    /** Forgets that the check enabled {@code target} (it restored it itself). */
    synchronized void forget(Addressing target) {
        String key = key(target);
        enabled.remove(key);
        demoted.remove(key);
    }

    private static Addressing normalized(Addressing target) {
        return target.source() == null ? Addressing.volume(target.volumeId()) : target;
    }
}
