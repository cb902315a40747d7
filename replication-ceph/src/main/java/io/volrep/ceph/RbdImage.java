package io.volrep.ceph;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.util.Optional;

/**
 * What {@code rbd info --format json} says about an image's mirroring: the authoritative role, read from the image
 * itself (a mirror status can be seconds old).
 *
 * <pre>{@code
 * RbdImage image = RbdImage.parse("vol-0", site.json(budget, "info", "rbd/vol-0"));
 * if (image.enabled() && image.primary()) { ... }
 * }</pre>
 *
 * @param name the image name
 * @param id the image id (a resync recreates the image under a new id)
 * @param mirroringState {@code enabled}, {@code disabling}, {@code disabled}; empty when rbd reports no mirroring
 * @param mode {@code snapshot} or {@code journal} while mirroring is enabled, else ""
 * @param globalId the mirroring global id, the same on both sites, else ""
 * @param primary true when the image is primary (only meaningful while enabled)
 */
record RbdImage(
        String name, String id, Optional<String> mirroringState, String mode, String globalId, boolean primary) {

    static RbdImage parse(String name, JsonElement json) {
        JsonObject o = RbdJson.objectOrEmpty(json);
        JsonObject m = RbdJson.objectOrNull(o, "mirroring");
        return new RbdImage(
                name,
                RbdJson.string(o, "id"),
                m == null ? Optional.empty() : Optional.of(RbdJson.string(m, "state")),
                m == null ? "" : RbdJson.string(m, "mode"),
                m == null ? "" : RbdJson.string(m, "global_id"),
                m != null && m.has("primary") && m.get("primary").getAsBoolean());
    }

    /** Mirroring is enabled (a non-primary copy is enabled too). */
    boolean enabled() {
        return mirroringState.filter("enabled"::equals).isPresent();
    }

    /** Mirroring is being disabled (rbd finishes it in the background). */
    boolean disabling() {
        return mirroringState.filter("disabling"::equals).isPresent();
    }
}
