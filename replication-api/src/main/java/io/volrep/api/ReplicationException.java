package io.volrep.api;

import java.util.Objects;

/**
 * The one unchecked exception of volrep: a call that ended with a gRPC status other than OK, or a request
 * that could not be sent. There is one subclass per code the spec's tables use.
 *
 * <p>Drivers throw the subclasses to signal a spec condition; the client throws them to report one:
 * <pre>{@code
 * try {
 *     client.volume("pvc-1").promote().call();
 * } catch (PreconditionFailedException e) {
 *     log.warn("{} failed after {} attempt(s): {}", e.rpc(), e.attempts(), e.getMessage());
 * }
 * }</pre>
 * Messages never carry secret values.
 */
public class ReplicationException extends RuntimeException implements Cloneable {
    private static final long serialVersionUID = 1L;

    private transient Rpc rpc;
    private final StatusCode code;
    private int attempts;
    /** The error table of the revision the call was made in; null for the current spec's. */
    private transient ErrorScheme scheme;
    /** Whether the request asked for force, which narrows the conditions an answer can stand for. */
    private boolean requestForced;

    /**
     * @param code the gRPC code
     * @param message what happened, free of secret values
     * @param rpc the RPC, or null where it is not known yet (a driver's exception before the runtime maps it)
     * @param attempts how many calls were made, 0 when none was
     * @param cause the underlying cause, or null
     */
    protected ReplicationException(StatusCode code, String message, Rpc rpc, int attempts, Throwable cause) {
        super(message, cause);
        this.code = Objects.requireNonNull(code, "code");
        this.rpc = rpc;
        this.attempts = attempts;
    }

    /** A generic exception for {@code code}; prefer {@link #of} to get the code's own subclass. */
    public ReplicationException(StatusCode code, String message) {
        this(code, message, null, 0, null);
    }

    /**
     * The exception of the subclass that belongs to {@code code}.
     *
     * <pre>{@code
     * throw ReplicationException.of(StatusCode.NOT_FOUND, "no volume pvc-9", Rpc.PROMOTE_VOLUME, 1, null);
     * }</pre>
     */
    public static ReplicationException of(StatusCode code, String message, Rpc rpc, int attempts, Throwable cause) {
        return switch (code) {
            case INVALID_ARGUMENT -> new InvalidArgumentException(message, rpc, attempts, cause);
            case NOT_FOUND -> new SourceNotFoundException(message, rpc, attempts, cause);
            case FAILED_PRECONDITION -> new PreconditionFailedException(message, rpc, attempts, cause);
            case ABORTED -> new OperationPendingException(message, rpc, attempts, cause);
            case UNIMPLEMENTED -> new UnimplementedException(message, rpc, attempts, cause);
            case UNAUTHENTICATED -> new UnauthenticatedException(message, rpc, attempts, cause);
            case UNKNOWN -> new UnknownErrorException(message, rpc, attempts, cause);
            case UNAVAILABLE -> new UnavailableException(message, rpc, attempts, cause);
            case DEADLINE_EXCEEDED -> new DeadlineExceededException(message, rpc, attempts, cause);
            case RESOURCE_EXHAUSTED -> new ResourceExhaustedException(message, rpc, attempts, cause);
            default -> new ReplicationException(code, message, rpc, attempts, cause);
        };
    }

    /**
     * The same condition, attributed to {@code rpc} after {@code attempts} calls: a copy that keeps the subclass,
     * its fields and the revision's error table.
     */
    public ReplicationException withContext(Rpc rpc, int attempts) {
        ReplicationException copy = copy();
        copy.rpc = rpc;
        copy.attempts = attempts;
        return copy;
    }

    /**
     * The same condition, read against {@code scheme}: the error table of the spec revision the call was made in
     * ({@link SpecDialect#errorScheme()}), which {@link #recovery()} and {@link #recoveryText()} then read.
     *
     * <pre>{@code
     * throw e.inRevision(SpecDialect.V0_1_3.errorScheme());
     * }</pre>
     */
    public ReplicationException inRevision(ErrorScheme scheme) {
        ReplicationException copy = copy();
        copy.scheme = Objects.requireNonNull(scheme, "scheme");
        return copy;
    }

    /**
     * The same condition, answered to a request that did ({@code forced}) or did not ask for force:
     * {@link #recoveryText()} then leaves out the conditions only an unforced request can meet (a forced promote is
     * not refused for want of force). Without it, the request counts as unforced: every condition is named.
     *
     * <pre>{@code
     * throw e.requestForced(request.force());
     * }</pre>
     */
    public ReplicationException requestForced(boolean forced) {
        ReplicationException copy = copy();
        copy.requestForced = forced;
        return copy;
    }

    private ReplicationException copy() {
        try {
            // A field-for-field copy: every subclass's own fields come along, whatever the subclass.
            return (ReplicationException) clone();
        } catch (CloneNotSupportedException e) {
            throw new AssertionError(e);
        }
    }

    private ErrorScheme scheme() {
        return scheme != null ? scheme : ErrorScheme.spec();
    }

    /** The RPC that failed; null only for an exception a driver created that the runtime has not mapped yet. */
    public Rpc rpc() {
        return rpc;
    }

    /** The gRPC status code. */
    public StatusCode code() {
        return code;
    }

    /** What the spec tells the caller to do, from the {@link ErrorScheme} of the call's revision. */
    public Recovery recovery() {
        return rpc == null ? Recovery.forCode(code) : scheme().recovery(rpc, code);
    }

    /**
     * What the caller should do, from the {@link ErrorScheme} of the call's revision: the spec's recovery text
     * verbatim where the answer can stand for one condition of the table, each condition's recovery where it can stand
     * for several ({@link ErrorScheme#recoveryText(Rpc, StatusCode, boolean)}), a generic phrase outside the table.
     */
    public String recoveryText() {
        return rpc == null ? Recovery.forCode(code).advice() : scheme().recoveryText(rpc, code, requestForced);
    }

    /** How many calls were made before this was raised: 0 when the request never left the process. */
    public int attempts() {
        return attempts;
    }

    // The code and the RPC before the text, for logs; getMessage() stays the plain text an operator is shown.
    @SuppressWarnings("OverrideThrowableToString")
    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + code.display() + (rpc == null ? "" : ", " + rpc.methodName())
                + (attempts > 0 ? ", attempts=" + attempts : "") + "]: " + getMessage();
    }
}
