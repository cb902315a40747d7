package io.volrep.ceph;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import io.volrep.ceph.internal.rados.CephException;
import io.volrep.ceph.internal.rados.Cluster;
import io.volrep.ceph.internal.rados.Image;
import io.volrep.ceph.internal.rados.LibRbd;
import io.volrep.ceph.internal.rados.Pool;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A site's mirrored pool through librbd and librados in the plugin's process: one {@link Cluster} connection, made
 * once and reused by every call; an image opened per question (read-only for reads) and closed on every path; the
 * mgr's schedule commands sent as JSON ({@code rados_mgr_command}, what the {@code rbd} command does). Each failure is
 * an {@link RbdException} naming the operation and the errno.
 *
 * <pre>{@code
 * LibrbdSite site = LibrbdSite.local("site site-a", Cluster.fromConf("client.admin", conf, timeout), "rbd");
 * RbdImage image = site.image("vol-0");
 * }</pre>
 */
final class LibrbdSite implements RbdSite {
    private static final String[] STATUS_STATES = {
        "unknown", "error", "syncing", "starting_replay", "replaying", "stopping_replay", "stopped"
    };
    private static final DateTimeFormatter LAST_UPDATE =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss", Locale.ROOT).withZone(ZoneOffset.UTC);

    private final String name;
    private final Cluster cluster;
    private final String pool;

    LibrbdSite(String name, Cluster cluster, String pool) {
        this.name = name;
        this.cluster = cluster;
        this.pool = pool;
    }

    /** The peer site, reached with its stored credentials; its calls bounded by {@code timeout}. */
    static LibrbdSite peer(PeerCredentials peer, String pool, Duration timeout) {
        return new LibrbdSite(
                "site " + peer.siteName(),
                Cluster.fromMonHost(peer.clientName(), peer.monHost(), peer.key(), timeout),
                pool);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String pool() {
        return pool;
    }

    @Override
    public void connect() {
        call("connect", c -> c.connect());
    }

    @Override
    public void ping() {
        call("read the mirroring mode of pool " + pool, c -> c.pool(pool).mirrorMode());
    }

    @Override
    public RbdImage image(String id) {
        return read(id, "info", image -> {
            Image.MirrorInfo m = image.mirrorInfo();
            if (m.state() == Image.MIRROR_DISABLED) {
                return new RbdImage(id, image.id(), Optional.empty(), "", "", false);
            }
            String mode = image.mirrorMode() == LibRbd.RBD_MIRROR_IMAGE_MODE_SNAPSHOT ? "snapshot" : "journal";
            String state = m.state() == Image.MIRROR_ENABLED ? "enabled" : "disabling";
            return new RbdImage(id, image.id(), Optional.of(state), mode, m.globalId(), m.primary());
        });
    }

    @Override
    public MirrorStatus mirrorStatus(String id) {
        List<Image.SiteStatus> sites = read(id, "mirror image status", Image::siteStatuses);
        Map<String, String> siteNames = new HashMap<>();
        if (sites.stream().anyMatch(s -> !s.mirrorUuid().isEmpty())) {
            for (Pool.PeerSite p :
                    call("read the peers of pool " + pool, c -> c.pool(pool).peers())) {
                siteNames.put(p.mirrorUuid(), p.siteName());
            }
        }
        String state = "";
        String description = "";
        List<MirrorStatus.Peer> peers = new ArrayList<>();
        for (Image.SiteStatus s : sites) {
            String st = (s.up() ? "up+" : "down+")
                    + (s.state() >= 0 && s.state() < STATUS_STATES.length ? STATUS_STATES[s.state()] : "unknown");
            String updated = s.lastUpdate().getEpochSecond() == 0 ? "" : LAST_UPDATE.format(s.lastUpdate());
            if (s.mirrorUuid().isEmpty()) {
                state = st;
                description = s.description();
            } else {
                peers.add(new MirrorStatus.Peer(
                        siteNames.getOrDefault(s.mirrorUuid(), s.mirrorUuid()), st, s.description(), updated));
            }
        }
        return new MirrorStatus(state, description, List.copyOf(peers));
    }

    @Override
    public MirrorSnapshots snapshots(String id) {
        List<Image.Snapshot> all = read(id, "snap ls --all", Image::snapshots);
        List<MirrorSnapshots.Snapshot> mirror = new ArrayList<>();
        for (Image.Snapshot s : all) {
            if (!s.mirror()) {
                continue;
            }
            String state = switch (s.mirrorState()) {
                case 0 -> "primary";
                case 2 -> "non-primary";
                default -> "demoted";
            };
            mirror.add(new MirrorSnapshots.Snapshot(
                    s.id(),
                    s.timestamp(),
                    !s.primaryMirrorUuid().isEmpty(),
                    s.complete(),
                    state,
                    s.primaryMirrorUuid().isEmpty() ? -1 : s.primarySnapId()));
        }
        return new MirrorSnapshots(List.copyOf(mirror));
    }

    @Override
    public Map<String, String> metadata(String id) {
        return read(id, "image-meta list", Image::metadata);
    }

    @Override
    public void setMetadata(String id, String key, String value) {
        write(id, "image-meta set " + key, image -> image.setMetadata(key, value));
    }

    @Override
    public void removeMetadata(String id, String key) {
        write(id, "image-meta remove " + key, image -> image.removeMetadata(key));
    }

    @Override
    public void enable(String id) {
        write(id, "mirror image enable", Image::enableSnapshotMirroring);
    }

    @Override
    public void disable(String id, boolean force) {
        write(id, force ? "mirror image disable --force" : "mirror image disable", i -> i.disableMirroring(force));
    }

    @Override
    public void promote(String id, boolean force) {
        write(id, force ? "mirror image promote --force" : "mirror image promote", i -> i.promote(force));
    }

    @Override
    public void demote(String id) {
        write(id, "mirror image demote", Image::demote);
    }

    @Override
    public void resync(String id) {
        write(id, "mirror image resync", Image::resync);
    }

    @Override
    public boolean inTrashForMirroring(String id) {
        return call("trash ls " + pool, c -> c.pool(pool).trash()).stream()
                .anyMatch(e -> e.mirroring() && e.name().equals(id));
    }

    @Override
    public List<SnapshotSchedule> schedules(String id) {
        JsonObject command = mgr("rbd mirror snapshot schedule list", id);
        String out = call("mirror snapshot schedule ls " + spec(id), c -> c.mgrCommand(command.toString()));
        return SnapshotSchedule.fromMgrList(parse(out), spec(id));
    }

    @Override
    public void addSchedule(String id, SnapshotSchedule schedule) {
        JsonObject command = mgr("rbd mirror snapshot schedule add", id);
        command.addProperty("interval", schedule.interval());
        if (!schedule.startTime().isEmpty()) {
            command.addProperty("start_time", schedule.startTime());
        }
        call("mirror snapshot schedule add " + spec(id), c -> c.mgrCommand(command.toString()));
    }

    @Override
    public void removeSchedules(String id) {
        JsonObject command = mgr("rbd mirror snapshot schedule remove", id);
        try {
            call("mirror snapshot schedule remove " + spec(id), c -> c.mgrCommand(command.toString()));
        } catch (RbdException e) {
            if (!RbdErrors.noScheduleToRemove(e)) {
                throw e;
            }
        }
    }

    @Override
    public Optional<String> poolMetadata(String key) {
        return call("pool metadata get " + key, c -> c.pool(pool).metadata(key));
    }

    @Override
    public void setPoolMetadata(String key, String value) {
        call("pool metadata set " + key, c -> {
            c.pool(pool).setMetadata(key, value);
            return null;
        });
    }

    @Override
    public void removePoolMetadata(String key) {
        call("pool metadata remove " + key, c -> {
            c.pool(pool).removeMetadata(key);
            return null;
        });
    }

    @Override
    public Optional<PeerCredentials> peer() {
        return call("mirror pool info " + pool, c -> {
            Pool p = c.pool(pool);
            for (Pool.PeerSite site : p.peers()) {
                Map<String, String> attributes = p.peerAttributes(site.uuid());
                String monHost = attributes.get("mon_host");
                String key = attributes.get("key");
                if (monHost != null && key != null && !site.clientName().isEmpty()) {
                    return Optional.of(
                            new PeerCredentials(site.siteName(), site.mirrorUuid(), monHost, site.clientName(), key));
                }
            }
            return Optional.<PeerCredentials>empty();
        });
    }

    @Override
    public void close() {
        cluster.close();
    }

    @Override
    public String toString() {
        return "LibrbdSite[" + name + ", " + cluster + ", pool " + pool + "]";
    }

    private String spec(String id) {
        return pool + "/" + id;
    }

    private JsonObject mgr(String prefix, String id) {
        JsonObject command = new JsonObject();
        command.addProperty("prefix", prefix);
        command.addProperty("level_spec", spec(id));
        return command;
    }

    /** The mgr's output; an unexpected shape is empty (it never goes to a message). */
    private static JsonElement parse(String out) {
        try {
            return JsonParser.parseString(out.isBlank() ? "{}" : out);
        } catch (JsonParseException e) {
            return new JsonObject();
        }
    }

    private <T> T call(String operation, Function<Cluster, T> work) {
        try {
            return work.apply(cluster.connect());
        } catch (CephException e) {
            throw RbdException.of(name, operation, e);
        }
    }

    private <T> T read(String id, String operation, Function<Image, T> work) {
        return call(operation + " " + spec(id), c -> {
            try (Image image = c.pool(pool).open(id, true)) {
                return work.apply(image);
            }
        });
    }

    private void write(String id, String operation, Consumer<Image> work) {
        call(operation + " " + spec(id), c -> {
            try (Image image = c.pool(pool).open(id, false)) {
                work.accept(image);
            }
            return null;
        });
    }
}
