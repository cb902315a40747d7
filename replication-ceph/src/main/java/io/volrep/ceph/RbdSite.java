package io.volrep.ceph;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the driver asks of one site's mirrored pool: one method per question or operation, each one or a few librbd
 * calls ({@link LibrbdSite}), or a scripted answer in the unit tests. Methods block; the driver runs them within each
 * RPC's budget ({@link SiteCalls}). A failure is an {@link RbdException} carrying the errno.
 *
 * <pre>{@code
 * RbdImage image = site.image("vol-0");
 * if (!image.primary()) site.promote("vol-0", false);
 * }</pre>
 */
interface RbdSite extends AutoCloseable {
    /** How messages name this site, e.g. {@code site site-a}. */
    String name();

    /** The pool's name. */
    String pool();

    /** Connects to the cluster unless connected (blocks while it does not answer, up to Ceph's mount timeout). */
    void connect();

    /** A real read of the pool (readiness): the pool's mirroring mode. */
    void ping();

    /** The image and its mirroring; ENOENT when it does not exist. */
    RbdImage image(String id);

    /** What the sites' rbd-mirror daemons last reported on the image. */
    MirrorStatus mirrorStatus(String id);

    /** The image's mirror snapshots. */
    MirrorSnapshots snapshots(String id);

    /** The image's metadata. */
    Map<String, String> metadata(String id);

    void setMetadata(String id, String key, String value);

    /** Removes a metadata key (absent: nothing to do). */
    void removeMetadata(String id, String key);

    /** Enables snapshot mirroring. */
    void enable(String id);

    void disable(String id, boolean force);

    void promote(String id, boolean force);

    void demote(String id);

    /** Flags the image for a full resync by rbd-mirror. */
    void resync(String id);

    /** True when rbd-mirror has an image of that name in the trash (it deletes and recreates an image to resync it). */
    boolean inTrashForMirroring(String id);

    /** The image-level mirror-snapshot schedules (the mgr's {@code rbd_support} module). */
    List<SnapshotSchedule> schedules(String id);

    void addSchedule(String id, SnapshotSchedule schedule);

    /** Removes the image-level schedules (none: nothing to do). */
    void removeSchedules(String id);

    /** A value the driver keeps in the pool's metadata (across restarts), or empty. */
    Optional<String> poolMetadata(String key);

    void setPoolMetadata(String key, String value);

    void removePoolMetadata(String key);

    /** The pool's first peer with stored credentials, or empty. */
    Optional<PeerCredentials> peer();

    /** Releases the connection. */
    @Override
    void close();
}
