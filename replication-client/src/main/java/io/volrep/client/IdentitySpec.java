package io.volrep.client;

import com.google.protobuf.Message;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.Secrets;
import io.volrep.proto.identity.GetCapabilitiesRequest;
import io.volrep.proto.identity.GetIdentityRequest;
import io.volrep.proto.identity.ProbeRequest;
import java.util.Optional;

/**
 * What one Identity call sends: an empty request about the plugin itself. No source, so no single-flight slot,
 * no secrets and nothing for a {@link SourceVerifier}; the service has one revision, so the dialect does not apply.
 */
record IdentitySpec(Rpc rpc, RetryPolicy policy) implements CallSpec {

    IdentitySpec {
        if (!rpc.isIdentity()) {
            throw new IllegalArgumentException(rpc + " is not an identity.Identity method");
        }
    }

    @Override
    public Optional<ReplicationSource> concerns() {
        return Optional.empty();
    }

    /** None: the requests have no secrets field. */
    @Override
    public Secrets secretsOverride() {
        return null;
    }

    @Override
    public Optional<Object> flightKey() {
        return Optional.empty();
    }

    /** Nothing to check: the requests are empty. */
    @Override
    public IdentitySpec validate(WireDialect wire) {
        return this;
    }

    @Override
    public Message encode(WireDialect wire, Secrets secrets) {
        return switch (rpc) {
            case GET_IDENTITY -> GetIdentityRequest.getDefaultInstance();
            case GET_CAPABILITIES -> GetCapabilitiesRequest.getDefaultInstance();
            case PROBE -> ProbeRequest.getDefaultInstance();
            default -> throw new IllegalStateException(rpc + " is not an identity.Identity method");
        };
    }
}
