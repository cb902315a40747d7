package io.volrep.ceph.internal.rados;

import com.sun.jna.Library;
import com.sun.jna.Native;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * librados and librbd, loaded on first use (not when the class is loaded): the module builds and its unit tests run
 * where Ceph is not installed; {@code serve-ceph} fails there with {@link #MISSING}'s message, naming the packages.
 *
 * <pre>{@code
 * LibRbd rbd = Natives.rbd();          // IllegalStateException naming librbd1 when it is not installed
 * }</pre>
 */
public final class Natives {
    /** What a missing library is told as (the Debian package names, as in the lab's check). */
    public static final String MISSING = "the Ceph client libraries librados and librbd are not installed (Debian:"
            + " apt-get install -y --no-install-recommends librados2 librbd1, which ceph-common brings)";

    private static final Map<String, Object> OPTIONS =
            Map.of(Library.OPTION_STRING_ENCODING, StandardCharsets.UTF_8.name());

    private Natives() {}

    private static final class Rados {
        static final LibRados LIB = load(List.of("rados", "librados.so.2"), LibRados.class);
    }

    private static final class Rbd {
        static final LibRbd LIB = load(List.of("rbd", "librbd.so.1"), LibRbd.class);
    }

    /** librados; {@link IllegalStateException} with {@link #MISSING} when it cannot be loaded. */
    public static LibRados rados() {
        try {
            return Rados.LIB;
        } catch (LinkageError e) {
            throw new IllegalStateException(MISSING + ": " + e.getMessage(), e);
        }
    }

    /** librbd; {@link IllegalStateException} with {@link #MISSING} when it cannot be loaded. */
    public static LibRbd rbd() {
        try {
            return Rbd.LIB;
        } catch (LinkageError e) {
            throw new IllegalStateException(MISSING + ": " + e.getMessage(), e);
        }
    }

    /** Null when both libraries load, else why not (for a clear start-up failure). */
    public static String unavailable() {
        try {
            rados();
            rbd();
            return null;
        } catch (IllegalStateException e) {
            return e.getMessage();
        }
    }

    private static <T extends Library> T load(List<String> names, Class<T> type) {
        UnsatisfiedLinkError first = null;
        for (String name : names) {
            try {
                return Native.load(name, type, OPTIONS);
            } catch (UnsatisfiedLinkError e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        throw first;
    }
}
