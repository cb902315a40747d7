package io.volrep.api.internal.wire;

import io.volrep.api.Rpc;
import io.volrep.api.SpecDialect;

/**
 * What a request says cannot be said in the spec revision it is being written in: the RPC does not exist there,
 * a source kind it cannot name, or a field it lacks. Thrown by {@link Transcoder} before anything is sent; the
 * client reports it as its {@code UnsupportedByDialectException}.
 *
 * <pre>{@code
 * try {
 *     Transcoder.of(SpecDialect.V0_1_0).requestToWire(Rpc.PROMOTE_VOLUME, request);
 * } catch (NotExpressibleException e) {
 *     e.getMessage();   // "PromoteVolume: replication_id cannot be expressed in spec revision v0.1.0"
 * }
 * }</pre>
 */
public final class NotExpressibleException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final transient Rpc rpc;
    private final SpecDialect dialect;

    /**
     * @param what what cannot be expressed, e.g. {@code "the RPC does not exist"}, {@code "a volumegroup source"},
     *             {@code "replication_id"}: the message says it
     */
    public NotExpressibleException(String what, Rpc rpc, SpecDialect dialect) {
        super(rpc.methodName() + ": " + what + " cannot be expressed in spec revision " + dialect.cliName());
        this.rpc = rpc;
        this.dialect = dialect;
    }

    /** The RPC of the request. */
    public Rpc rpc() {
        return rpc;
    }

    /** The revision that cannot express it. */
    public SpecDialect dialect() {
        return dialect;
    }
}
