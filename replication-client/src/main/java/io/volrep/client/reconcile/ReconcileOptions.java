package io.volrep.client.reconcile;

import io.volrep.api.ReplicationInfo;
import io.volrep.api.internal.Arguments;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * How {@link Reconciler} may act: whether a refused promote may be forced, how long a resync may take, what
 * to send with EnableVolumeReplication. Immutable; {@link #defaults()} never forces.
 *
 * <pre>{@code
 * ReconcileOptions opts = ReconcileOptions.builder()
 *         .allowForcePromote(true)                     // may split the brain: only when the peer is known down
 *         .resyncTimeout(Duration.ofMinutes(10))
 *         .parameter("mirroringMode", "snapshot")
 *         .build();
 * new Reconciler(client.volume("pvc-1"), opts).reconcile(DesiredState.PRIMARY);
 * }</pre>
 *
 * @param allowForcePromote whether a PromoteVolume refused with FAILED_PRECONDITION is sent again with
 *                          {@code force} (the reference orchestrator always does; volrep only when asked)
 * @param resyncTimeout     the deadline for a resync to become ready (polled with the retry policy's capped
 *                          back-off)
 * @param enableParameters  the {@code parameters} of EnableVolumeReplication (e.g. the replication class's)
 * @param replicating       reads the Replicating condition from an info answer; by default {@link #HEALTH}
 *                          (the plugin's health status: HEALTHY is TRUE, DEGRADED and ERROR FALSE, UNKNOWN UNKNOWN)
 */
public record ReconcileOptions(
        boolean allowForcePromote,
        Duration resyncTimeout,
        Map<String, String> enableParameters,
        Function<ReplicationInfo, Condition.Status> replicating) {

    /** The default resync deadline. */
    public static final Duration DEFAULT_RESYNC_TIMEOUT = Duration.ofMinutes(5);

    /**
     * The plugin's health status (upstream 2026): HEALTHY is TRUE, DEGRADED and ERROR are FALSE, UNKNOWN (also what
     * a plugin that does not report health answers) is UNKNOWN. The default.
     */
    public static final Function<ReplicationInfo, Condition.Status> HEALTH = info -> switch (info.status()) {
        case HEALTHY -> Condition.Status.TRUE;
        case DEGRADED, ERROR -> Condition.Status.FALSE;
        case UNKNOWN -> Condition.Status.UNKNOWN;
    };

    public ReconcileOptions {
        Arguments.requirePositive("resyncTimeout", resyncTimeout);
        enableParameters = Map.copyOf(enableParameters);
        Objects.requireNonNull(replicating, "replicating");
    }

    /** Never forces, resync deadline {@link #DEFAULT_RESYNC_TIMEOUT}, no parameters, Replicating read by {@link #HEALTH}. */
    public static ReconcileOptions defaults() {
        return builder().build();
    }

    /** A builder with the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from these options. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.allowForcePromote = allowForcePromote;
        b.resyncTimeout = resyncTimeout;
        b.enableParameters.putAll(enableParameters);
        b.replicating = replicating;
        return b;
    }

    /** Builds {@link ReconcileOptions}. */
    public static final class Builder {
        private boolean allowForcePromote;
        private Duration resyncTimeout = DEFAULT_RESYNC_TIMEOUT;
        private final Map<String, String> enableParameters = new LinkedHashMap<>();
        private Function<ReplicationInfo, Condition.Status> replicating = HEALTH;

        private Builder() {}

        /** See {@link ReconcileOptions#allowForcePromote()}. */
        public Builder allowForcePromote(boolean allow) {
            this.allowForcePromote = allow;
            return this;
        }

        /** See {@link ReconcileOptions#resyncTimeout()}. */
        public Builder resyncTimeout(Duration timeout) {
            this.resyncTimeout = timeout;
            return this;
        }

        /** Adds one parameter of EnableVolumeReplication. */
        public Builder parameter(String key, String value) {
            enableParameters.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
            return this;
        }

        /** Adds every parameter of {@code parameters}. */
        public Builder parameters(Map<String, String> parameters) {
            parameters.forEach(this::parameter);
            return this;
        }

        /** See {@link ReconcileOptions#replicating()}. */
        public Builder replicating(Function<ReplicationInfo, Condition.Status> replicating) {
            this.replicating = Objects.requireNonNull(replicating, "replicating");
            return this;
        }

        /** The options. */
        public ReconcileOptions build() {
            return new ReconcileOptions(allowForcePromote, resyncTimeout, enableParameters, replicating);
        }
    }
}
