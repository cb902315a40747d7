package io.volrep.api;

/**
 * What the spec tells a caller to do after an error: the recovery classes of the error scheme.
 *
 * <p>The client's default retry policy and the testkit's expectations are derived from these classes,
 * via {@link ErrorScheme}:
 * <pre>{@code
 * Recovery r = ErrorScheme.spec().recovery(Rpc.PROMOTE_VOLUME, StatusCode.ABORTED); // BACKOFF
 * }</pre>
 */
public enum Recovery {
    /** The caller MUST fix the request; never retried. */
    FIX_REQUEST("fix the request, then retry"),
    /** Verify the source exists and is accessible, then retry with exponential back-off. */
    VERIFY_THEN_BACKOFF("verify the source, then retry with exponential back-off"),
    /** The caller SHOULD establish the RPC's precondition; not retried as is. */
    ENSURE_PRECONDITION("ensure the RPC's precondition, then call again"),
    /** Retry with exponential back-off (ABORTED and the transport codes). */
    BACKOFF("retry with exponential back-off"),
    /** MUST NOT retry (UNIMPLEMENTED). */
    NEVER("do not retry"),
    /** Fix or renew the secrets, then MAY retry. */
    RENEW_SECRETS("renew the secrets, then retry"),
    /** MUST study the logs before retrying. */
    INSPECT_LOGS("study the plugin's logs before retrying");

    private final String advice;

    Recovery(String advice) {
        this.advice = advice;
    }

    /** A short imperative phrase for messages, e.g. "retry with exponential back-off". */
    public String advice() {
        return advice;
    }

    /**
     * The class a code belongs to regardless of RPC. The spec's tables agree on this for every RPC;
     * codes the tables never use are classed {@link #INSPECT_LOGS}, like UNKNOWN.
     */
    public static Recovery forCode(StatusCode code) {
        return switch (code) {
            case INVALID_ARGUMENT -> FIX_REQUEST;
            case NOT_FOUND -> VERIFY_THEN_BACKOFF;
            case FAILED_PRECONDITION -> ENSURE_PRECONDITION;
            case ABORTED, UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED -> BACKOFF;
            case UNIMPLEMENTED -> NEVER;
            case UNAUTHENTICATED -> RENEW_SECRETS;
            default -> INSPECT_LOGS;
        };
    }
}
