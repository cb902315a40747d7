/**
 * Optional: a CSI-Addons replication driver for Ceph RBD snapshot mirroring ({@link io.volrep.ceph.CephRbdDriver}),
 * served through the volrep SPI. It calls librbd and librados in its own process (JNA; Debian's {@code librbd1} and
 * {@code librados2}), over one connection per site, each call within the RPC's budget; {@code volrep serve-ceph} serves
 * it.
 *
 * <pre>{@code
 * CephRbdDriver driver = CephRbdDriver.builder().cephConf(Path.of("/etc/ceph/ceph.conf")).pool("rbd").build();
 * ReplicationServer.builder().driver(driver).readiness(driver.readiness())
 *         .identity(CephRbdDriver.PLUGIN_NAME, "0.1.0").listen("unix:///csi/csi-addons.sock").build().start();
 * }</pre>
 */
package io.volrep.ceph;
