package io.volrep.ceph;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import io.volrep.api.ReplicationInfo.Status;
import io.volrep.api.internal.SafeText;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The state each site's rbd-mirror daemon last reported for one image ({@code rbd_mirror_image_get_global_status},
 * named as {@code rbd mirror image status} prints it: {@code up+replaying}, ...). On a primary, {@code peer_sites} holds the peers' replayers, and their description carries the sync figures
 * ({@code replaying, {"local_snapshot_timestamp":...,"last_snapshot_sync_seconds":...,"last_snapshot_bytes":...}}).
 * Reports are written every few seconds by the daemons: judge roles from {@link RbdImage}, not from here.
 *
 * <p>The health of a primary is read from its peers by this table (first matching row; the worst peer counts):
 * <table>
 *   <caption>Info's status from a peer's mirror state</caption>
 *   <tr><th>peer state</th><th>description</th><th>status</th></tr>
 *   <tr><td>{@code up+replaying}</td><td>idle, its last synced snapshot is the primary's latest</td><td>HEALTHY</td></tr>
 *   <tr><td>{@code up+replaying}</td><td>syncing a snapshot, or behind the primary's latest</td><td>DEGRADED</td></tr>
 *   <tr><td>{@code up+error}</td><td>anything ({@code split-brain detected}, {@code error bootstrapping replay})</td><td>ERROR</td></tr>
 *   <tr><td>{@code up+stopped}</td><td>{@code local image is primary}: both sites primary</td><td>ERROR</td></tr>
 *   <tr><td>{@code up+*} (starting_replay, stopping_replay, syncing, unknown, ...)</td><td>anything</td><td>DEGRADED</td></tr>
 *   <tr><td>{@code down+unknown}</td><td>{@code status not found}: the peer has not reported yet</td><td>DEGRADED</td></tr>
 *   <tr><td>{@code down+*}</td><td>the peer's rbd-mirror stopped reporting (site or daemon down)</td><td>ERROR</td></tr>
 *   <tr><td>no peer at all</td><td></td><td>ERROR</td></tr>
 * </table>
 *
 * <pre>{@code
 * MirrorStatus status = site.mirrorStatus("vol-0");
 * Optional<MirrorStatus.Sync> last = status.lastSync();      // the least synced peer's last snapshot
 * MirrorStatus.Health health = status.health("vol-0");
 * }</pre>
 *
 * @param state the local daemon's state, e.g. {@code up+stopped} on a primary
 * @param description the local daemon's description
 * @param peers what each peer site's daemon reported
 */
record MirrorStatus(String state, String description, List<Peer> peers) {

    /**
     * One peer's report.
     *
     * @param site the peer's site name
     * @param state e.g. {@code up+replaying}
     * @param description e.g. {@code replaying, {...}} or {@code split-brain detected}
     * @param lastUpdate when the peer's daemon wrote it, as rbd prints it ("" when never)
     */
    record Peer(String site, String state, String description, String lastUpdate) {
        /** The sync figures of a replaying peer, when it has completed a snapshot. */
        Optional<Sync> sync() {
            return Sync.parse(description);
        }

        boolean up() {
            return state.startsWith("up+");
        }
    }

    /**
     * The figures of the last completed sync, from a replayer's description.
     *
     * @param snapshotTime when the synced snapshot was taken on the primary: the data on the peer is as of then
     * @param duration how long its sync took, when reported
     * @param bytes how many bytes it moved, when reported
     * @param primaryLatest when the primary's latest snapshot was taken (later than {@code snapshotTime} while the
     *                      peer is behind)
     * @param syncing true while the peer copies a snapshot
     */
    record Sync(
            Instant snapshotTime,
            Optional<Duration> duration,
            OptionalLong bytes,
            Optional<Instant> primaryLatest,
            boolean syncing) {

        /** Behind the primary's latest snapshot, or copying one. */
        boolean behind() {
            return syncing
                    || primaryLatest
                            .filter(latest -> latest.isAfter(snapshotTime))
                            .isPresent();
        }

        static Optional<Sync> parse(String description) {
            int brace = description.indexOf('{');
            if (brace < 0) {
                return Optional.empty();
            }
            JsonObject o;
            try {
                JsonElement e = JsonParser.parseString(description.substring(brace));
                if (!e.isJsonObject()) {
                    return Optional.empty();
                }
                o = e.getAsJsonObject();
            } catch (JsonParseException | IllegalStateException e) {
                return Optional.empty();
            }
            OptionalLong local = number(o, "local_snapshot_timestamp");
            if (local.isEmpty()) {
                return Optional.empty(); // replaying, but no snapshot completed yet
            }
            OptionalLong seconds = number(o, "last_snapshot_sync_seconds");
            OptionalLong remote = number(o, "remote_snapshot_timestamp");
            return Optional.of(new Sync(
                    Instant.ofEpochSecond(local.getAsLong()),
                    seconds.isPresent() ? Optional.of(Duration.ofSeconds(seconds.getAsLong())) : Optional.empty(),
                    number(o, "last_snapshot_bytes"),
                    remote.isPresent() ? Optional.of(Instant.ofEpochSecond(remote.getAsLong())) : Optional.empty(),
                    o.has("replay_state")
                            && o.get("replay_state").isJsonPrimitive()
                            && "syncing".equals(o.get("replay_state").getAsString())));
        }

        private static OptionalLong number(JsonObject o, String key) {
            JsonElement e = o.get(key);
            if (e == null || !e.isJsonPrimitive() || !e.getAsJsonPrimitive().isNumber()) {
                return OptionalLong.empty();
            }
            return OptionalLong.of(e.getAsJsonPrimitive().getAsBigDecimal().longValue());
        }
    }

    /**
     * A status and its message, by the table above.
     *
     * @param status the replication's health
     * @param message why, naming the peer and its state ("" when healthy)
     */
    record Health(Status status, String message) {}

    /**
     * The last completed sync of the least synced peer (the RPO point of the image): empty while some peer has not
     * completed a first sync, or no peer reports one.
     */
    Optional<Sync> lastSync() {
        List<Sync> syncs = new ArrayList<>();
        for (Peer p : peers) {
            Optional<Sync> s = p.sync();
            if (s.isEmpty()) {
                return Optional.empty();
            }
            syncs.add(s.get());
        }
        return syncs.stream().min(Comparator.comparing(Sync::snapshotTime));
    }

    /** True when the local rbd-mirror reports this copy diverged from the primary ({@code up+error}, split-brain). */
    boolean splitBrain() {
        return state.equals("up+error") && description.contains(RbdErrors.SPLIT_BRAIN);
    }

    /** The local image's own sync figures (a non-primary's replayer reports them as its own state). */
    Optional<Sync> localSync() {
        return Sync.parse(description);
    }

    /** The health of a primary image by the table above; {@code image} names it in the message. */
    Health health(String image) {
        if (peers.isEmpty()) {
            return new Health(Status.ERROR, "no peer site reports on " + image + ": is the pool peered?");
        }
        Health worst = null;
        for (Peer p : peers) {
            Health h = health(image, p);
            if (worst == null || rank(h.status()) > rank(worst.status())) {
                worst = h;
            }
        }
        return worst;
    }

    private static Health health(String image, Peer p) {
        String who = "site " + SafeText.escape(p.site());
        String reported = SafeText.escape(p.state()) + ": " + SafeText.escape(shorten(p.description(), 200))
                + (p.lastUpdate().isEmpty() ? "" : " (reported " + SafeText.escape(p.lastUpdate()) + ")");
        if (p.state().equals("up+replaying")) {
            Optional<Sync> sync = p.sync();
            if (sync.isEmpty()) {
                return new Health(Status.DEGRADED, who + " has not completed a first sync of " + image + " yet");
            }
            if (sync.get().behind()) {
                return new Health(
                        Status.DEGRADED,
                        who + " is behind: it holds the snapshot of "
                                + sync.get().snapshotTime()
                                + sync.get()
                                        .primaryLatest()
                                        .map(l -> ", the primary's latest is" + " of " + l)
                                        .orElse("")
                                + (sync.get().syncing() ? " (syncing)" : ""));
            }
            return new Health(Status.HEALTHY, "");
        }
        if (p.state().equals("up+error")) {
            return new Health(Status.ERROR, who + " reports an error: " + reported);
        }
        if (p.state().equals("up+stopped") && p.description().contains(RbdErrors.LOCAL_IMAGE_IS_PRIMARY)) {
            return new Health(
                    Status.ERROR, who + " reports " + image + " as primary there too (split-brain): " + reported);
        }
        if (p.up()) {
            return new Health(Status.DEGRADED, who + " is not replaying " + image + ": " + reported);
        }
        if (p.description().equals(RbdErrors.STATUS_NOT_FOUND)) {
            return new Health(Status.DEGRADED, who + " has not reported on " + image + " yet");
        }
        return new Health(
                Status.ERROR,
                who + "'s rbd-mirror stopped reporting on " + image + " (site or daemon down);" + " last report "
                        + reported);
    }

    static String shorten(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max) + "...";
    }

    private static int rank(Status s) {
        return switch (s) {
            case HEALTHY -> 0;
            case UNKNOWN -> 1;
            case DEGRADED -> 2;
            case ERROR -> 3;
        };
    }
}
