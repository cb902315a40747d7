package io.volrep.client;

import com.google.protobuf.Message;
import io.grpc.MethodDescriptor;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.Secrets;
import java.util.Optional;

/**
 * What the {@link CallEngine} needs of one typed call, whatever its service: the RPC, the source it concerns
 * (for secrets, the {@link SourceVerifier}, events and messages), the single-flight key, and how to encode it.
 * Replication, NodeHealer and Identity calls share every piece of the retry machinery this way; the Identity
 * calls concern no source, so they have no single-flight key, no secrets and nothing to verify.
 */
sealed interface CallSpec permits RequestSpec, HealSpec, IdentitySpec {

    Rpc rpc();

    /**
     * The source the call concerns; empty for a call on the plugin itself (Identity). Valid only after
     * {@link #validate}.
     */
    Optional<ReplicationSource> concerns();

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

    MethodDescriptor<Message, Message> method(WireDialect wire);

    Message encode(WireDialect wire, Secrets secrets);
}
