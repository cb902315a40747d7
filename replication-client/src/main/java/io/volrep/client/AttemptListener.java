package io.volrep.client;

/**
 * Sees every attempt of every call: its code and the back-off delay the client chose. Called on a client
 * thread; must be quick and must not block. Exceptions it throws are logged and ignored.
 *
 * <pre>{@code
 * ReplicationClient.builder()
 *         .listener(event -> log.info("{}", event.describe()))
 *         .build();
 * }</pre>
 */
@FunctionalInterface
public interface AttemptListener {
    /** Called once per attempt, after its outcome and the retry decision are known. */
    void onAttempt(AttemptEvent event);
}
