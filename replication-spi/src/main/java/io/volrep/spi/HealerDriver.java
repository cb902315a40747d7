package io.volrep.spi;

import io.volrep.api.HealReport;

/**
 * What a storage vendor's node plugin implements to serve CSI-Addons {@code healer.HealerNode/NodeHealer}: check
 * the condition of a staged or published volume, heal it if it can, and report.
 *
 * <p>The runtime ({@link ReplicationServer.Builder#healer}) validates every request first ({@code volume_id} and
 * {@code volume_path} present, {@code staging_target_path} absolute, paths up to
 * {@link HealRequest#MAX_PATH_BYTES} bytes, maps within CSI's 4 KiB), answers ABORTED to a second concurrent
 * call for the same volume id, and maps exceptions as for replication: throw
 * {@link io.volrep.api.SourceNotFoundException} for an unknown volume, {@link io.volrep.api.UnauthenticatedException}
 * for bad secrets; anything unexpected becomes UNKNOWN. A {@code null} report is a driver bug (UNKNOWN "driver
 * returned an invalid response"). Called concurrently for different volumes: implementations must be
 * thread-safe.
 *
 * <pre>{@code
 * public final class MyHealer implements HealerDriver {
 *     public HealReport heal(HealRequest r) {
 *         if (!node.knows(r.volumeId())) {
 *             throw new SourceNotFoundException("volume " + r.volumeId() + " does not exist");
 *         }
 *         return fsck(r.volumePath()) ? HealReport.healthy("filesystem clean")
 *                                     : HealReport.abnormal("filesystem errors; remount needed");
 *     }
 * }
 * ReplicationServer.builder().healer(new MyHealer()).listen("unix:///csi/csi-addons.sock").build().start();
 * }</pre>
 */
@FunctionalInterface
public interface HealerDriver {

    /** NodeHealer: check (and possibly heal) the volume; never null. Should be idempotent. */
    HealReport heal(HealRequest request);
}
