package io.volrep.ceph;

import com.google.gson.JsonElement;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import io.volrep.api.PreconditionFailedException;
import io.volrep.api.SourceNotFoundException;
import io.volrep.api.UnavailableException;
import io.volrep.api.UnknownErrorException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The mirrored pool on this plugin's own site, image by image: the Ceph calls the RPCs share, each within the RPC's
 * budget ({@link SiteCalls}), each read once per RPC ({@link CallBudget#read}), each failure mapped to the row of the
 * error scheme it is ({@link #failure}) unless the RPC has a row of its own for it (then it calls {@link #mutateRaw}
 * and decides).
 *
 * <pre>{@code
 * RbdImage image = pool.enabledImage(budget, "vol-0");   // 5 when missing, 9 when not mirrored
 * pool.mutate(budget, "vol-0", "demote", site -> site.demote("vol-0"));
 * }</pre>
 */
final class LocalPool {
    /** The prefix of the image metadata keys this driver keeps (the schedule, the last sync of a promoted copy). */
    static final String METADATA_PREFIX = "volrep.";
    /** The prefix of the keys rbd-mirror keeps in an image's metadata (a resync request among them). */
    static final String RBD_MIRROR_METADATA_PREFIX = ".rbd_mirror.";

    private final SiteCalls calls;
    private final String pool;

    LocalPool(SiteCalls calls) {
        this.calls = calls;
        this.pool = calls.site().pool();
    }

    /** How messages name this site, e.g. {@code site site-a}. */
    String site() {
        return calls.name();
    }

    /** The pool's name. */
    String name() {
        return pool;
    }

    SiteCalls calls() {
        return calls;
    }

    /** {@code POOL/IMAGE}, as rbd names an image. */
    String spec(String id) {
        return pool + "/" + id;
    }

    /** The image and its mirroring role; 5 NOT_FOUND when it does not exist. */
    RbdImage image(CallBudget budget, String id) {
        return imageIfExists(budget, id)
                .orElseThrow(() ->
                        new SourceNotFoundException(site() + ": image " + id + " does not exist in pool " + pool));
    }

    /** The image and its mirroring role, empty when it does not exist. */
    Optional<RbdImage> imageIfExists(CallBudget budget, String id) {
        try {
            return Optional.of(read(budget, "info", id, s -> s.image(id)));
        } catch (RbdException e) {
            if (e.imageMissing()) {
                return Optional.empty();
            }
            throw failure(e, id, "read");
        }
    }

    /** {@link #image}, and 9 FAILED_PRECONDITION when its mirroring is not enabled. */
    RbdImage enabledImage(CallBudget budget, String id) {
        RbdImage image = image(budget, id);
        requireEnabled(image);
        return image;
    }

    /** 9 FAILED_PRECONDITION when the image's mirroring is not enabled. */
    void requireEnabled(RbdImage image) {
        if (!image.enabled()) {
            throw new PreconditionFailedException(site() + ": replication is not enabled for " + image.name());
        }
    }

    /** What the sites' rbd-mirror daemons last reported on the image. */
    MirrorStatus mirrorStatus(CallBudget budget, String id) {
        return mapped(budget, "mirror status", id, "read the mirror status of", s -> s.mirrorStatus(id));
    }

    /** The image's metadata. */
    Map<String, String> metadata(CallBudget budget, String id) {
        return mapped(budget, "metadata", id, "read the metadata of", s -> s.metadata(id));
    }

    /** The mirror snapshots of image {@code id} here. */
    MirrorSnapshots snapshots(CallBudget budget, String id) {
        return mapped(budget, "snapshots", id, "list the snapshots of", s -> s.snapshots(id));
    }

    /**
     * True while the image holds rbd-mirror's resync flag (a resync request leaves {@code {"resync_requested": true}}
     * under a {@code .rbd_mirror.} metadata key until rbd-mirror recreates the image). The value is read as JSON; one
     * of another shape is no flag.
     */
    boolean resyncFlagged(CallBudget budget, String id) {
        return metadata(budget, id).entrySet().stream()
                .anyMatch(e -> e.getKey().startsWith(RBD_MIRROR_METADATA_PREFIX) && resyncRequested(e.getValue()));
    }

    static boolean resyncRequested(String value) {
        try {
            JsonElement e = JsonParser.parseString(value);
            if (!e.isJsonObject()) {
                return false;
            }
            JsonElement flag = e.getAsJsonObject().get("resync_requested");
            return flag != null
                    && flag.isJsonPrimitive()
                    && flag.getAsJsonPrimitive().isBoolean()
                    && flag.getAsBoolean();
        } catch (JsonParseException | IllegalStateException e) {
            return false;
        }
    }

    /** Removes what this driver kept in the image's metadata (schedule, last sync), so that no later era reads it. */
    void forgetMetadata(CallBudget budget, String id) {
        for (String key : metadata(budget, id).keySet()) {
            if (key.startsWith(METADATA_PREFIX)) {
                run(budget, id, "the metadata removal", s -> s.removeMetadata(id, key));
            }
        }
    }

    /** True when rbd-mirror has the image in the trash: it deletes and recreates an image to resync it. */
    boolean inTrashForResync(CallBudget budget, String id) {
        return mapped(budget, "trash", id, "read the trash for", s -> s.inTrashForMirroring(id));
    }

    /** The image-level mirror-snapshot schedules. */
    List<SnapshotSchedule> schedules(CallBudget budget, String id) {
        return mapped(budget, "schedules", id, "read the snapshot schedule of", s -> s.schedules(id));
    }

    /** A value this driver keeps in the pool's metadata (durable across plugin restarts). */
    Optional<String> poolMetadata(CallBudget budget, String key) {
        try {
            return calls.read(budget, "pool metadata " + key, s -> s.poolMetadata(key));
        } catch (RbdException e) {
            throw failure(e, key, "read the pool metadata");
        }
    }

    void setPoolMetadata(CallBudget budget, String key, String value) {
        run(budget, key, "the pool metadata record", s -> s.setPoolMetadata(key, value));
    }

    void removePoolMetadata(CallBudget budget, String key) {
        run(budget, key, "the pool metadata removal", s -> s.removePoolMetadata(key));
    }

    /**
     * A mutation of image {@code id}, run to its end ({@link SiteCalls#mutate}); a failure is {@link #failure}'s.
     *
     * @param what the mutation, as a noun ({@code "the disable"}): "cannot complete {@code what} of {@code id}"
     */
    void run(CallBudget budget, String id, String what, Consumer<RbdSite> call) {
        try {
            calls.mutate(budget, id, what, call);
        } catch (RbdException e) {
            throw failed(e, id, "complete " + what + " of " + id);
        }
    }

    /**
     * A mutation whose refusals the RPC maps itself: {@link RbdException} reaches the caller.
     *
     * @param what the mutation, as a noun ({@code "the demote"}): "{@code what} of {@code id} did not complete"
     */
    void mutateRaw(CallBudget budget, String id, String what, Consumer<RbdSite> call) {
        calls.mutate(budget, id, what, call);
    }

    private <T> T read(CallBudget budget, String kind, String id, Function<RbdSite, T> call) {
        return budget.read(site() + " " + kind + " " + id, () -> calls.read(budget, kind + " of " + id, call));
    }

    private <T> T mapped(CallBudget budget, String kind, String id, String what, Function<RbdSite, T> call) {
        try {
            return read(budget, kind, id, call);
        } catch (RbdException e) {
            throw failure(e, id, what);
        }
    }

    /**
     * A Ceph failure the RPC has no special row for: 5 when the image is missing, 14 when Ceph cannot be reached, else
     * 2, naming the condition and what Ceph said ({@link RbdErrors}).
     *
     * @param what what the call was for, as in "cannot {@code what} {@code id}", e.g. {@code "demote"}
     */
    RuntimeException failure(RbdException e, String id, String what) {
        return failed(e, id, what + " " + id);
    }

    /** {@link #failure}, with {@code act} the whole verb phrase, as in "cannot {@code act}" ("demote vol-0"). */
    private RuntimeException failed(RbdException e, String id, String act) {
        if (e.imageMissing()) {
            return new SourceNotFoundException(site() + ": image " + id + " does not exist in pool " + pool);
        }
        if (e.unreachable()) {
            return new UnavailableException(
                    site() + ": Ceph cannot be reached to " + act + " (" + e.detail() + "); retry later");
        }
        if (RbdErrors.notPermitted(e)) {
            return new UnknownErrorException(
                    site() + ": the plugin's Ceph user may not " + act + " (" + e.detail() + "): check its caps");
        }
        return new UnknownErrorException(site() + ": cannot " + act + ": " + e.operation() + " failed " + e.detail());
    }
}
