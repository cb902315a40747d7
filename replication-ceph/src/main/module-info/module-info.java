/**
 * Optional Ceph RBD snapshot-mirroring driver for the volrep SPI.
 *
 * <pre>{@code
 * module my.plugin {
 *     requires io.volrep.ceph;
 * }
 * }</pre>
 */
module io.volrep.ceph {
    requires transitive io.volrep.spi;
    requires com.google.gson;
    requires org.slf4j;
    requires com.sun.jna;

    exports io.volrep.ceph;

    // JNA reads and writes the librbd structures' fields and implements the library interfaces
    opens io.volrep.ceph.internal.rados to
            com.sun.jna;

    provides io.volrep.spi.ReplicationDriverProvider with
            io.volrep.ceph.CephRbdDriverProvider;
}
