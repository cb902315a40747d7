package io.volrep.examples;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.volrep.spi.ReplicationServer;
import io.volrep.spi.ServeUntilSignal;
import java.io.PrintWriter;
import java.time.Duration;

// snippet:start main
public final class AcmePlugin {
    public static void main(String[] args) throws InterruptedException {
        AcmeArray array = AcmeArrays.connect(args); // your storage's API
        ReplicationServer server = ReplicationServer.builder()
                .driver(new AcmeDriver(array))
                .listen("unix:///csi/csi-addons.sock") // or "0.0.0.0:9070", "127.0.0.1:0", "inprocess:NAME"
                .gracePeriod(Duration.ofSeconds(10)) // how long shutdown lets calls in flight finish
                .build()
                .start();
        // prints "listening on unix:///csi/csi-addons.sock", serves until SIGTERM or SIGINT, drains, exits 0
        System.exit(ServeUntilSignal.run(server, server::close, new PrintWriter(System.out, true, UTF_8)));
    }
}
// snippet:end main

/** Where the docs' main gets its array (a stand-in). */
final class AcmeArrays {
    private AcmeArrays() {}

    static AcmeArray connect(String[] args) {
        throw new UnsupportedOperationException("a stand-in");
    }
}
