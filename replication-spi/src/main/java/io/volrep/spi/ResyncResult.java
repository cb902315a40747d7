package io.volrep.spi;

/**
 * The answer to {@code ResyncVolume}: whether the secondary has caught up. Orchestrators call resync again
 * until it is ready.
 *
 * <pre>{@code
 * return progress >= 100 ? ResyncResult.READY : ResyncResult.IN_PROGRESS;
 * }</pre>
 *
 * @param ready true when the resync is complete
 */
public record ResyncResult(boolean ready) {
    /** The resync is complete. */
    public static final ResyncResult READY = new ResyncResult(true);
    /** The resync is still running; the orchestrator will ask again. */
    public static final ResyncResult IN_PROGRESS = new ResyncResult(false);
}
