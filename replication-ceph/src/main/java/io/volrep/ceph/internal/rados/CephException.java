package io.volrep.ceph.internal.rados;

import java.util.Map;

/**
 * A librados or librbd call that returned a negative errno. The message names the call and the error, never an
 * argument's value beyond the image or pool name the caller gave (no keys, no configuration).
 *
 * <pre>{@code
 * } catch (CephException e) {
 *     if (e.errno() == Errno.EBUSY) { ... }
 * }
 * }</pre>
 */
public final class CephException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private static final Map<Integer, String> NAMES = Map.ofEntries(
            Map.entry(Errno.EPERM, "Operation not permitted"),
            Map.entry(Errno.ENOENT, "No such file or directory"),
            Map.entry(Errno.EAGAIN, "Resource temporarily unavailable"),
            Map.entry(Errno.EACCES, "Permission denied"),
            Map.entry(Errno.EBUSY, "Device or resource busy"),
            Map.entry(Errno.EEXIST, "File exists"),
            Map.entry(Errno.EINVAL, "Invalid argument"),
            Map.entry(Errno.EROFS, "Read-only file system"),
            Map.entry(Errno.ERANGE, "Numerical result out of range"),
            Map.entry(Errno.EOPNOTSUPP, "Operation not supported"),
            Map.entry(Errno.ENOTCONN, "Transport endpoint is not connected"),
            Map.entry(Errno.ESHUTDOWN, "Cannot send after transport endpoint shutdown"),
            Map.entry(Errno.ETIMEDOUT, "Connection timed out"),
            Map.entry(Errno.ECONNREFUSED, "Connection refused"),
            Map.entry(Errno.ECANCELED, "Operation canceled"));

    private final String operation;
    private final int errno;
    private final String detail;

    /**
     * @param operation the call, e.g. {@code rbd_mirror_image_promote(rbd/vol-0)}
     * @param errno the positive errno
     * @param detail what Ceph said beside the code ("" when nothing)
     */
    public CephException(String operation, int errno, String detail) {
        super(operation + " failed: (" + errno + ") " + name(errno) + (detail.isEmpty() ? "" : ": " + detail));
        this.operation = operation;
        this.errno = errno;
        this.detail = detail;
    }

    /** Throws for a negative return code, returns a non-negative one. */
    static int check(int rc, String operation) {
        if (rc < 0) {
            throw new CephException(operation, -rc, "");
        }
        return rc;
    }

    /** The positive errno. */
    public int errno() {
        return errno;
    }

    /** The call that failed. */
    public String operation() {
        return operation;
    }

    /** What Ceph said beside the code (a mgr command's status text), or "". */
    public String detail() {
        return detail;
    }

    /** The errno's C name text, e.g. {@code Device or resource busy}. */
    public static String name(int errno) {
        return NAMES.getOrDefault(errno, "errno " + errno);
    }
}
