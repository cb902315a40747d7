package io.volrep.examples;

import io.volrep.spi.ReplicationServer;
import io.volrep.spi.exec.ExecDriver;
import java.nio.file.Path;
import java.time.Duration;

/** The Java snippets of docs/exec-drivers.md, compiled. */
final class ExecDriverExamples {
    void serve() throws InterruptedException {
        // snippet:start serve
        try (ExecDriver driver = ExecDriver.builder()
                        .executable(Path.of("/usr/libexec/my-driver"))
                        .timeout(Duration.ofSeconds(30))
                        .environment("MY_DRIVER_CONFIG", "/etc/my-driver.conf")
                        .maxConcurrentDrivers(16) // default: 4 per processor, at least 4
                        .containment(ExecDriver.Containment.REQUIRED) // default AUTO
                        .build(); // runs init; IllegalStateException if it fails
                ReplicationServer server = ReplicationServer.builder()
                        .driver(driver)
                        .listen("unix:///csi/csi-addons.sock")
                        .build()
                        .start()) {
            server.awaitTermination();
        }
        // snippet:end serve
    }
}
