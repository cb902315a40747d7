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

    exports io.volrep.ceph;

    provides io.volrep.spi.ReplicationDriverProvider with
            io.volrep.ceph.CephRbdDriverProvider;
}
