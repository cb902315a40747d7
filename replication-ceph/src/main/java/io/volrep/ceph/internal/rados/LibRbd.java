package io.volrep.ceph.internal.rados;

import com.sun.jna.Library;
import com.sun.jna.Pointer;
import com.sun.jna.Structure;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;

/**
 * The librbd C functions and structures the plugin uses ({@code /usr/include/rbd/librbd.h}, Ceph 16.2 Pacific), mapped
 * by JNA. C {@code bool} fields are Java {@code byte}s, {@code size_t} and {@code time_t} are {@code long}s (64-bit
 * Linux only). Every structure librbd fills with allocated strings is freed with its {@code _cleanup} function by the
 * caller ({@link Image}, {@link Pool}).
 *
 * <pre>{@code
 * LibRbd.MirrorImageInfo info = new LibRbd.MirrorImageInfo();
 * Natives.rbd().rbd_mirror_image_get_info(image, info, info.size());
 * }</pre>
 */
public interface LibRbd extends Library {
    int RBD_MIRROR_IMAGE_MODE_SNAPSHOT = 1;
    int RBD_SNAP_NAMESPACE_TYPE_MIRROR = 3;
    int RBD_TRASH_IMAGE_SOURCE_MIRRORING = 1;

    /** {@code rbd_mirror_image_info_t}. */
    @Structure.FieldOrder({"global_id", "state", "primary"})
    class MirrorImageInfo extends Structure {
        public Pointer global_id;
        public int state;
        public byte primary;
    }

    /** {@code rbd_mirror_image_site_status_t}. */
    @Structure.FieldOrder({"mirror_uuid", "state", "description", "last_update", "up"})
    class MirrorImageSiteStatus extends Structure {
        public Pointer mirror_uuid;
        public int state;
        public Pointer description;
        public long last_update;
        public byte up;

        public MirrorImageSiteStatus() {}

        public MirrorImageSiteStatus(Pointer p) {
            super(p);
            read();
        }
    }

    /** {@code rbd_mirror_image_global_status_t}. */
    @Structure.FieldOrder({"name", "info", "site_statuses_count", "site_statuses"})
    class MirrorImageGlobalStatus extends Structure {
        public Pointer name;
        public MirrorImageInfo info;
        public int site_statuses_count;
        public Pointer site_statuses;
    }

    /** {@code rbd_snap_info_t}. */
    @Structure.FieldOrder({"id", "size", "name"})
    class SnapInfo extends Structure {
        public long id;
        public long size;
        public Pointer name;

        public SnapInfo() {}

        public SnapInfo(Pointer p) {
            super(p);
            read();
        }
    }

    /** {@code rbd_snap_mirror_namespace_t}. */
    @Structure.FieldOrder({
        "state",
        "mirror_peer_uuids_count",
        "mirror_peer_uuids",
        "complete",
        "primary_mirror_uuid",
        "primary_snap_id",
        "last_copied_object_number"
    })
    class SnapMirrorNamespace extends Structure {
        public int state;
        public long mirror_peer_uuids_count;
        public Pointer mirror_peer_uuids;
        public byte complete;
        public Pointer primary_mirror_uuid;
        public long primary_snap_id;
        public long last_copied_object_number;
    }

    /** {@code struct timespec}. */
    @Structure.FieldOrder({"tv_sec", "tv_nsec"})
    class Timespec extends Structure {
        public long tv_sec;
        public long tv_nsec;
    }

    /** {@code rbd_trash_image_info_t}. */
    @Structure.FieldOrder({"id", "name", "source", "deletion_time", "deferment_end_time"})
    class TrashImageInfo extends Structure {
        public Pointer id;
        public Pointer name;
        public int source;
        public long deletion_time;
        public long deferment_end_time;

        public TrashImageInfo() {}

        public TrashImageInfo(Pointer p) {
            super(p);
            read();
        }
    }

    /** {@code rbd_mirror_peer_site_t}. */
    @Structure.FieldOrder({"uuid", "direction", "site_name", "mirror_uuid", "client_name", "last_seen"})
    class MirrorPeerSite extends Structure {
        public Pointer uuid;
        public int direction;
        public Pointer site_name;
        public Pointer mirror_uuid;
        public Pointer client_name;
        public long last_seen;

        public MirrorPeerSite() {}

        public MirrorPeerSite(Pointer p) {
            super(p);
            read();
        }
    }

    int rbd_open(Pointer ioctx, String name, PointerByReference image, String snapName);

    int rbd_open_read_only(Pointer ioctx, String name, PointerByReference image, String snapName);

    int rbd_close(Pointer image);

    int rbd_get_id(Pointer image, byte[] id, long idLen);

    int rbd_mirror_image_get_info(Pointer image, MirrorImageInfo info, long infoSize);

    void rbd_mirror_image_get_info_cleanup(MirrorImageInfo info);

    int rbd_mirror_image_get_mode(Pointer image, IntByReference mode);

    int rbd_mirror_image_get_global_status(Pointer image, MirrorImageGlobalStatus status, long statusSize);

    void rbd_mirror_image_global_status_cleanup(MirrorImageGlobalStatus status);

    int rbd_mirror_image_enable2(Pointer image, int mode);

    int rbd_mirror_image_disable(Pointer image, boolean force);

    int rbd_mirror_image_promote(Pointer image, boolean force);

    int rbd_mirror_image_demote(Pointer image);

    int rbd_mirror_image_resync(Pointer image);

    int rbd_snap_list(Pointer image, Pointer snaps, IntByReference maxSnaps);

    void rbd_snap_list_end(Pointer snaps);

    int rbd_snap_get_namespace_type(Pointer image, long snapId, IntByReference namespaceType);

    int rbd_snap_get_mirror_namespace(Pointer image, long snapId, SnapMirrorNamespace ns, long size);

    int rbd_snap_mirror_namespace_cleanup(SnapMirrorNamespace ns, long size);

    int rbd_snap_get_timestamp(Pointer image, long snapId, Timespec timestamp);

    int rbd_metadata_list(
            Pointer image,
            String start,
            long max,
            Pointer keys,
            LongByReference keyLen,
            Pointer values,
            LongByReference valsLen);

    int rbd_metadata_set(Pointer image, String key, String value);

    int rbd_metadata_remove(Pointer image, String key);

    int rbd_trash_list(Pointer ioctx, Pointer entries, LongByReference numEntries);

    void rbd_trash_list_cleanup(Pointer entries, long numEntries);

    int rbd_mirror_mode_get(Pointer ioctx, IntByReference mode);

    int rbd_mirror_site_name_get(Pointer cluster, byte[] name, LongByReference maxLen);

    int rbd_mirror_peer_site_list(Pointer ioctx, Pointer peers, IntByReference maxPeers);

    void rbd_mirror_peer_site_list_cleanup(Pointer peers, int maxPeers);

    int rbd_mirror_peer_site_get_attributes(
            Pointer ioctx,
            String uuid,
            Pointer keys,
            LongByReference maxKeyLen,
            Pointer values,
            LongByReference maxValueLen,
            LongByReference keyValueCount);

    int rbd_pool_metadata_get(Pointer ioctx, String key, Pointer value, LongByReference valLen);

    int rbd_pool_metadata_set(Pointer ioctx, String key, String value);

    int rbd_pool_metadata_remove(Pointer ioctx, String key);
}
