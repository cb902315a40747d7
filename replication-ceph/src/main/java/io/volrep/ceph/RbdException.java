package io.volrep.ceph;

/**
 * An {@code rbd} command that exited non-zero. rbd's exit code is the errno of the failure (16 EBUSY, 22 EINVAL,
 * 30 EROFS, 110 ETIMEDOUT, ...); the driver decides what it means for the RPC at hand, so this never leaves the
 * driver: the class serving the RPC maps it to a row of the error scheme, its own or {@link LocalPool#failure}'s.
 *
 * <pre>{@code
 * } catch (RbdException e) {
 *     if (e.errno() == RbdException.EBUSY) { ... }
 * }
 * }</pre>
 */
final class RbdException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    static final int ENOENT = 2;
    static final int EACCES = 13;
    static final int EPERM = 1;
    static final int EBUSY = 16;
    static final int EINVAL = 22;
    static final int EROFS = 30;
    static final int ESHUTDOWN = 108;
    static final int ETIMEDOUT = 110;
    static final int ECONNREFUSED = 111;

    private final String command;
    private final int errno;
    private final String detail;

    RbdException(String site, String command, int errno, String detail) {
        super(site + ": rbd " + command + " failed (" + errno + "): " + detail);
        this.command = command;
        this.errno = errno;
        this.detail = detail;
    }

    /** rbd's exit code, the errno of the failure. */
    int errno() {
        return errno;
    }

    /** What rbd said (escaped, shortened). */
    String detail() {
        return detail;
    }

    /** The command, e.g. {@code mirror image promote rbd/vol-0}. */
    String command() {
        return command;
    }

    /** True when the cluster could not be reached (rather than refusing the command). */
    boolean unreachable() {
        return errno == ETIMEDOUT
                || errno == ESHUTDOWN
                || errno == ECONNREFUSED
                || detail.contains("couldn't connect to the cluster");
    }

    /** True when rbd said {@code text} (case-sensitive; rbd's messages are stable English). */
    boolean says(String text) {
        return detail.contains(text);
    }
}
