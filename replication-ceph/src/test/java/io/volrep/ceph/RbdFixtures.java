package io.volrep.ceph;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The lab's {@code rbd ... --format json} outputs (copied from Ceph 16.2.15 runs) read into the driver's records, for
 * the scripted sites of the unit tests: the tests keep what real Ceph printed, and the driver gets what librbd gives.
 *
 * <pre>{@code
 * RbdImage image = RbdFixtures.image("vol-0", CephRbdDriverTest.PRIMARY);
 * }</pre>
 */
final class RbdFixtures {
    private static final DateTimeFormatter SNAPSHOT_TIME =
            DateTimeFormatter.ofPattern("MMM d yyyy HH:mm:ss", Locale.ROOT);

    private RbdFixtures() {}

    static RbdImage image(String name, String json) {
        JsonObject o = object(JsonParser.parseString(json));
        JsonObject m = o.has("mirroring") && o.get("mirroring").isJsonObject() ? o.getAsJsonObject("mirroring") : null;
        if (m == null || "disabled".equals(string(m, "state"))) {
            return new RbdImage(name, string(o, "id"), Optional.empty(), "", "", false);
        }
        return new RbdImage(
                name,
                string(o, "id"),
                Optional.of(string(m, "state")),
                string(m, "mode"),
                string(m, "global_id"),
                m.has("primary") && m.get("primary").getAsBoolean());
    }

    static MirrorStatus status(String json) {
        JsonObject o = object(JsonParser.parseString(json));
        List<MirrorStatus.Peer> peers = new ArrayList<>();
        if (o.has("peer_sites") && o.get("peer_sites").isJsonArray()) {
            for (JsonElement p : o.getAsJsonArray("peer_sites")) {
                JsonObject po = p.getAsJsonObject();
                peers.add(new MirrorStatus.Peer(
                        string(po, "site_name"),
                        string(po, "state"),
                        string(po, "description"),
                        string(po, "last_update")));
            }
        }
        return new MirrorStatus(string(o, "state"), string(o, "description"), List.copyOf(peers));
    }

    static MirrorSnapshots snapshots(String json) {
        List<MirrorSnapshots.Snapshot> snapshots = new ArrayList<>();
        JsonElement parsed = JsonParser.parseString(json);
        if (parsed.isJsonArray()) {
            for (JsonElement e : parsed.getAsJsonArray()) {
                JsonObject s = e.getAsJsonObject();
                JsonObject ns = s.has("namespace") ? s.getAsJsonObject("namespace") : null;
                if (ns == null || !"mirror".equals(string(ns, "type"))) {
                    continue;
                }
                snapshots.add(new MirrorSnapshots.Snapshot(
                        s.get("id").getAsLong(),
                        time(string(s, "timestamp")),
                        ns.has("primary_mirror_uuid"),
                        ns.has("complete") && ns.get("complete").getAsBoolean(),
                        string(ns, "state"),
                        ns.has("primary_snap_id") ? ns.get("primary_snap_id").getAsLong() : -1));
            }
        }
        return new MirrorSnapshots(List.copyOf(snapshots));
    }

    static Map<String, String> metadata(String json) {
        Map<String, String> values = new LinkedHashMap<>();
        object(JsonParser.parseString(json))
                .entrySet()
                .forEach(e -> values.put(e.getKey(), e.getValue().getAsString()));
        return values;
    }

    /** {@code rbd mirror snapshot schedule ls --format json}: {@code [{"interval":"1m","start_time":""}]}. */
    static List<SnapshotSchedule> schedules(String json) {
        List<SnapshotSchedule> list = new ArrayList<>();
        JsonElement parsed = JsonParser.parseString(json);
        if (parsed.isJsonArray()) {
            for (JsonElement e : parsed.getAsJsonArray()) {
                list.add(new SnapshotSchedule(
                        string(e.getAsJsonObject(), "interval"), string(e.getAsJsonObject(), "start_time")));
            }
        }
        return list;
    }

    /** {@code rbd trash ls --all --long --format json}: whether rbd-mirror has image {@code name} there. */
    static boolean inTrashForMirroring(String json, String name) {
        for (JsonElement e : JsonParser.parseString(json).getAsJsonArray()) {
            JsonObject o = e.getAsJsonObject();
            if (name.equals(string(o, "name")) && "MIRRORING".equalsIgnoreCase(string(o, "source"))) {
                return true;
            }
        }
        return false;
    }

    /** {@code rbd mirror pool info --all --format json}: the first peer with credentials. */
    static Optional<PeerCredentials> peer(String json) {
        JsonObject o = object(JsonParser.parseString(json));
        if (!o.has("peers")) {
            return Optional.empty();
        }
        for (JsonElement p : o.getAsJsonArray("peers")) {
            JsonObject peer = p.getAsJsonObject();
            if (peer.has("key") && peer.has("mon_host") && peer.has("client_name")) {
                return Optional.of(new PeerCredentials(
                        string(peer, "site_name"),
                        string(peer, "mirror_uuid"),
                        string(peer, "mon_host"),
                        string(peer, "client_name"),
                        string(peer, "key")));
            }
        }
        return Optional.empty();
    }

    /** rbd's {@code Thu Nov 26 04:13:02 2026} (UTC). */
    static Instant time(String text) {
        String[] p = text.strip().split("\\s+");
        return LocalDateTime.parse(p[1] + " " + p[2] + " " + p[4] + " " + p[3], SNAPSHOT_TIME)
                .toInstant(ZoneOffset.UTC);
    }

    private static JsonObject object(JsonElement e) {
        return e != null && e.isJsonObject() ? e.getAsJsonObject() : new JsonObject();
    }

    private static String string(JsonObject o, String key) {
        JsonElement e = o.get(key);
        return e == null || e.isJsonNull() ? "" : e.getAsString();
    }
}
