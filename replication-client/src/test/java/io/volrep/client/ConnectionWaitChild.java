package io.volrep.client;

import java.time.Duration;

/**
 * For {@link ConnectionWaitTest}, in a JVM of its own: one PromoteVolume on {@code TARGET} with a 1 s budget and short
 * connection warnings; prints {@code exception: <message>} (the warnings go to stderr, through slf4j-simple).
 *
 * <pre>{@code
 * java -cp <test class path> io.volrep.client.ConnectionWaitChild unix:///tmp/x/private.sock
 * }</pre>
 */
public final class ConnectionWaitChild {
    private ConnectionWaitChild() {}

    public static void main(String[] args) {
        try (ReplicationClient client = ReplicationClient.builder()
                .target(args[0])
                .retry(RetryPolicy.spec().toBuilder()
                        .totalTimeout(Duration.ofSeconds(1))
                        .build())
                .connectionWarnings(Duration.ofMillis(200), Duration.ofMillis(300))
                .build()) {
            client.volume("vol-0").promote().call();
            System.out.println("no exception");
        } catch (RuntimeException e) {
            System.out.println("exception: " + e.getMessage());
        }
    }
}
