package io.volrep.client.reconcile;

import io.volrep.api.ReplicationException;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.internal.SafeText;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What {@link Reconciler} achieved for one source: the state reached, the reference orchestrator's conditions,
 * the last sync figures when the plugin gave them, and why not when the desired state was not reached.
 *
 * <pre>{@code
 * ReconcileResult r = Reconciler.of(client.volumeGroup("vg-7")).reconcile(DesiredState.RESYNC);
 * if (!r.done()) {
 *     log.warn("{} not resynced: {}", r.source(), r.whyNot().orElse("?"));
 * }
 * r.lastSync().ifPresent(info -> log.info("last sync {}", info.lastSyncTime()));
 * }</pre>
 *
 * @param source     the source
 * @param desired    the state asked for
 * @param reached    the state the source is known to be in; empty when a call failed before it was known
 * @param conditions Completed, Degraded, Resyncing and Replicating, in this order
 * @param lastSync   the figures of GetVolumeReplicationInfo when it answered (only a primary answers it)
 * @param calls      the RPCs sent, in order, each with its outcome, e.g. {@code PromoteVolume(force): OK}
 * @param forced     whether a PromoteVolume was sent with force
 * @param whyNot     why the desired state was not reached (escaped, safe to print); empty when done
 * @param failure    the call failure that stopped the reconciliation, if one did
 */
public record ReconcileResult(
        ReplicationSource source,
        DesiredState desired,
        Optional<DesiredState> reached,
        List<Condition> conditions,
        Optional<ReplicationInfo> lastSync,
        List<String> calls,
        boolean forced,
        Optional<String> whyNot,
        Optional<ReplicationException> failure) {

    public ReconcileResult {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(desired, "desired");
        Objects.requireNonNull(reached, "reached");
        conditions = List.copyOf(conditions);
        Objects.requireNonNull(lastSync, "lastSync");
        calls = List.copyOf(calls);
        Objects.requireNonNull(whyNot, "whyNot");
        Objects.requireNonNull(failure, "failure");
    }

    /** Whether the desired state was reached. */
    public boolean done() {
        return reached.filter(desired::equals).isPresent();
    }

    /** The condition of this type. */
    public Condition condition(Condition.Type type) {
        return conditions.stream().filter(c -> c.type() == type).findFirst().orElseThrow();
    }

    /** One line: the source, desired and reached state, and why not. */
    public String summary() {
        return SafeText.escape(source.toString()) + ": "
                + (done()
                        ? desired + " reached"
                        : desired + " not reached ("
                                + reached.map(DesiredState::name).orElse("state unknown") + "): " + whyNot.orElse(""));
    }
}
