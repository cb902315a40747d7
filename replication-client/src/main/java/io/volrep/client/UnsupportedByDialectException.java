package io.volrep.client;

import io.volrep.api.SpecDialect;
import io.volrep.api.UnimplementedException;
import io.volrep.api.internal.wire.NotExpressibleException;

/**
 * The request cannot be expressed in the spec revision the client was built for
 * ({@link ReplicationClient.Builder#dialect}), so it was never sent ({@code attempts() == 0}). Examples:
 * GetVolumeReplicationInfo, volume groups or a {@code replication_id} under {@link SpecDialect#V0_1_0};
 * volume snapshots under {@link SpecDialect#V0_1_3}.
 *
 * <p>It is an {@link UnimplementedException} (code 12 UNIMPLEMENTED, recovery "MUST NOT retry"): a plugin of
 * that revision would not implement the call either, and code that already handles an unimplemented RPC
 * (for example by skipping optional info) handles this case the same way, without a wasted round trip.
 *
 * <pre>{@code
 * try {
 *     info = client.volume("pvc-1").info();
 * } catch (UnsupportedByDialectException e) {
 *     log.info("plugin speaks {}: {}", e.dialect(), e.getMessage());
 * }
 * }</pre>
 */
public final class UnsupportedByDialectException extends UnimplementedException {
    private static final long serialVersionUID = 1L;

    private final SpecDialect dialect;

    /** The transcoder's refusal, reported as a call that was not sent. */
    UnsupportedByDialectException(NotExpressibleException refusal) {
        super(refusal.getMessage() + "; not sent", refusal.rpc(), 0, null);
        this.dialect = refusal.dialect();
    }

    /** The revision the client speaks. */
    public SpecDialect dialect() {
        return dialect;
    }
}
