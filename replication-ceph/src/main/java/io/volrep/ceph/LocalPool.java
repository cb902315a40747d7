package io.volrep.ceph;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import io.volrep.api.PreconditionFailedException;
import io.volrep.api.SourceNotFoundException;
import io.volrep.api.UnavailableException;
import io.volrep.api.UnknownErrorException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The mirrored pool on this plugin's own site, image by image: the {@code rbd} commands the RPCs share, each failure
 * mapped to the row of the error scheme it is ({@link #failure}) unless the RPC has a row of its own for it (then it
 * runs the command through {@link #cli()} and decides).
 *
 * <pre>{@code
 * LocalPool pool = new LocalPool(cli, "rbd");
 * RbdImage image = pool.enabledImage(budget, "vol-0");   // 5 when missing, 9 when not mirrored
 * pool.run(budget, "vol-0", "demote", "mirror", "image", "demote", pool.spec("vol-0"));
 * }</pre>
 */
final class LocalPool {
    /** The prefix of the image metadata keys this driver keeps (the schedule, the last sync of a promoted copy). */
    static final String METADATA_PREFIX = "volrep.";

    private static final Pattern RESYNC_REQUESTED = Pattern.compile("\"resync_requested\"\\s*:\\s*true");

    private final RbdCli cli;
    private final String pool;

    LocalPool(RbdCli cli, String pool) {
        this.cli = cli;
        this.pool = pool;
    }

    /** How messages name this site, e.g. {@code site site-a}. */
    String site() {
        return cli.site();
    }

    /** The pool's name. */
    String name() {
        return pool;
    }

    /** The site's rbd, for commands whose failures the RPC maps itself. */
    RbdCli cli() {
        return cli;
    }

    /** {@code POOL/IMAGE}, as rbd names an image. */
    String spec(String id) {
        return pool + "/" + id;
    }

    /** {@code rbd info}: the image and its mirroring role; 5 NOT_FOUND when it does not exist. */
    RbdImage image(CallBudget budget, String id) {
        return RbdImage.parse(id, json(budget, id, "read", "info", spec(id)));
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
            throw new PreconditionFailedException(site() + ": replication is not enabled for " + image.name()
                    + (image.disabling() ? " (mirroring is being disabled)" : ""));
        }
    }

    /** {@code rbd mirror image status}: what the sites' rbd-mirror daemons last reported on the image. */
    MirrorStatus mirrorStatus(CallBudget budget, String id) {
        return MirrorStatus.parse(json(budget, id, "read the mirror status of", "mirror", "image", "status", spec(id)));
    }

    /** {@code rbd image-meta list}: the image's metadata. */
    Map<String, String> metadata(CallBudget budget, String id) {
        JsonElement meta = json(budget, id, "read the metadata of", "image-meta", "list", spec(id));
        Map<String, String> values = new LinkedHashMap<>();
        if (meta.isJsonObject()) {
            meta.getAsJsonObject()
                    .entrySet()
                    .forEach(e -> values.put(
                            e.getKey(),
                            e.getValue().isJsonPrimitive() ? e.getValue().getAsString() : ""));
        }
        return values;
    }

    /**
     * True while the image holds a resync flag ({@code rbd mirror image resync} leaves {@code {"resync_requested":
     * true}} under a {@code .rbd_mirror.} metadata key until rbd-mirror recreates the image).
     */
    boolean resyncFlagged(CallBudget budget, String id) {
        return metadata(budget, id).entrySet().stream()
                .anyMatch(e -> e.getKey().startsWith(".rbd_mirror.")
                        && RESYNC_REQUESTED.matcher(e.getValue()).find());
    }

    /** Removes what this driver kept in the image's metadata (schedule, last sync), so that no later era reads it. */
    void forgetMetadata(CallBudget budget, String id) {
        for (String key : metadata(budget, id).keySet()) {
            if (key.startsWith(METADATA_PREFIX)) {
                run(budget, id, "remove the metadata of", "image-meta", "remove", spec(id), key);
            }
        }
    }

    /** True when rbd-mirror has the image in the trash: it deletes and recreates an image to resync it. */
    boolean inTrashForResync(CallBudget budget, String id) {
        JsonElement trash = json(budget, id, "read the trash for", "trash", "ls", pool, "--all", "--long");
        if (trash.isJsonArray()) {
            for (JsonElement e : trash.getAsJsonArray()) {
                JsonObject o = e.getAsJsonObject();
                if (id.equals(RbdJson.string(o, "name")) && "MIRRORING".equalsIgnoreCase(RbdJson.string(o, "source"))) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The mirror snapshots of image {@code id} here ({@code rbd snap ls --all}); a failure is {@link #failure}'s. */
    MirrorSnapshots snapshots(CallBudget budget, String id) {
        return MirrorSnapshots.parse(json(budget, id, "list the snapshots of", "snap", "ls", "--all", spec(id)));
    }

    /** {@code rbd ARGS --format json} about image {@code id}; a failure is {@link #failure}'s. */
    JsonElement json(CallBudget budget, String id, String what, String... args) {
        try {
            return cli.json(budget, args);
        } catch (RbdException e) {
            throw failure(e, id, what);
        }
    }

    /** {@code rbd ARGS} about image {@code id}; a failure is {@link #failure}'s. */
    String run(CallBudget budget, String id, String what, String... args) {
        try {
            return cli.run(budget, args);
        } catch (RbdException e) {
            throw failure(e, id, what);
        }
    }

    /**
     * An rbd failure the RPC has no special row for: 5 when the image is missing, 14 when Ceph cannot be reached, else
     * 2, naming the condition and what rbd said. (rbd answers ENOENT for other things too: a schedule or a metadata key
     * that does not exist, which are not the source's absence.)
     *
     * @param what what the command was for, as in "cannot {@code what} {@code id}", e.g. {@code "demote"}
     */
    RuntimeException failure(RbdException e, String id, String what) {
        if (e.errno() == RbdException.ENOENT && (e.command().startsWith("info ") || e.says("error opening image"))) {
            return new SourceNotFoundException(site() + ": image " + id + " does not exist in pool " + pool);
        }
        if (e.unreachable()) {
            return new UnavailableException(
                    site() + ": Ceph cannot be reached to " + what + " " + id + " (" + e.detail() + "); retry later");
        }
        if (e.errno() == RbdException.EACCES || e.errno() == RbdException.EPERM) {
            return new UnknownErrorException(site() + ": the plugin's Ceph user may not " + what + " " + id + " ("
                    + e.detail() + "): check its caps");
        }
        if (e.says("mirroring not enabled on the pool") || e.says("mirroring is not enabled")) {
            return new UnknownErrorException(site() + ": pool " + pool + " is not mirrored in image mode, so " + id
                    + " cannot be (rbd mirror pool enable " + pool + " image): " + e.detail());
        }
        return new UnknownErrorException(
                site() + ": cannot " + what + " " + id + ": rbd exited " + e.errno() + ": " + e.detail());
    }
}
