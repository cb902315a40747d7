package io.volrep.ceph.internal.rados;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One pool of a {@link Cluster} ({@code rados_ioctx_t}, made once): its images, opened per call ({@link #open}), its
 * trash, its mirroring peers and its metadata.
 *
 * <pre>{@code
 * try (Image image = pool.open("vol-0", true)) {
 *     Image.MirrorInfo info = image.mirrorInfo();
 * }
 * }</pre>
 */
public final class Pool {
    private final Cluster cluster;
    private final String name;
    private final Pointer ioctx;

    /**
     * A peer site as {@code rbd mirror pool peer bootstrap import} stored it.
     *
     * @param uuid the peer's uuid in this pool
     * @param siteName its site name
     * @param mirrorUuid its mirror uuid (how mirror statuses name it)
     * @param clientName the user to reach it as, e.g. {@code client.rbd-mirror-peer}
     */
    public record PeerSite(String uuid, String siteName, String mirrorUuid, String clientName) {}

    /**
     * An image in the trash.
     *
     * @param id its id
     * @param name its name
     * @param mirroring true when rbd-mirror moved it there (a resync recreates an image so)
     */
    public record TrashEntry(String id, String name, boolean mirroring) {}

    Pool(Cluster cluster, String name, Pointer ioctx) {
        this.cluster = cluster;
        this.name = name;
        this.ioctx = ioctx;
    }

    /** The pool's name. */
    public String name() {
        return name;
    }

    /** The cluster this pool belongs to. */
    public Cluster cluster() {
        return cluster;
    }

    /** Opens an image (read-only for reads: no watch is registered); close it, on every path. */
    public Image open(String image, boolean readOnly) {
        PointerByReference handle = new PointerByReference();
        LibRbd rbd = Natives.rbd();
        int rc = readOnly
                ? rbd.rbd_open_read_only(ioctx, image, handle, null)
                : rbd.rbd_open(ioctx, image, handle, null);
        CephException.check(rc, (readOnly ? "rbd_open_read_only(" : "rbd_open(") + name + "/" + image + ")");
        return new Image(name + "/" + image, handle.getValue());
    }

    /** The pool's mirroring mode ({@code rbd_mirror_mode_get}: a read of the pool's mirroring object). */
    public int mirrorMode() {
        IntByReference mode = new IntByReference();
        CephException.check(Natives.rbd().rbd_mirror_mode_get(ioctx, mode), "rbd_mirror_mode_get(" + name + ")");
        return mode.getValue();
    }

    /** The images in the pool's trash. */
    public List<TrashEntry> trash() {
        LibRbd rbd = Natives.rbd();
        int size = new LibRbd.TrashImageInfo().size();
        long capacity = 16;
        while (true) {
            LongByReference n = new LongByReference(capacity);
            try (Memory entries = new Memory(size * capacity)) {
                entries.clear();
                int rc = rbd.rbd_trash_list(ioctx, entries, n);
                if (rc == -Errno.ERANGE) {
                    capacity = Math.max(capacity * 2, n.getValue());
                    continue;
                }
                CephException.check(rc, "rbd_trash_list(" + name + ")");
                long count = n.getValue();
                try {
                    List<TrashEntry> list = new ArrayList<>();
                    for (long i = 0; i < count; i++) {
                        LibRbd.TrashImageInfo e = new LibRbd.TrashImageInfo(entries.share(i * size));
                        list.add(new TrashEntry(
                                string(e.id), string(e.name), e.source == LibRbd.RBD_TRASH_IMAGE_SOURCE_MIRRORING));
                    }
                    return list;
                } finally {
                    rbd.rbd_trash_list_cleanup(entries, count);
                }
            }
        }
    }

    /** The pool's mirroring peers. */
    public List<PeerSite> peers() {
        LibRbd rbd = Natives.rbd();
        int size = new LibRbd.MirrorPeerSite().size();
        int capacity = 4;
        while (true) {
            IntByReference n = new IntByReference(capacity);
            try (Memory peers = new Memory((long) size * capacity)) {
                peers.clear();
                int rc = rbd.rbd_mirror_peer_site_list(ioctx, peers, n);
                if (rc == -Errno.ERANGE) {
                    capacity = Math.max(capacity * 2, n.getValue());
                    continue;
                }
                CephException.check(rc, "rbd_mirror_peer_site_list(" + name + ")");
                int count = n.getValue();
                try {
                    List<PeerSite> list = new ArrayList<>();
                    for (int i = 0; i < count; i++) {
                        LibRbd.MirrorPeerSite p = new LibRbd.MirrorPeerSite(peers.share((long) i * size));
                        list.add(new PeerSite(
                                string(p.uuid), string(p.site_name), string(p.mirror_uuid), string(p.client_name)));
                    }
                    return list;
                } finally {
                    rbd.rbd_mirror_peer_site_list_cleanup(peers, count);
                }
            }
        }
    }

    /**
     * A peer's stored attributes ({@code mon_host}, {@code key}). The map holds the key: never log it, never put it
     * in a message.
     */
    public Map<String, String> peerAttributes(String uuid) {
        LibRbd rbd = Natives.rbd();
        long keysLen = 1024;
        long valuesLen = 1024;
        while (true) {
            LongByReference kl = new LongByReference(keysLen);
            LongByReference vl = new LongByReference(valuesLen);
            LongByReference count = new LongByReference();
            try (Memory keys = new Memory(keysLen);
                    Memory values = new Memory(valuesLen)) {
                keys.clear();
                values.clear();
                int rc = rbd.rbd_mirror_peer_site_get_attributes(ioctx, uuid, keys, kl, values, vl, count);
                if (rc == -Errno.ERANGE) {
                    keysLen = Math.max(keysLen * 2, kl.getValue());
                    valuesLen = Math.max(valuesLen * 2, vl.getValue());
                    continue;
                }
                CephException.check(rc, "rbd_mirror_peer_site_get_attributes(" + name + ")");
                return Image.pairs(keys, kl.getValue(), values, vl.getValue());
            }
        }
    }

    /** A pool metadata value ({@code rbd_pool_metadata_get}), empty when the key is not set. */
    public Optional<String> metadata(String key) {
        long len = 256;
        while (true) {
            LongByReference l = new LongByReference(len);
            try (Memory value = new Memory(len)) {
                value.clear();
                int rc = Natives.rbd().rbd_pool_metadata_get(ioctx, key, value, l);
                if (rc == -Errno.ERANGE) {
                    len = Math.max(len * 2, l.getValue());
                    continue;
                }
                if (rc == -Errno.ENOENT) {
                    return Optional.empty();
                }
                CephException.check(rc, "rbd_pool_metadata_get(" + name + ", " + key + ")");
                return Optional.of(value.getString(0, "UTF-8"));
            }
        }
    }

    /** Sets a pool metadata value. */
    public void setMetadata(String key, String value) {
        CephException.check(
                Natives.rbd().rbd_pool_metadata_set(ioctx, key, value),
                "rbd_pool_metadata_set(" + name + ", " + key + ")");
    }

    /** Removes a pool metadata value (absent: nothing to do). */
    public void removeMetadata(String key) {
        int rc = Natives.rbd().rbd_pool_metadata_remove(ioctx, key);
        if (rc != -Errno.ENOENT) {
            CephException.check(rc, "rbd_pool_metadata_remove(" + name + ", " + key + ")");
        }
    }

    void destroy() {
        Natives.rados().rados_ioctx_destroy(ioctx);
    }

    static String string(Pointer p) {
        return p == null ? "" : p.getString(0, "UTF-8");
    }
}
