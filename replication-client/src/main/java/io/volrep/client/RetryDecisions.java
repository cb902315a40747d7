package io.volrep.client;

import io.volrep.api.Recovery;
import io.volrep.api.StatusCode;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The client's retry decisions as pure functions: given how an attempt ended ({@link Outcome}) and where the
 * call stands ({@link Progress}), what to do next ({@link RetryDecision}). No gRPC, no clock, no threads: the
 * {@link AttemptRunner} measures, these decide, the {@link RetryLoop} carries out (it schedules the next attempt on
 * the client's scheduler). {@link ResyncCall#awaitReady} asks {@link #pollAgain} the same way.
 */
final class RetryDecisions {
    /**
     * The longest pause between two tries to reach a plugin that is not there. Short, because a waiting call
     * waits on the channel anyway (gRPC's wait-for-ready); the pause only keeps a plugin that accepts and
     * drops connections from being hammered.
     */
    static final Duration CONNECTION_RETRY_CAP = Duration.ofSeconds(1);

    private RetryDecisions() {}

    /**
     * How one attempt failed, in facts the attempt runner observed (never gRPC's message text): the final code, who
     * made it, and how far the request got. Pinned against grpc-java by {@code GrpcFactsTest}.
     *
     * @param code the final status
     * @param recovery the spec's recovery class for the code in the call's revision
     * @param waitedForReady the attempt was sent wait-for-ready: it waited for a connection instead of failing
     * @param sent the request went out on a connection (gRPC created the stream on a transport)
     * @param answered the plugin answered something (its headers or trailers arrived)
     * @param pluginStatus the final status is the plugin's (it arrived in the plugin's trailers), not one the client's
     *        own gRPC made up (a deadline, a lost connection, its own inbound limit)
     * @param pushback the plugin's {@code grpc-retry-pushback-ms} trailer, or null
     */
    record Outcome(
            StatusCode code,
            Recovery recovery,
            boolean waitedForReady,
            boolean sent,
            boolean answered,
            boolean pluginStatus,
            String pushback) {

        /**
         * The plugin could not be reached, or the connection was lost before it answered: UNAVAILABLE from the
         * transport, or a deadline that expired before the request could be sent. Not an answer from the plugin.
         */
        boolean connectionFailure() {
            return !answered && (code == StatusCode.UNAVAILABLE || (code == StatusCode.DEADLINE_EXCEEDED && !sent));
        }

        /**
         * The client's own gRPC refused what the plugin sent for one of its limits (8 RESOURCE_EXHAUSTED that the
         * plugin did not send: its inbound message size): the same answer would be refused again.
         */
        boolean refusedByClient() {
            return code == StatusCode.RESOURCE_EXHAUSTED && !pluginStatus;
        }

        /**
         * Whether this attempt spends the attempt budget ({@link RetryPolicy#maxAttempts()}): every attempt does,
         * except one that waited for a connection (wait-for-ready, the default unless the policy fails fast) and
         * never reached the plugin. The one place this is decided; the loop counts by it, the decisions read it.
         */
        boolean spendsBudget() {
            return !(waitedForReady && connectionFailure());
        }
    }

    /**
     * Where the call stands after the attempt, and what it has to recover with: a named value, built by name.
     *
     * <pre>{@code
     * Progress p = Progress.builder().source(true).secrets(true).counted(2).remaining(Duration.ofMinutes(1)).build();
     * }</pre>
     */
    static final class Progress {
        private final boolean source;
        private final boolean secrets;
        private final boolean ownSecrets;
        private final boolean verifier;
        private final int counted;
        private final int connectionWaits;
        private final boolean renewed;
        private final boolean cancelled;
        private final Duration remaining;

        private Progress(Builder b) {
            this.source = b.source;
            this.secrets = b.secrets;
            this.ownSecrets = b.ownSecrets;
            this.verifier = b.verifier;
            this.counted = b.counted;
            this.connectionWaits = b.connectionWaits;
            this.renewed = b.renewed;
            this.cancelled = b.cancelled;
            this.remaining = Objects.requireNonNull(b.remaining, "remaining");
        }

        static Builder builder() {
            return new Builder();
        }

        /** The call concerns a source (an Identity call does not: nothing to verify). */
        boolean source() {
            return source;
        }

        /** The call sends secrets, its source's or the plugin's (an Identity call does not: none to renew). */
        boolean secrets() {
            return secrets;
        }

        /** The call carries its own secrets (nothing to renew). */
        boolean ownSecrets() {
            return ownSecrets;
        }

        /** A {@link SourceVerifier} is configured. */
        boolean verifier() {
            return verifier;
        }

        /** Attempts that spent the budget, this one included when it counts. */
        int counted() {
            return counted;
        }

        /** Attempts that did not reach the plugin so far, this one included when it is one. */
        int connectionWaits() {
            return connectionWaits;
        }

        /** The secrets were renewed once already. */
        boolean renewed() {
            return renewed;
        }

        /** The caller cancelled the call, or the client was closed. */
        boolean cancelled() {
            return cancelled;
        }

        /** What is left of the total timeout. */
        Duration remaining() {
            return remaining;
        }

        /** Builds a {@link Progress}; everything false or 0 until set, {@code remaining} required. */
        static final class Builder {
            private boolean source;
            private boolean secrets;
            private boolean ownSecrets;
            private boolean verifier;
            private int counted;
            private int connectionWaits;
            private boolean renewed;
            private boolean cancelled;
            private Duration remaining;

            private Builder() {}

            Builder source(boolean source) {
                this.source = source;
                return this;
            }

            Builder secrets(boolean secrets) {
                this.secrets = secrets;
                return this;
            }

            Builder ownSecrets(boolean ownSecrets) {
                this.ownSecrets = ownSecrets;
                return this;
            }

            Builder verifier(boolean verifier) {
                this.verifier = verifier;
                return this;
            }

            Builder counted(int counted) {
                this.counted = counted;
                return this;
            }

            Builder connectionWaits(int connectionWaits) {
                this.connectionWaits = connectionWaits;
                return this;
            }

            Builder renewed(boolean renewed) {
                this.renewed = renewed;
                return this;
            }

            Builder cancelled(boolean cancelled) {
                this.cancelled = cancelled;
                return this;
            }

            Builder remaining(Duration remaining) {
                this.remaining = remaining;
                return this;
            }

            Progress build() {
                return new Progress(this);
            }
        }
    }

    /** What {@link SecretsProvider#renew} gave. */
    enum Renewal {
        /** Nothing, an error, or the same secrets. */
        NOTHING_NEW,
        /** New secrets over the CSI size limit. */
        TOO_LARGE,
        /** New secrets. */
        NEW
    }

    /** The decision after a failed attempt. */
    static RetryDecision decide(RetryPolicy policy, Outcome outcome, Progress progress) {
        if (progress.cancelled()) {
            return new RetryDecision.Stop("call cancelled");
        }
        if (outcome.refusedByClient()) {
            return new RetryDecision.Stop("not retried: the response exceeds the client's own limit");
        }
        if (!outcome.spendsBudget()) {
            // Waiting for the plugin uses the whole total timeout: the last wait is cut short, not skipped.
            if (progress.remaining().isNegative() || progress.remaining().isZero()) {
                return new RetryDecision.Stop("not retried: the plugin could not be reached within the total "
                        + "timeout of " + policy.totalTimeout());
            }
            Duration delay =
                    min(min(policy.backoff(progress.connectionWaits()), CONNECTION_RETRY_CAP), progress.remaining());
            return new RetryDecision.Retry(delay, "waiting for the plugin, attempt not counted");
        }
        Recovery recovery = outcome.recovery();
        if (progress.counted() >= policy.maxAttempts()) {
            return new RetryDecision.Stop(
                    "not retried: " + policy.maxAttempts() + " attempt(s) made (" + recovery + ")");
        }
        Optional<Duration> pushback = Optional.empty();
        if (outcome.pushback() != null) {
            long millis = parsePushback(outcome.pushback());
            if (millis < 0) {
                return new RetryDecision.Stop("not retried: the plugin's retry pushback says stop");
            }
            pushback = Optional.of(Duration.ofMillis(millis));
        }
        return switch (policy.action(recovery)) {
            case FAIL -> new RetryDecision.Stop("not retried (" + recovery + ")");
            case BACKOFF ->
                retryIfInTime(
                        policy,
                        pushback.orElseGet(() -> policy.backoff(progress.counted())),
                        recovery.name(),
                        progress);
            case VERIFY_THEN_BACKOFF ->
                !progress.source()
                        ? new RetryDecision.Stop(
                                "not retried: the call concerns no source to verify (" + recovery + ")")
                        : progress.verifier()
                                ? new RetryDecision.VerifySource(pushback)
                                : new RetryDecision.Stop(
                                        "not retried: no SourceVerifier configured (" + recovery + ")");
            case RENEW_THEN_RETRY -> {
                if (!progress.secrets()) {
                    yield new RetryDecision.Stop("not retried: the call sends no secrets to renew (" + recovery + ")");
                }
                if (progress.ownSecrets()) {
                    yield new RetryDecision.Stop("not retried: the call's own secrets cannot be renewed");
                }
                if (progress.renewed()) {
                    yield new RetryDecision.Stop("not retried: secrets were renewed once already");
                }
                yield new RetryDecision.RenewSecrets(pushback);
            }
        };
    }

    /** The decision once the {@link SourceVerifier} answered a {@link RetryDecision.VerifySource}. */
    static RetryDecision afterVerification(
            RetryPolicy policy,
            boolean approved,
            RetryDecision.VerifySource asked,
            Outcome outcome,
            Progress progress) {
        if (!approved) {
            return new RetryDecision.Stop("not retried: SourceVerifier did not approve the source");
        }
        return retryIfInTime(
                policy,
                asked.pushback().orElseGet(() -> policy.backoff(progress.counted())),
                outcome.recovery() + ", source verified",
                progress);
    }

    /** The decision once {@link SecretsProvider#renew} answered a {@link RetryDecision.RenewSecrets}. */
    static RetryDecision afterRenewal(
            RetryPolicy policy, Renewal renewal, RetryDecision.RenewSecrets asked, Outcome outcome, Progress progress) {
        return switch (renewal) {
            case NEW ->
                retryIfInTime(
                        policy,
                        asked.pushback().orElse(Duration.ZERO),
                        outcome.recovery() + ", secrets renewed",
                        progress);
            case TOO_LARGE -> new RetryDecision.Stop("not retried: renewed secrets exceed the CSI limit");
            case NOTHING_NEW -> new RetryDecision.Stop("not retried: SecretsProvider gave no new secrets");
        };
    }

    /**
     * For {@link ResyncCall#awaitReady}: after poll {@code polls} answered "not ready", poll again after the
     * policy's capped back-off (no jitter), or stop when that would end after the {@code remaining} time.
     */
    static RetryDecision pollAgain(RetryPolicy policy, int polls, Duration remaining) {
        Duration delay = policy.backoffCap(polls);
        if (delay.compareTo(remaining) >= 0) {
            return new RetryDecision.Stop("not ready within the timeout (" + polls + " poll(s))");
        }
        return new RetryDecision.Retry(delay, "not ready yet");
    }

    private static RetryDecision retryIfInTime(RetryPolicy policy, Duration delay, String reason, Progress progress) {
        if (delay.compareTo(progress.remaining()) >= 0) {
            return new RetryDecision.Stop(
                    "not retried: the next attempt would start after the total timeout of " + policy.totalTimeout());
        }
        return new RetryDecision.Retry(delay, reason);
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    /** gRPC's convention: a non-negative integer delays the retry; anything else means "do not retry". */
    static long parsePushback(String text) {
        try {
            long millis = Long.parseLong(text.trim());
            return millis < 0 ? -1 : millis;
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
