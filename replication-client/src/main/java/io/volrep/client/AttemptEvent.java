package io.volrep.client;

import io.volrep.api.Recovery;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.api.internal.Arguments;
import java.time.Duration;
import java.util.Optional;

/**
 * One attempt of a call, as {@link AttemptListener}s see it. Carries no request content, so no secret.
 *
 * @param rpc the RPC
 * @param source the replication source; empty for the Identity RPCs, which concern the plugin itself
 * @param attempt the attempt number, 1 for the first call
 * @param code the attempt's outcome ({@link StatusCode#OK} on success)
 * @param recovery the spec's recovery class for the code; empty on success
 * @param retryDelay the delay chosen before the next attempt; empty when no retry follows
 * @param decision a short human-readable reason, e.g. {@code "BACKOFF"} for a retry or {@code "not retried (ENSURE_PRECONDITION)"}
 */
public record AttemptEvent(
        Rpc rpc,
        Optional<ReplicationSource> source,
        int attempt,
        StatusCode code,
        Optional<Recovery> recovery,
        Optional<Duration> retryDelay,
        String decision) {
    public AttemptEvent {
        Arguments.requireNonNull(
                "rpc",
                rpc,
                "source",
                source,
                "code",
                code,
                "recovery",
                recovery,
                "retryDelay",
                retryDelay,
                "decision",
                decision);
    }

    /** True when another attempt will follow. */
    public boolean willRetry() {
        return retryDelay.isPresent();
    }

    /**
     * One line for logs, e.g. {@code "PromoteVolume volume pvc-1 attempt 2: 10 ABORTED -> retry in 412 ms (BACKOFF)"},
     * {@code "PromoteVolume volume pvc-1 attempt 1: 9 FAILED_PRECONDITION -> not retried (ENSURE_PRECONDITION)"}
     * or, without a source, {@code "Probe attempt 1: 14 UNAVAILABLE -> retry in 96 ms (BACKOFF)"}.
     */
    public String describe() {
        String head =
                rpc.methodName() + source.map(s -> " " + s).orElse("") + " attempt " + attempt + ": " + code.display();
        if (code == StatusCode.OK) {
            return head;
        }
        return head + " -> "
                + retryDelay
                        .map(d -> "retry in " + d.toMillis() + " ms (" + decision + ")")
                        .orElse(decision);
    }
}
