package io.volrep.ceph;

import java.util.Optional;

/**
 * What librbd says about an image's mirroring ({@code rbd_mirror_image_get_info}): the authoritative role, read from the image
 * itself (a mirror status can be seconds old).
 *
 * <pre>{@code
 * RbdImage image = site.image("vol-0");
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

    /** Mirroring is enabled (a non-primary copy is enabled too). */
    boolean enabled() {
        return mirroringState.filter("enabled"::equals).isPresent();
    }

    /** Mirroring is being disabled (rbd finishes it in the background). */
    boolean disabling() {
        return mirroringState.filter("disabling"::equals).isPresent();
    }
}
