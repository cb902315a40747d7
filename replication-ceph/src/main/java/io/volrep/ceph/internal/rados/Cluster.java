package io.volrep.ceph.internal.rados;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * One connection to one Ceph cluster ({@code rados_t}), made once and reused by every call: created, configured and
 * connected on the first {@link #connect()}, and again after a failed attempt. Ceph's own client timeouts
 * ({@code client_mount_timeout}, {@code rados_mon_op_timeout}, {@code rados_osd_op_timeout}) bound every call made
 * through it, so that no call on a dead site blocks its thread for longer. Thread-safe.
 *
 * <pre>{@code
 * try (Cluster site = Cluster.fromConf("client.admin", Path.of("/etc/ceph/ceph.conf"), Duration.ofSeconds(30))) {
 *     Pool rbd = site.connect().pool("rbd");
 * }
 * }</pre>
 */
public final class Cluster implements AutoCloseable {
    private final String name;
    private final Map<String, String> settings;
    private final Path conf;
    /** Values of {@link #settings} never shown (the key). */
    private final String secretOption;

    private final ConcurrentMap<String, Pool> pools = new ConcurrentHashMap<>();
    private Pointer handle;
    private boolean closed;

    private Cluster(String name, Path conf, Map<String, String> settings, String secretOption) {
        this.name = name;
        this.conf = conf;
        this.settings = settings;
        this.secretOption = secretOption;
    }

    /**
     * A cluster reached through a configuration file (mon addresses, keyring), as user {@code name}
     * ({@code client.admin}).
     */
    public static Cluster fromConf(String name, Path conf, Duration timeout) {
        return new Cluster(name, conf, timeouts(timeout), "");
    }

    /**
     * A cluster reached by its mon addresses and a cephx key, as {@code rbd mirror pool peer bootstrap import} stores
     * them for the peer site. The key is given to librados in memory ({@code rados_conf_set(key)}), never in a file.
     */
    public static Cluster fromMonHost(String name, String monHost, String key, Duration timeout) {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("mon_host", monHost);
        settings.put("key", key);
        // no keyring file is searched for, no config file read: the key above is all there is
        settings.put("keyring", "");
        settings.putAll(timeouts(timeout));
        return new Cluster(name, null, settings, "key");
    }

    private static Map<String, String> timeouts(Duration timeout) {
        String seconds = Long.toString(Math.max(1, timeout.toSeconds()));
        Map<String, String> t = new LinkedHashMap<>();
        t.put("client_mount_timeout", seconds);
        t.put("rados_mon_op_timeout", seconds);
        t.put("rados_osd_op_timeout", seconds);
        // a library's errors go to the plugin's messages, not to its stderr
        t.put("log_to_stderr", "false");
        t.put("err_to_stderr", "false");
        t.put("log_file", "");
        return t;
    }

    /** Connects unless connected; blocks up to {@code client_mount_timeout} while the cluster does not answer. */
    public synchronized Cluster connect() {
        if (closed) {
            throw new CephException("rados_connect(" + name + ")", Errno.ESHUTDOWN, "the connection is closed");
        }
        if (handle != null) {
            return this;
        }
        LibRados rados = Natives.rados();
        PointerByReference created = new PointerByReference();
        CephException.check(rados.rados_create2(created, "ceph", name, 0), "rados_create2(" + name + ")");
        Pointer h = created.getValue();
        try {
            if (conf != null) {
                CephException.check(
                        rados.rados_conf_read_file(h, conf.toString()), "rados_conf_read_file(" + conf + ")");
            }
            for (Map.Entry<String, String> s : settings.entrySet()) {
                String shown = s.getKey().equals(secretOption) ? s.getKey() : s.getKey() + "=" + s.getValue();
                CephException.check(rados.rados_conf_set(h, s.getKey(), s.getValue()), "rados_conf_set(" + shown + ")");
            }
            CephException.check(rados.rados_connect(h), "rados_connect(" + name + ")");
        } catch (RuntimeException e) {
            rados.rados_shutdown(h);
            throw e;
        }
        handle = h;
        return this;
    }

    /** True once connected (and not closed since). */
    public synchronized boolean connected() {
        return handle != null;
    }

    /** The pool's I/O context, created once per pool. */
    public Pool pool(String pool) {
        return pools.computeIfAbsent(pool, p -> {
            PointerByReference io = new PointerByReference();
            CephException.check(Natives.rados().rados_ioctx_create(handle(), p, io), "rados_ioctx_create(" + p + ")");
            return new Pool(this, p, io.getValue());
        });
    }

    /** This cluster's mirroring site name ({@code rbd_mirror_site_name_get}). */
    public String siteName() {
        byte[] buffer = new byte[256];
        LongByReference len = new LongByReference(buffer.length);
        CephException.check(Natives.rbd().rbd_mirror_site_name_get(handle(), buffer, len), "rbd_mirror_site_name_get");
        return cString(buffer);
    }

    /**
     * A command to the cluster's active mgr, as JSON (what the {@code rbd} command sends for the mgr's
     * {@code rbd_support} module: {@code rbd mirror snapshot schedule add|list|remove}); returns its output.
     *
     * @throws CephException with the mgr's status text as its detail when it refuses
     */
    public String mgrCommand(String json) {
        LibRados rados = Natives.rados();
        PointerByReference out = new PointerByReference();
        PointerByReference status = new PointerByReference();
        LongByReference outLen = new LongByReference();
        LongByReference statusLen = new LongByReference();
        int rc = rados.rados_mgr_command(handle(), new String[] {json}, 1, null, 0, out, outLen, status, statusLen);
        try {
            String text = bytes(status.getValue(), statusLen.getValue());
            if (rc < 0) {
                throw new CephException("rados_mgr_command", -rc, text.strip());
            }
            return bytes(out.getValue(), outLen.getValue());
        } finally {
            if (out.getValue() != null) {
                rados.rados_buffer_free(out.getValue());
            }
            if (status.getValue() != null) {
                rados.rados_buffer_free(status.getValue());
            }
        }
    }

    synchronized Pointer handle() {
        if (handle == null) {
            throw new CephException("rados (" + name + ")", Errno.ENOTCONN, "not connected");
        }
        return handle;
    }

    /** Destroys the pools' contexts and shuts the connection down. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        pools.values().forEach(Pool::destroy);
        pools.clear();
        if (handle != null) {
            Natives.rados().rados_shutdown(handle);
            handle = null;
        }
    }

    @Override
    public String toString() {
        return "Cluster[" + name + (conf != null ? ", " + conf : ", mon_host " + settings.get("mon_host")) + "]";
    }

    static String cString(byte[] buffer) {
        int n = 0;
        while (n < buffer.length && buffer[n] != 0) {
            n++;
        }
        return new String(buffer, 0, n, StandardCharsets.UTF_8);
    }

    static String bytes(Pointer p, long len) {
        if (p == null || len <= 0) {
            return "";
        }
        return new String(p.getByteArray(0, (int) len), StandardCharsets.UTF_8);
    }
}
