package io.volrep.ceph;

import io.volrep.ceph.internal.rados.Errno;
import java.util.Locale;

/**
 * What Ceph's answers mean to the driver: the one table of the errnos (and the one mgr text) it relies on, each
 * learned on the lab and each pinned by a test ({@code RbdErrorsTest}). librbd returns an errno and nothing else; the
 * mgr adds a status text.
 *
 * <table>
 *   <caption>Ceph's answers the driver tells apart</caption>
 *   <tr><th>call</th><th>answer</th><th>means</th><th>method</th></tr>
 *   <tr><td>opening an image</td><td>ENOENT</td><td>no such image (5 NOT_FOUND; at the peer: no copy)</td>
 *       <td>{@link RbdException#imageMissing}</td></tr>
 *   <tr><td>any</td><td>ETIMEDOUT, ESHUTDOWN, ECONNREFUSED, ENOTCONN</td><td>the cluster cannot be reached (14)</td>
 *       <td>{@link #unreachable}</td></tr>
 *   <tr><td>any</td><td>EACCES, EPERM</td><td>the plugin's Ceph user lacks a cap</td><td>{@link #notPermitted}</td></tr>
 *   <tr><td>promote (unforced)</td><td>EBUSY</td><td>"image is primary within a remote cluster or demotion is not
 *       propagated yet": the peer holds the primary, or its demotion is on its way</td><td>{@link #promoteRefused}</td></tr>
 *   <tr><td>promote (unforced)</td><td>EROFS</td><td>"failed to create mirror snapshot": the demotion arrived, the
 *       local rbd-mirror still holds the image</td><td>{@link #promoteRefused}, {@link #demotionArrivedImageHeld}</td></tr>
 *   <tr><td>promote (forced)</td><td>EROFS</td><td>the local rbd-mirror holds the copy (it replays or resyncs it): 10,
 *       as above</td><td>{@link #demotionArrivedImageHeld}</td></tr>
 *   <tr><td>demote</td><td>EBUSY, EROFS</td><td>the image is busy (its lock moves); retry</td><td>{@link #busy}</td></tr>
 *   <tr><td>enable</td><td>EINVAL</td><td>"cannot enable mirroring": currently disabling, or the pool is not
 *       mirrored in image mode (the driver reads which)</td><td>{@link #enableRefused}</td></tr>
 *   <tr><td>mgr: schedule remove</td><td>ENOENT</td><td>no schedule to remove (the pool never had one)</td>
 *       <td>{@link #noScheduleToRemove}</td></tr>
 *   <tr><td>mirror status</td><td>description {@code status not found}</td><td>rbd-mirror has not reported on the
 *       image yet: a copy whose replayer starts (a promote's window, 10), a peer not reported yet (DEGRADED)</td>
 *       <td>{@link #STATUS_NOT_FOUND}</td></tr>
 *   <tr><td>mirror status</td><td>description containing {@code split-brain}</td><td>the copy diverged: resync</td>
 *       <td>{@link #SPLIT_BRAIN}</td></tr>
 *   <tr><td>mirror status</td><td>a peer's description {@code local image is primary}</td><td>the peer is primary too
 *       (ERROR)</td><td>{@link #LOCAL_IMAGE_IS_PRIMARY}</td></tr>
 *   <tr><td>mgr: schedule add</td><td>EINVAL, text naming the start time</td><td>the start time is malformed (3,
 *       naming {@code parameters.schedulingStartTime})</td><td>{@link #badStartTime}</td></tr>
 * </table>
 *
 * <pre>{@code
 * } catch (RbdException e) {
 *     if (RbdErrors.promoteRefused(e)) { ... } else throw pool.failure(e, id, "promote");
 * }
 * }</pre>
 */
final class RbdErrors {
    /** rbd-mirror's description of an image it has not reported on yet (its replayer has not started). */
    static final String STATUS_NOT_FOUND = "status not found";
    /** rbd-mirror's description of a copy that diverged from the primary ({@code up+error}): only a resync helps. */
    static final String SPLIT_BRAIN = "split-brain";
    /** rbd-mirror's description of an image that is primary on the reporting site ({@code up+stopped}). */
    static final String LOCAL_IMAGE_IS_PRIMARY = "local image is primary";

    private RbdErrors() {}

    /** The cluster could not be reached (rather than refusing the call). */
    static boolean unreachable(int errno) {
        return errno == Errno.ETIMEDOUT
                || errno == Errno.ESHUTDOWN
                || errno == Errno.ECONNREFUSED
                || errno == Errno.ENOTCONN;
    }

    /** The plugin's Ceph user may not do this. */
    static boolean notPermitted(RbdException e) {
        return e.is(Errno.EACCES) || e.is(Errno.EPERM);
    }

    /**
     * An unforced promote refused in a way that can be the window after the peer's demotion: EBUSY "demotion is not
     * propagated yet" (or the peer holds the primary: the peer is asked), EROFS "failed to create mirror snapshot"
     * (the demotion arrived; rbd-mirror still holds the image for a moment).
     */
    static boolean promoteRefused(RbdException e) {
        return e.is(Errno.EBUSY) || e.is(Errno.EROFS);
    }

    /** The EROFS form of {@link #promoteRefused}: the demotion arrived, rbd-mirror still holds the image. */
    static boolean demotionArrivedImageHeld(RbdException e) {
        return e.is(Errno.EROFS);
    }

    /** A demote refused while the image is busy. */
    static boolean busy(RbdException e) {
        return e.is(Errno.EBUSY) || e.is(Errno.EROFS);
    }

    /** An enable refused: the image is being disabled, or the pool is not mirrored in image mode. */
    static boolean enableRefused(RbdException e) {
        return e.is(Errno.EINVAL);
    }

    /** Removing an image's schedules where the pool never had one. */
    static boolean noScheduleToRemove(RbdException e) {
        return e.is(Errno.ENOENT);
    }

    /** The mgr refused a schedule's start time. */
    static boolean badStartTime(RbdException e) {
        return e.is(Errno.EINVAL) && e.text().toLowerCase(Locale.ROOT).contains("start time");
    }
}
