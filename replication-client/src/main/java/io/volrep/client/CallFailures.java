package io.volrep.client;

import io.grpc.Status;
import io.volrep.api.ErrorScheme;
import io.volrep.api.PreconditionFailedException;
import io.volrep.api.ProtocolViolationException;
import io.volrep.api.ReplicationException;
import io.volrep.api.Rpc;
import io.volrep.api.Secrets;
import io.volrep.api.StatusCode;
import java.util.Optional;

/**
 * The words of a failed call: turns an attempt's outcome into the {@link ReplicationException} its caller gets.
 * Pure formatting: what happened is decided from facts before ({@link RetryDecisions.Outcome}); gRPC's own text
 * appears only as quoted detail, never as what the message claims.
 */
final class CallFailures {
    private final String target;
    private final int maxInboundMessageSize;
    private final ErrorScheme scheme;

    CallFailures(String target, int maxInboundMessageSize, ErrorScheme scheme) {
        this.target = target;
        this.maxInboundMessageSize = maxInboundMessageSize;
        this.scheme = scheme;
    }

    /** How messages name a call: {@code PromoteVolume for volume pvc-1}, or {@code identity.Identity/Probe}. */
    static String subject(CallSpec spec) {
        return spec.subject();
    }

    /** A plugin that broke the gRPC protocol ({@code what}) has a bug: surfaced at once, never retried. */
    ReplicationException violation(CallSpec spec, String what, int attempt) {
        return new ProtocolViolationException(subject(spec) + ": " + what, spec.rpc(), attempt).inRevision(scheme);
    }

    /**
     * The exception of a call whose last attempt ({@code attempt}) failed with {@code status}.
     *
     * @param secrets the secrets the attempt sent: replaced by {@code ***} where the plugin's text repeats them
     * @param unreachable why the target cannot be reached, when the attempt never reached the plugin and looking
     *        found a reason (no such socket file, connection refused, permission denied, ...)
     */
    ReplicationException failed(
            CallSpec spec,
            RetryDecisions.Outcome outcome,
            Status status,
            int attempt,
            Secrets secrets,
            Optional<String> unreachable) {
        Rpc rpc = spec.rpc();
        StatusCode answered = outcome.code();
        // A code the table also accepts for a row (upstream's 7 for CreateVolumeGroup's 9) is reported as the row's.
        StatusCode code = scheme.canonical(rpc, answered);
        String description = secrets.scrub(status.getDescription());
        StringBuilder message = new StringBuilder()
                .append(subject(spec))
                .append(" failed with ")
                .append(answered.display());
        if (code != answered) {
            message.append(" (read as ")
                    .append(code.display())
                    .append(", as ")
                    .append(rpc.methodName())
                    .append("'s table has it)");
        }
        if (outcome.refusedByClient()) {
            message = new StringBuilder(subject(spec))
                    .append(": the response is larger than the client's inbound" + " message limit of ")
                    .append(maxInboundMessageSize)
                    .append(" bytes (")
                    .append(description)
                    .append("); raise the limit with ReplicationClient.Builder.maxInboundMessageSize");
        } else if (code == StatusCode.UNIMPLEMENTED && rpc.isIdentity()) {
            // Not "this call failed" but "no Identity service": the plugin may still serve replication.
            message = new StringBuilder("the plugin does not serve the CSI-Addons Identity service (")
                    .append(code.display())
                    .append(" from ")
                    .append(rpc.fullMethodName())
                    .append(')');
        } else if (outcome.connectionFailure()) {
            // Not the plugin's answer: say which plugin could not be reached, and why.
            message.append(": no answer from the plugin at ")
                    .append(target)
                    .append(noAnswer(outcome, description, unreachable));
        } else if (description != null && !description.isEmpty()) {
            message.append(": ").append(description);
        }
        // What the request asked narrows what the answer can mean (a forced promote is not refused for want of force).
        boolean forced = spec instanceof RequestSpec request && request.force();
        if (code == StatusCode.FAILED_PRECONDITION) {
            message.append(" (precondition: ")
                    .append(scheme.recoveryText(rpc, code, forced))
                    .append(')');
        }
        ReplicationException e = ReplicationException.of(code, message.toString(), rpc, attempt, status.getCause())
                .inRevision(scheme)
                .requestForced(forced);
        assert !(e instanceof PreconditionFailedException) || code == StatusCode.FAILED_PRECONDITION;
        return e;
    }

    /** What became of an attempt that never had an answer, and the reason found by looking, else gRPC's words. */
    private static String noAnswer(RetryDecisions.Outcome outcome, String description, Optional<String> unreachable) {
        String what;
        if (!outcome.sent() && outcome.waitedForReady()) {
            what = " within the call's deadline: it waited for the plugin to accept connections";
        } else if (!outcome.sent()) {
            what = ": no connection";
        } else {
            what = ": the connection was lost before the plugin answered";
        }
        if (unreachable.isPresent()) {
            return what + " (" + unreachable.get() + ")";
        }
        if (description == null || description.isEmpty() || (!outcome.sent() && outcome.waitedForReady())) {
            // A wait-for-ready deadline's text is a dump of gRPC's load balancer state: nothing to quote.
            return what;
        }
        // gRPC's transport text can carry a whole stack trace (the last pick failure's cause): one line.
        int newline = description.indexOf('\n');
        return what + " (gRPC: "
                + (newline < 0 ? description : description.substring(0, newline).strip() + " ...") + ")";
    }
}
