package io.volrep.ceph;

import io.volrep.ceph.internal.rados.CephException;
import io.volrep.ceph.internal.rados.Errno;

/**
 * A Ceph call that failed with an errno (16 EBUSY, 22 EINVAL, 30 EROFS, 110 ETIMEDOUT, ...); the driver decides what it
 * means for the RPC at hand ({@link RbdErrors} is the one table of what each errno means where), so this never leaves
 * the driver: the class serving the RPC maps it to a row of the error scheme, its own or {@link LocalPool#failure}'s.
 *
 * <pre>{@code
 * } catch (RbdException e) {
 *     if (RbdErrors.promoteRefused(e)) { ... }
 * }
 * }</pre>
 */
final class RbdException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String operation;
    private final int errno;
    private final String detail;
    private final boolean opening;

    /**
     * @param site how messages name the site
     * @param operation the call, e.g. {@code mirror image promote rbd/vol-0}
     * @param errno the positive errno
     * @param detail what Ceph said beside the errno ("" for librbd's calls, which say nothing else)
     */
    RbdException(String site, String operation, int errno, String detail) {
        this(site, operation, errno, detail, false);
    }

    /**
     * @param opening true when the failing call opened the image (its ENOENT says the image does not exist; other
     *                calls answer ENOENT for a schedule or a key that does not exist)
     */
    RbdException(String site, String operation, int errno, String detail, boolean opening) {
        super(site + ": " + operation + " failed: (" + errno + ") " + CephException.name(errno)
                + (detail.isEmpty() ? "" : ": " + detail));
        this.operation = operation;
        this.errno = errno;
        this.detail = detail;
        this.opening = opening;
    }

    static RbdException of(String site, String operation, CephException e) {
        return new RbdException(
                site, operation, e.errno(), e.detail(), e.operation().startsWith("rbd_open"));
    }

    int errno() {
        return errno;
    }

    /** The operation, e.g. {@code mirror image promote rbd/vol-0}. */
    String operation() {
        return operation;
    }

    /** The errno and what Ceph said, for a message: {@code (16) Device or resource busy}. */
    String detail() {
        return "(" + errno + ") " + CephException.name(errno) + (detail.isEmpty() ? "" : ": " + detail);
    }

    /** What Ceph said beside the errno (a mgr command's status text), or "". */
    String text() {
        return detail;
    }

    /** True when the image this call opened does not exist. */
    boolean imageMissing() {
        return opening && errno == Errno.ENOENT;
    }

    boolean is(int code) {
        return errno == code;
    }

    /** True when the cluster could not be reached (rather than refusing the call). */
    boolean unreachable() {
        return RbdErrors.unreachable(errno);
    }
}
