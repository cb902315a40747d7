package io.volrep.ceph.internal.rados;

/**
 * The Linux errno values Ceph's C APIs return (negated) that the plugin tells apart.
 *
 * <pre>{@code
 * if (e.errno() == Errno.ENOENT) { ... }
 * }</pre>
 */
public final class Errno {
    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int EAGAIN = 11;
    public static final int EACCES = 13;
    public static final int EBUSY = 16;
    public static final int EEXIST = 17;
    public static final int EINVAL = 22;
    public static final int EROFS = 30;
    public static final int ERANGE = 34;
    public static final int EOPNOTSUPP = 95;
    public static final int ENOTCONN = 107;
    public static final int ESHUTDOWN = 108;
    public static final int ETIMEDOUT = 110;
    public static final int ECONNREFUSED = 111;
    public static final int ECANCELED = 125;

    private Errno() {}
}
