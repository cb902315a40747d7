package io.volrep.ceph.internal.rados;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One open RBD image ({@code rbd_image_t}), for one call: its id, mirroring, snapshots and metadata, and the mirroring
 * operations. Closed by {@link #close()} on every path; every structure librbd filled is freed before a method returns.
 *
 * <pre>{@code
 * try (Image image = pool.open("vol-0", false)) {
 *     image.promote(false);
 * }
 * }</pre>
 */
public final class Image implements AutoCloseable {
    /** {@code RBD_MIRROR_IMAGE_DISABLING}, {@code ENABLED}, {@code DISABLED}. */
    public static final int MIRROR_DISABLING = 0;

    public static final int MIRROR_ENABLED = 1;
    public static final int MIRROR_DISABLED = 2;

    private final String spec;
    private Pointer handle;

    /**
     * The image's mirroring ({@code rbd_mirror_image_get_info}).
     *
     * @param globalId the mirroring global id ("" when not mirrored)
     * @param state {@link #MIRROR_DISABLING}, {@link #MIRROR_ENABLED} or {@link #MIRROR_DISABLED}
     * @param primary true when the image is primary
     */
    public record MirrorInfo(String globalId, int state, boolean primary) {}

    /**
     * What one site's rbd-mirror last reported about the image.
     *
     * @param mirrorUuid "" for the local site, else the peer's mirror uuid
     * @param state the {@code rbd_mirror_image_status_state_t}
     * @param description e.g. {@code replaying, {...}}
     * @param lastUpdate when it was reported
     * @param up true while the reporting daemon is up
     */
    public record SiteStatus(String mirrorUuid, int state, String description, Instant lastUpdate, boolean up) {}

    /**
     * One snapshot; the mirror fields are set for a mirror snapshot only.
     *
     * @param id the snapshot id
     * @param name its name
     * @param timestamp when it was taken
     * @param mirror true for a mirror snapshot
     * @param mirrorState the {@code rbd_snap_mirror_state_t}
     * @param complete true once received completely
     * @param primaryMirrorUuid for a received snapshot, the primary's mirror uuid ("" for one taken here)
     * @param primarySnapId for a received snapshot, its id on the primary
     */
    public record Snapshot(
            long id,
            String name,
            Instant timestamp,
            boolean mirror,
            int mirrorState,
            boolean complete,
            String primaryMirrorUuid,
            long primarySnapId) {}

    Image(String spec, Pointer handle) {
        this.spec = spec;
        this.handle = handle;
    }

    /** The image's id. */
    public String id() {
        byte[] id = new byte[64];
        CephException.check(Natives.rbd().rbd_get_id(handle(), id, id.length), op("rbd_get_id"));
        return Cluster.cString(id);
    }

    /** Its mirroring info; state {@link #MIRROR_DISABLED} when not mirrored. */
    public MirrorInfo mirrorInfo() {
        LibRbd rbd = Natives.rbd();
        LibRbd.MirrorImageInfo info = new LibRbd.MirrorImageInfo();
        CephException.check(
                rbd.rbd_mirror_image_get_info(handle(), info, info.size()), op("rbd_mirror_image_get_info"));
        info.read();
        try {
            return new MirrorInfo(Pool.string(info.global_id), info.state, info.primary != 0);
        } finally {
            rbd.rbd_mirror_image_get_info_cleanup(info);
        }
    }

    /** Its mirroring mode ({@link LibRbd#RBD_MIRROR_IMAGE_MODE_SNAPSHOT} or journal); only while mirrored. */
    public int mirrorMode() {
        IntByReference mode = new IntByReference();
        CephException.check(Natives.rbd().rbd_mirror_image_get_mode(handle(), mode), op("rbd_mirror_image_get_mode"));
        return mode.getValue();
    }

    /** What each site's rbd-mirror last reported on the image ({@code rbd_mirror_image_get_global_status}). */
    public List<SiteStatus> siteStatuses() {
        LibRbd rbd = Natives.rbd();
        LibRbd.MirrorImageGlobalStatus status = new LibRbd.MirrorImageGlobalStatus();
        CephException.check(
                rbd.rbd_mirror_image_get_global_status(handle(), status, status.size()),
                op("rbd_mirror_image_get_global_status"));
        status.read();
        try {
            List<SiteStatus> sites = new ArrayList<>();
            int size = new LibRbd.MirrorImageSiteStatus().size();
            for (int i = 0; i < status.site_statuses_count; i++) {
                LibRbd.MirrorImageSiteStatus s =
                        new LibRbd.MirrorImageSiteStatus(status.site_statuses.share((long) i * size));
                sites.add(new SiteStatus(
                        Pool.string(s.mirror_uuid),
                        s.state,
                        Pool.string(s.description),
                        Instant.ofEpochSecond(s.last_update),
                        s.up != 0));
            }
            return sites;
        } finally {
            rbd.rbd_mirror_image_global_status_cleanup(status);
        }
    }

    /** Every snapshot of every namespace (what {@code rbd snap ls --all} lists), the mirror ones with their state. */
    public List<Snapshot> snapshots() {
        LibRbd rbd = Natives.rbd();
        int size = new LibRbd.SnapInfo().size();
        int capacity = 16;
        while (true) {
            IntByReference max = new IntByReference(capacity);
            // librbd writes one terminating entry after the snapshots
            try (Memory snaps = new Memory((long) size * (capacity + 1))) {
                snaps.clear();
                int rc = rbd.rbd_snap_list(handle(), snaps, max);
                if (rc == -Errno.ERANGE) {
                    capacity = Math.max(capacity * 2, max.getValue());
                    continue;
                }
                CephException.check(rc, op("rbd_snap_list"));
                try {
                    List<Snapshot> list = new ArrayList<>();
                    for (int i = 0; i < rc; i++) {
                        LibRbd.SnapInfo s = new LibRbd.SnapInfo(snaps.share((long) i * size));
                        list.add(snapshot(s.id, Pool.string(s.name)));
                    }
                    return list;
                } finally {
                    rbd.rbd_snap_list_end(snaps);
                }
            }
        }
    }

    private Snapshot snapshot(long id, String name) {
        LibRbd rbd = Natives.rbd();
        LibRbd.Timespec ts = new LibRbd.Timespec();
        CephException.check(rbd.rbd_snap_get_timestamp(handle(), id, ts), op("rbd_snap_get_timestamp"));
        ts.read();
        Instant taken = Instant.ofEpochSecond(ts.tv_sec, ts.tv_nsec);
        IntByReference type = new IntByReference();
        CephException.check(rbd.rbd_snap_get_namespace_type(handle(), id, type), op("rbd_snap_get_namespace_type"));
        if (type.getValue() != LibRbd.RBD_SNAP_NAMESPACE_TYPE_MIRROR) {
            return new Snapshot(id, name, taken, false, -1, false, "", -1);
        }
        LibRbd.SnapMirrorNamespace ns = new LibRbd.SnapMirrorNamespace();
        CephException.check(
                rbd.rbd_snap_get_mirror_namespace(handle(), id, ns, ns.size()), op("rbd_snap_get_mirror_namespace"));
        ns.read();
        try {
            return new Snapshot(
                    id,
                    name,
                    taken,
                    true,
                    ns.state,
                    ns.complete != 0,
                    Pool.string(ns.primary_mirror_uuid),
                    ns.primary_snap_id);
        } finally {
            rbd.rbd_snap_mirror_namespace_cleanup(ns, ns.size());
        }
    }

    /** Every metadata key and value of the image ({@code rbd_metadata_list}). */
    public Map<String, String> metadata() {
        long keysLen = 4096;
        long valuesLen = 4096;
        while (true) {
            LongByReference kl = new LongByReference(keysLen);
            LongByReference vl = new LongByReference(valuesLen);
            try (Memory keys = new Memory(keysLen);
                    Memory values = new Memory(valuesLen)) {
                keys.clear();
                values.clear();
                int rc = Natives.rbd().rbd_metadata_list(handle(), "", 0, keys, kl, values, vl);
                if (rc == -Errno.ERANGE) {
                    keysLen = Math.max(keysLen * 2, kl.getValue());
                    valuesLen = Math.max(valuesLen * 2, vl.getValue());
                    continue;
                }
                CephException.check(rc, op("rbd_metadata_list"));
                return pairs(keys, kl.getValue(), values, vl.getValue());
            }
        }
    }

    public void setMetadata(String key, String value) {
        CephException.check(Natives.rbd().rbd_metadata_set(handle(), key, value), op("rbd_metadata_set", key));
    }

    /** Removes a metadata key; absent: nothing to do. */
    public void removeMetadata(String key) {
        int rc = Natives.rbd().rbd_metadata_remove(handle(), key);
        if (rc != -Errno.ENOENT) {
            CephException.check(rc, op("rbd_metadata_remove", key));
        }
    }

    public void enableSnapshotMirroring() {
        CephException.check(
                Natives.rbd().rbd_mirror_image_enable2(handle(), LibRbd.RBD_MIRROR_IMAGE_MODE_SNAPSHOT),
                op("rbd_mirror_image_enable2"));
    }

    public void disableMirroring(boolean force) {
        CephException.check(Natives.rbd().rbd_mirror_image_disable(handle(), force), op("rbd_mirror_image_disable"));
    }

    public void promote(boolean force) {
        CephException.check(Natives.rbd().rbd_mirror_image_promote(handle(), force), op("rbd_mirror_image_promote"));
    }

    public void demote() {
        CephException.check(Natives.rbd().rbd_mirror_image_demote(handle()), op("rbd_mirror_image_demote"));
    }

    public void resync() {
        CephException.check(Natives.rbd().rbd_mirror_image_resync(handle()), op("rbd_mirror_image_resync"));
    }

    @Override
    public void close() {
        if (handle != null) {
            Natives.rbd().rbd_close(handle);
            handle = null;
        }
    }

    private Pointer handle() {
        if (handle == null) {
            throw new IllegalStateException(spec + " is closed");
        }
        return handle;
    }

    private String op(String call) {
        return call + "(" + spec + ")";
    }

    private String op(String call, String key) {
        return call + "(" + spec + ", " + key + ")";
    }

    /** NUL-separated keys and values, as librbd lists them, into a map. */
    static Map<String, String> pairs(Pointer keys, long keysLen, Pointer values, long valuesLen) {
        List<String> k = split(keys, keysLen);
        List<String> v = split(values, valuesLen);
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < k.size(); i++) {
            map.put(k.get(i), i < v.size() ? v.get(i) : "");
        }
        return map;
    }

    private static List<String> split(Pointer p, long len) {
        List<String> out = new ArrayList<>();
        if (len <= 0) {
            return out;
        }
        byte[] b = p.getByteArray(0, (int) len);
        int start = 0;
        for (int i = 0; i < b.length; i++) {
            if (b[i] == 0) {
                out.add(new String(b, start, i - start, StandardCharsets.UTF_8));
                start = i + 1;
            }
        }
        return out;
    }
}
