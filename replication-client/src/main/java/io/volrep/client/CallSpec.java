package io.volrep.client;

import com.google.protobuf.Message;
import io.volrep.api.CsiLimits;
import io.volrep.api.InvalidArgumentException;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.Secrets;
import io.volrep.api.VolumeGroupCapability;
import java.util.Optional;

/**
 * What the {@link CallEngine} needs of one typed call, whatever its service: the RPC, the source it concerns
 * (for secrets, the {@link SourceVerifier}, events and messages), the single-flight key, the capability the plugin
 * must advertise, and how to encode it. Replication, NodeHealer, volume group and Identity calls share every piece of
 * the retry machinery this way; the Identity calls concern no source, so they have no single-flight key, no secrets
 * and nothing to verify; CreateVolumeGroup and ListVolumeGroups concern no source either but send the
 * {@linkplain SecretsProvider#pluginSecrets() plugin's secrets}.
 */
sealed interface CallSpec permits RequestSpec, HealSpec, IdentitySpec, VolumeGroupSpec {

    Rpc rpc();

    /**
     * The source the call concerns; empty for a call on the plugin itself (Identity). Valid only after
     * {@link #validate}.
     */
    Optional<ReplicationSource> concerns();

    /**
     * Whether the request carries secrets: those of the source it concerns, else the
     * {@linkplain SecretsProvider#pluginSecrets() plugin's}; an Identity request has no secrets field.
     */
    default boolean sendsSecrets() {
        return concerns().isPresent();
    }

    /**
     * The capability Identity must advertise before the call is offered at all: checked (GetCapabilities, asked once
     * per client) after {@link #validate} and before anything of the call is sent. Empty for calls the spec makes
     * unconditional.
     */
    default Optional<VolumeGroupCapability> requiredCapability() {
        return Optional.empty();
    }

    /** How messages name the call: {@code PromoteVolume for volume pvc-1}, or {@code identity.Identity/Probe}. */
    default String subject() {
        return concerns().map(source -> rpc().methodName() + " for " + source).orElseGet(() -> rpc().fullMethodName());
    }

    /** The call's own secrets, or null for the client's {@link SecretsProvider}. */
    Secrets secretsOverride();

    /** The call's own retry policy, or null for the client's default. */
    RetryPolicy policy();

    /**
     * Calls with equal keys are never in flight at the same time; a call without one (it concerns no source)
     * starts at once.
     */
    Optional<Object> flightKey();

    /**
     * Checks the request before anything is sent.
     *
     * @throws io.volrep.api.InvalidArgumentException naming the field, with 0 attempts
     * @throws UnsupportedByDialectException when the plugin's spec revision cannot express the request
     */
    CallSpec validate(WireDialect wire);

    Message encode(WireDialect wire, Secrets secrets);

    /**
     * Runs a request's own field checks, then the check every call with secrets shares (its own secrets within
     * 4 KiB), and attributes a failure to {@code rpc} with 0 attempts: nothing was sent.
     *
     * @throws InvalidArgumentException naming the field
     */
    static void checkFields(Rpc rpc, Secrets secretsOverride, Runnable fieldChecks) {
        try {
            fieldChecks.run();
            if (secretsOverride != null) {
                CsiLimits.requireMapWithinLimit("secrets", secretsOverride.asMap());
            }
        } catch (InvalidArgumentException e) {
            throw (InvalidArgumentException) e.withContext(rpc, 0);
        }
    }
}
