package io.volrep.client;

/**
 * The answer of ResyncVolume.
 *
 * <pre>{@code
 * ResyncStatus status = client.volume("pvc-1").resync().call();
 * if (!status.ready()) { ... poll again, or use awaitReady ... }
 * }</pre>
 *
 * @param ready true when the source is resynced and ready for use
 */
public record ResyncStatus(boolean ready) {}
