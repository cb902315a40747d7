package io.volrep.client.reconcile;

import io.volrep.api.ReplicationException;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.StatusCode;
import io.volrep.api.internal.Arguments;
import io.volrep.client.SourceClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Drives one replication source to a {@link DesiredState} with the client's public typed calls, from any state,
 * and reports where it got ({@link ReconcileResult}). Every RPC of the spec is idempotent, so a reconciliation
 * may be repeated at will: a source already in the desired state receives no call that changes it.
 *
 * <pre>{@code
 * ReconcileResult r = client.volume("pvc-1").reconcile(DesiredState.PRIMARY);          // blocking
 * client.volumeGroup("vg-7").reconcileAsync(DesiredState.RESYNC)                        // no blocked thread
 *       .thenAccept(result -> log.info("{}", result.summary()));
 * }</pre>
 *
 * <p>What it sends, per desired state (each step only after the previous one answered OK):
 * <ul>
 * <li>PRIMARY: GetVolumeReplicationInfo; an answer means the source already is an enabled primary (the spec's
 *     table answers 9 FAILED_PRECONDITION for a source not replicated or not promoted) and nothing else is sent. Otherwise EnableVolumeReplication, PromoteVolume, then GetVolumeReplicationInfo for the
 *     figures. A promote refused with 9 FAILED_PRECONDITION is sent again with {@code force} only when
 *     {@link ReconcileOptions#allowForcePromote()} (force can leave two primaries: a split brain).</li>
 * <li>SECONDARY: EnableVolumeReplication, DemoteVolume.</li>
 * <li>RESYNC: EnableVolumeReplication, DemoteVolume, then ResyncVolume with {@code force} (as the reference
 *     orchestrator sends it for this state) until {@code ready}, with the retry policy's capped back-off between
 *     polls and {@link ReconcileOptions#resyncTimeout()} as the deadline.</li>
 * <li>DISABLED: DisableVolumeReplication; 5 NOT_FOUND counts as disabled.</li>
 * </ul>
 * Unlike the reference orchestrator, codes the spec calls terminal are not retried: they end the reconciliation
 * with {@link ReconcileResult#whyNot()}. A call failure never escapes as an exception; the future fails only
 * when it is cancelled or the client is closed.
 *
 * @param source  the source it drives
 * @param options how it may act (force, resync deadline, enable parameters)
 */
public record Reconciler(SourceClient source, ReconcileOptions options) {

    /**
     * A reconciler of {@code source} acting as {@code options} allow.
     *
     * <pre>{@code
     * new Reconciler(client.volumeGroup("vg-7"), ReconcileOptions.builder().allowForcePromote(true).build())
     *         .reconcile(DesiredState.PRIMARY);
     * }</pre>
     */
    public Reconciler {
        Arguments.requireNonNull("source", source, "options", options);
    }

    /**
     * A reconciler of {@code source} with the default options ({@link ReconcileOptions#defaults()}: never forces).
     *
     * <pre>{@code
     * ReconcileResult r = Reconciler.of(client.volume("pvc-1")).reconcile(DesiredState.PRIMARY);
     * }</pre>
     */
    public static Reconciler of(SourceClient source) {
        return new Reconciler(source, ReconcileOptions.defaults());
    }

    /** Reconciles and waits for the result. */
    public ReconcileResult reconcile(DesiredState desired) {
        return Steps.await(reconcileAsync(desired), "reconciling");
    }

    /**
     * Reconciles without blocking. Cancelling the returned future abandons the result only: the steps already
     * chained (the call in flight and the ones its answer calls for) still run; close the client to stop them.
     */
    public CompletableFuture<ReconcileResult> reconcileAsync(DesiredState desired) {
        Objects.requireNonNull(desired, "desired");
        Run run = new Run(desired);
        return switch (desired) {
            case PRIMARY -> run.primary();
            case SECONDARY ->
                run.enableThen(() -> run.demoteThen(() -> run.reached(DesiredState.SECONDARY, "Demoted")));
            case RESYNC -> run.enableThen(() -> run.demoteThen(run::resync));
            case DISABLED -> run.disable();
        };
    }

    /** The mutable trace of one reconciliation. */
    private final class Run {
        private final DesiredState desired;
        private final List<String> calls = new ArrayList<>();
        private boolean forced;
        private ReplicationInfo info;

        Run(DesiredState desired) {
            this.desired = desired;
        }

        private synchronized void record(String call) {
            calls.add(call);
        }

        CompletableFuture<ReconcileResult> primary() {
            return Steps.call(
                    this::record,
                    "GetVolumeReplicationInfo",
                    source::infoAsync,
                    known -> {
                        info = known;
                        return reached(DesiredState.PRIMARY, "Promoted");
                    },
                    // 9: not enabled, or not the primary; 12: the plugin cannot tell. Either way: drive it there.
                    e -> e.code() == StatusCode.FAILED_PRECONDITION || e.code() == StatusCode.UNIMPLEMENTED
                            ? enableThen(() -> promote(false))
                            : failed(Optional.empty(), "CallFailed", e, ""));
        }

        CompletableFuture<ReconcileResult> enableThen(Supplier<CompletableFuture<ReconcileResult>> next) {
            return Steps.call(
                    this::record,
                    "EnableVolumeReplication",
                    () -> source.enable().parameters(options.enableParameters()).callAsync(),
                    ok -> next.get(),
                    e -> failed(Optional.empty(), "CallFailed", e, ""));
        }

        CompletableFuture<ReconcileResult> demoteThen(Supplier<CompletableFuture<ReconcileResult>> next) {
            return Steps.call(
                    this::record,
                    "DemoteVolume",
                    () -> source.demote().callAsync(),
                    ok -> next.get(),
                    e -> failed(Optional.empty(), "CallFailed", e, ""));
        }

        private CompletableFuture<ReconcileResult> promote(boolean force) {
            return Steps.call(
                    this::record,
                    force ? "PromoteVolume(force)" : "PromoteVolume",
                    () -> source.promote().force(force).callAsync(),
                    ok -> {
                        forced |= force;
                        return Steps.call(
                                this::record,
                                "GetVolumeReplicationInfo",
                                source::infoAsync,
                                known -> {
                                    info = known;
                                    return reached(DesiredState.PRIMARY, force ? "ForcePromoted" : "Promoted");
                                },
                                // Promoted all the same; the figures are missing, and say why.
                                e -> reached(DesiredState.PRIMARY, "PromotedWithoutInfo"));
                    },
                    e -> {
                        if (force || e.code() != StatusCode.FAILED_PRECONDITION) {
                            return failed(Optional.empty(), "CallFailed", e, "");
                        }
                        if (options.allowForcePromote()) {
                            return promote(true);
                        }
                        return failed(
                                Optional.empty(),
                                "PromoteRefused",
                                e,
                                "; force was not allowed (it may leave two primaries)");
                    });
        }

        CompletableFuture<ReconcileResult> resync() {
            return Steps.call(
                    this::record,
                    "ResyncVolume(force) until ready",
                    () -> source.resync().force().awaitReady(options.resyncTimeout()),
                    ready -> reached(DesiredState.RESYNC, "Resynced"),
                    // The source is demoted; the resync is what did not finish (not ready, or a poll failed).
                    e -> failed(Optional.of(DesiredState.SECONDARY), "ResyncNotReady", e, ""));
        }

        CompletableFuture<ReconcileResult> disable() {
            return Steps.call(
                    this::record,
                    "DisableVolumeReplication",
                    () -> source.disable().callAsync(),
                    ok -> reached(DesiredState.DISABLED, "Disabled"),
                    e -> e.code() == StatusCode.NOT_FOUND
                            ? reached(DesiredState.DISABLED, "SourceNotFound")
                            : failed(Optional.empty(), "CallFailed", e, ""));
        }

        CompletableFuture<ReconcileResult> reached(DesiredState state, String reason) {
            return CompletableFuture.completedFuture(
                    result(Optional.of(state), reason, desired + " reached", Optional.empty(), Optional.empty()));
        }

        private CompletableFuture<ReconcileResult> failed(
                Optional<DesiredState> reached, String reason, ReplicationException e, String suffix) {
            String why = (e.rpc() == null ? "" : e.rpc().methodName() + " answered ") + Steps.describe(e) + suffix;
            return CompletableFuture.completedFuture(result(reached, reason, why, Optional.of(why), Optional.of(e)));
        }

        private synchronized ReconcileResult result(
                Optional<DesiredState> reached,
                String reason,
                String message,
                Optional<String> whyNot,
                Optional<ReplicationException> failure) {
            boolean done = reached.filter(desired::equals).isPresent();
            boolean resyncing = "ResyncNotReady".equals(reason);
            Condition.Status replicating =
                    reached.filter(DesiredState.DISABLED::equals).isPresent()
                            ? Condition.Status.FALSE
                            : info == null
                                    ? Condition.Status.UNKNOWN
                                    : options.replicating().apply(info);
            List<Condition> conditions = List.of(
                    Condition.of(Condition.Type.COMPLETED, done, reason, message),
                    resyncing || (replicating == Condition.Status.FALSE && desired != DesiredState.DISABLED)
                            ? new Condition(Condition.Type.DEGRADED, Condition.Status.TRUE, reason, message)
                            : new Condition(
                                    Condition.Type.DEGRADED,
                                    failure.isPresent() ? Condition.Status.UNKNOWN : Condition.Status.FALSE,
                                    reason,
                                    message),
                    Condition.of(
                            Condition.Type.RESYNCING,
                            resyncing,
                            reason,
                            resyncing ? "resync not ready: " + message : "no resync in progress"),
                    new Condition(
                            Condition.Type.REPLICATING,
                            replicating,
                            info == null ? "NoInfo" : "Info",
                            info == null ? "no GetVolumeReplicationInfo answer" : "from GetVolumeReplicationInfo"));
            return new ReconcileResult(
                    source.source(),
                    desired,
                    reached,
                    conditions,
                    Optional.ofNullable(info),
                    calls,
                    forced,
                    whyNot,
                    failure);
        }
    }
}
