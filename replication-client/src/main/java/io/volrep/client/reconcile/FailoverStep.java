package io.volrep.client.reconcile;

/**
 * Where one source of a {@link Failover} is; reported to the progress listener as it moves.
 *
 * <pre>{@code
 * Failover.builder()...listener(p -> log.info("{} {}", p.source(), p.step())).build().run();
 * }</pre>
 */
public enum FailoverStep {
    /** Waiting for a free slot (the parallelism bound). */
    PENDING,
    /** Asking the {@link DestinationResolver}. */
    RESOLVING,
    /** GetVolumeReplicationInfo on site B: reachable, the destination exists, already primary? */
    CHECKING_B,
    /** DemoteVolume on site A. */
    DEMOTING_ON_A,
    /**
     * PromoteVolume on site B (with {@code force} in disaster mode); without force, sent again while B refuses it
     * (9 or 10) until A's demotion has arrived, within the demotion wait.
     */
    PROMOTING_ON_B,
    /** GetVolumeReplicationInfo on site B, polled until B reports its first completed sync, within the call budget. */
    VERIFYING_ON_B,
    /** Done: primary on site B. */
    PRIMARY_ON_B,
    /** Not promoted on purpose: site A unreachable and force not allowed. */
    REFUSED,
    /** A call failed; see the outcome's reason. */
    FAILED;

    /** Whether the source is finished (successfully or not). */
    public boolean terminal() {
        return this == PRIMARY_ON_B || this == REFUSED || this == FAILED;
    }
}
