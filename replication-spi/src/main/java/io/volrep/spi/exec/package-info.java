/**
 * The exec bridge: {@link io.volrep.spi.exec.ExecDriver} serves a driver executable that speaks the exec
 * protocol (docs/exec-drivers.md: {@code <driver> <operation> <request-json>}, secrets on stdin, one JSON
 * object on stdout) as a spec-correct replication plugin through the SPI runtime.
 *
 * <pre>{@code
 * ExecDriver driver = ExecDriver.builder().executable(Path.of("/usr/libexec/my-driver")).build();
 * ReplicationServer.builder().driver(driver).listen("unix:///csi/csi-addons.sock").build().start();
 * }</pre>
 */
package io.volrep.spi.exec;
