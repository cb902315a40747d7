package io.volrep.ceph.internal.rados;

import com.sun.jna.Library;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;

/**
 * The librados C functions the plugin calls ({@code /usr/include/rados/librados.h}, Ceph 16.2 Pacific), mapped by JNA.
 * {@code size_t} is a Java {@code long}: librados exists for 64-bit Linux only. Loaded by {@link Natives}.
 *
 * <pre>{@code
 * PointerByReference cluster = new PointerByReference();
 * Natives.rados().rados_create2(cluster, "ceph", "client.admin", 0);
 * }</pre>
 */
public interface LibRados extends Library {
    int rados_create2(PointerByReference cluster, String clusterName, String name, long flags);

    int rados_conf_read_file(Pointer cluster, String path);

    int rados_conf_set(Pointer cluster, String option, String value);

    int rados_connect(Pointer cluster);

    void rados_shutdown(Pointer cluster);

    int rados_ioctx_create(Pointer cluster, String poolName, PointerByReference ioctx);

    void rados_ioctx_destroy(Pointer ioctx);

    int rados_mgr_command(
            Pointer cluster,
            String[] cmd,
            long cmdlen,
            Pointer inbuf,
            long inbuflen,
            PointerByReference outbuf,
            LongByReference outbuflen,
            PointerByReference outs,
            LongByReference outslen);

    void rados_buffer_free(Pointer buffer);
}
