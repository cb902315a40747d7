package io.volrep.spi;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * A plugin in a child JVM, for tests that need a process of its own (e.g. a umask of its own): serves
 * {@link ScriptedDriver} on {@code args[0]}, prints {@code listening}, and stops when its stdin closes.
 */
public final class SocketServerMain {
    private SocketServerMain() {}

    public static void main(String[] args) throws IOException {
        try (ReplicationServer server = ReplicationServer.builder()
                .driver(new ScriptedDriver())
                .listen(args[0])
                .build()
                .start()) {
            System.out.write(("listening on " + server.address() + "\n").getBytes(StandardCharsets.UTF_8));
            System.out.flush();
            System.in.readAllBytes();
        }
    }
}
