package io.volrep.api;

/**
 * 9 FAILED_PRECONDITION: the RPC's precondition does not hold (replication not enabled, source not
 * demoted for resync, not promoted for info). {@link #precondition()} states what the spec asks the
 * caller to ensure for this RPC.
 *
 * <pre>{@code
 * throw new PreconditionFailedException("replication is not enabled for volume vol-1");
 * }</pre>
 */
public class PreconditionFailedException extends ReplicationException {
    private static final long serialVersionUID = 1L;

    public PreconditionFailedException(String message) {
        this(message, null, 0, null);
    }

    public PreconditionFailedException(String message, Throwable cause) {
        this(message, null, 0, cause);
    }

    /** Full form, used by the runtime and the client to attribute the condition to an RPC. */
    public PreconditionFailedException(String message, Rpc rpc, int attempts, Throwable cause) {
        super(StatusCode.FAILED_PRECONDITION, message, rpc, attempts, cause);
    }

    /** The spec's precondition for this RPC, e.g. for ResyncVolume "ensure that Replication is enabled and ... demoted". */
    public String precondition() {
        return recoveryText();
    }
}
