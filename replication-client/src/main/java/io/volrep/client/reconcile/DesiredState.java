package io.volrep.client.reconcile;

/**
 * Where an orchestrator wants a replication source to be; {@link Reconciler} drives the plugin there from any state.
 *
 * <pre>{@code
 * ReconcileResult r = Reconciler.of(client.volume("pvc-1")).reconcile(DesiredState.PRIMARY);
 * }</pre>
 */
public enum DesiredState {
    /** Replication enabled and the source promoted: it takes writes. */
    PRIMARY,
    /** Replication enabled and the source demoted: it receives the peer's changes. */
    SECONDARY,
    /** Demoted and resynced from the peer until the plugin answers {@code ready}. */
    RESYNC,
    /** Replication disabled (a source that does not exist counts as disabled, as in the reference orchestrator). */
    DISABLED
}
