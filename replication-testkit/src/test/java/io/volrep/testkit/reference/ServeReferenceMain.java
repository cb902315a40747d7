package io.volrep.testkit.reference;

import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * What {@code volrep serve-reference} does, without the CLI (which depends on this module), for the SIGTERM
 * test to run as a child process: {@code ServeReferenceMain <listen> <latency (ISO-8601)>}.
 */
public final class ServeReferenceMain {
    private ServeReferenceMain() {}

    public static void main(String[] args) throws Exception {
        ReferenceDriver driver = ReferenceDriver.builder()
                .volumes(4)
                .groups(1)
                .requiredSecret("user", "admin")
                .latency(Duration.parse(args[1]))
                .build();
        System.exit(ReferencePlugin.runUntilShutdown(
                driver,
                args[0],
                Duration.ofSeconds(10),
                new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), true)));
    }
}
