package io.volrep.client;

import java.time.Duration;
import java.util.Optional;

/**
 * What the client does after a failed attempt, as decided by {@link RetryDecisions}: one of four answers, so the
 * engine that carries it out (the {@link RetryLoop}, the secrets provider, the source verifier) holds no
 * policy of its own.
 */
sealed interface RetryDecision {

    /**
     * Make another attempt after {@code delay}. Whether the failed attempt spent the attempt budget is not a decision
     * but a fact of the attempt ({@link RetryDecisions.Outcome#spendsBudget()}).
     */
    record Retry(Duration delay, String reason) implements RetryDecision {}

    /** Ask {@link SecretsProvider#renew} first; then {@link RetryDecisions#afterRenewal} decides. */
    record RenewSecrets(Optional<Duration> pushback) implements RetryDecision {}

    /** Ask the {@link SourceVerifier} first; then {@link RetryDecisions#afterVerification} decides. */
    record VerifySource(Optional<Duration> pushback) implements RetryDecision {}

    /** Surface the attempt's error; {@code reason} says why no retry follows. */
    record Stop(String reason) implements RetryDecision {}
}
