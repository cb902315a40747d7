package io.volrep.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.api.Recovery;
import io.volrep.api.StatusCode;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The retry decisions as the pure functions they are: no gRPC, no clock, no threads. */
class RetryDecisionsTest {
    private static final RetryPolicy POLICY =
            RetryPolicy.spec().toBuilder().jitter(RetryPolicy.Jitter.NONE).build();
    private static final Duration PLENTY = Duration.ofMinutes(5);

    private static RetryDecisions.Outcome answer(StatusCode code, Recovery recovery) {
        return answer(code, recovery, null);
    }

    /** An answer the plugin sent (its headers and trailers arrived) to a wait-for-ready attempt. */
    private static RetryDecisions.Outcome answer(StatusCode code, Recovery recovery, String pushback) {
        return new RetryDecisions.Outcome(code, recovery, true, true, true, true, pushback);
    }

    /** A failure the client's own gRPC made up (no trailers from the plugin), to a wait-for-ready attempt. */
    private static RetryDecisions.Outcome local(StatusCode code, boolean waitedForReady, boolean sent) {
        return new RetryDecisions.Outcome(code, Recovery.BACKOFF, waitedForReady, sent, false, false, null);
    }

    private static RetryDecisions.Progress progress(int counted) {
        return RetryDecisions.Progress.builder()
                .source(true)
                .secrets(true)
                .counted(counted)
                .remaining(PLENTY)
                .build();
    }

    @Test
    void backoffAnswersAreRetriedWithTheGrowingCapUntilTheBudgetIsSpent() {
        RetryDecisions.Outcome aborted = answer(StatusCode.ABORTED, Recovery.BACKOFF);
        assertThat(RetryDecisions.decide(POLICY, aborted, progress(1)))
                .isEqualTo(new RetryDecision.Retry(Duration.ofMillis(500), "BACKOFF"));
        assertThat(RetryDecisions.decide(POLICY, aborted, progress(3)))
                .isEqualTo(new RetryDecision.Retry(Duration.ofSeconds(2), "BACKOFF"));
        assertThat(RetryDecisions.decide(POLICY, aborted, progress(5)))
                .isEqualTo(new RetryDecision.Stop("not retried: 5 attempt(s) made (BACKOFF)"));
    }

    @Test
    void unavailableSentByThePluginCountsButAConnectionFailureDoesNot() {
        RetryDecisions.Outcome fromPlugin = answer(StatusCode.UNAVAILABLE, Recovery.BACKOFF);
        RetryDecisions.Outcome connectionLost = local(StatusCode.UNAVAILABLE, true, true);
        RetryDecisions.Outcome neverConnected = local(StatusCode.DEADLINE_EXCEEDED, true, false);
        RetryDecisions.Outcome hungPlugin = local(StatusCode.DEADLINE_EXCEEDED, true, true);
        assertThat(fromPlugin.spendsBudget()).isTrue();
        assertThat(hungPlugin.spendsBudget()).isTrue();
        assertThat(connectionLost.spendsBudget()).isFalse();
        assertThat(neverConnected.spendsBudget()).isFalse();
        // With the budget spent, a connection failure still waits for the plugin (capped pause) ...
        RetryDecisions.Progress spent = RetryDecisions.Progress.builder()
                .source(true)
                .secrets(true)
                .counted(5)
                .connectionWaits(7)
                .remaining(PLENTY)
                .build();
        assertThat(RetryDecisions.decide(POLICY, connectionLost, spent))
                .isEqualTo(new RetryDecision.Retry(
                        RetryDecisions.CONNECTION_RETRY_CAP, "waiting for the plugin, attempt not counted"));
        // ... the last pause cut to what is left, until the total timeout.
        RetryDecisions.Progress late = RetryDecisions.Progress.builder()
                .source(true)
                .secrets(true)
                .counted(1)
                .connectionWaits(7)
                .remaining(Duration.ofMillis(10))
                .build();
        assertThat(RetryDecisions.decide(POLICY, neverConnected, late))
                .isEqualTo(
                        new RetryDecision.Retry(Duration.ofMillis(10), "waiting for the plugin, attempt not counted"));
        RetryDecisions.Progress over = RetryDecisions.Progress.builder()
                .source(true)
                .secrets(true)
                .counted(1)
                .connectionWaits(8)
                .remaining(Duration.ZERO)
                .build();
        assertThat(RetryDecisions.decide(POLICY, neverConnected, over))
                .isEqualTo(new RetryDecision.Stop(
                        "not retried: the plugin could not be reached within the total timeout of PT10M"));
        // ... while a fail-fast policy (its attempts do not wait for a connection) counts it like an answer.
        RetryPolicy failFast = POLICY.toBuilder().failFast(true).build();
        RetryDecisions.Outcome lostFailingFast = local(StatusCode.UNAVAILABLE, false, true);
        assertThat(lostFailingFast.spendsBudget()).isTrue();
        assertThat(RetryDecisions.decide(failFast, lostFailingFast, spent))
                .isEqualTo(new RetryDecision.Stop("not retried: 5 attempt(s) made (BACKOFF)"));
    }

    @Test
    void tableActionsAndTheirFollowUps() {
        assertThat(RetryDecisions.decide(
                        POLICY, answer(StatusCode.FAILED_PRECONDITION, Recovery.ENSURE_PRECONDITION), progress(1)))
                .isEqualTo(new RetryDecision.Stop("not retried (ENSURE_PRECONDITION)"));
        RetryDecisions.Outcome notFound = answer(StatusCode.NOT_FOUND, Recovery.VERIFY_THEN_BACKOFF);
        assertThat(RetryDecisions.decide(POLICY, notFound, progress(1)))
                .isEqualTo(new RetryDecision.Stop("not retried: no SourceVerifier configured (VERIFY_THEN_BACKOFF)"));
        RetryDecisions.Progress withVerifier = RetryDecisions.Progress.builder()
                .source(true)
                .secrets(true)
                .counted(1)
                .verifier(true)
                .remaining(PLENTY)
                .build();
        RetryDecision verify = RetryDecisions.decide(POLICY, notFound, withVerifier);
        assertThat(verify).isEqualTo(new RetryDecision.VerifySource(Optional.empty()));
        assertThat(RetryDecisions.afterVerification(
                        POLICY, true, (RetryDecision.VerifySource) verify, notFound, withVerifier))
                .isEqualTo(new RetryDecision.Retry(Duration.ofMillis(500), "VERIFY_THEN_BACKOFF, source verified"));
        assertThat(RetryDecisions.afterVerification(
                        POLICY, false, (RetryDecision.VerifySource) verify, notFound, withVerifier))
                .isInstanceOf(RetryDecision.Stop.class);

        RetryDecisions.Outcome unauthenticated = answer(StatusCode.UNAUTHENTICATED, Recovery.RENEW_SECRETS, "25");
        RetryDecision renew = RetryDecisions.decide(POLICY, unauthenticated, progress(1));
        assertThat(renew).isEqualTo(new RetryDecision.RenewSecrets(Optional.of(Duration.ofMillis(25))));
        assertThat(RetryDecisions.afterRenewal(
                        POLICY,
                        RetryDecisions.Renewal.NEW,
                        (RetryDecision.RenewSecrets) renew,
                        unauthenticated,
                        progress(1)))
                .isEqualTo(new RetryDecision.Retry(Duration.ofMillis(25), "RENEW_SECRETS, secrets renewed"));
        assertThat(RetryDecisions.afterRenewal(
                        POLICY,
                        RetryDecisions.Renewal.TOO_LARGE,
                        (RetryDecision.RenewSecrets) renew,
                        unauthenticated,
                        progress(1)))
                .isEqualTo(new RetryDecision.Stop("not retried: renewed secrets exceed the CSI limit"));
        RetryDecisions.Progress renewedOnce = RetryDecisions.Progress.builder()
                .source(true)
                .secrets(true)
                .counted(2)
                .renewed(true)
                .remaining(PLENTY)
                .build();
        assertThat(RetryDecisions.decide(POLICY, unauthenticated, renewedOnce))
                .isEqualTo(new RetryDecision.Stop("not retried: secrets were renewed once already"));
        RetryDecisions.Progress ownSecrets = RetryDecisions.Progress.builder()
                .source(true)
                .secrets(true)
                .counted(1)
                .ownSecrets(true)
                .remaining(PLENTY)
                .build();
        assertThat(RetryDecisions.decide(POLICY, unauthenticated, ownSecrets))
                .isEqualTo(new RetryDecision.Stop("not retried: the call's own secrets cannot be renewed"));
    }

    @Test
    void aCallWithoutASourceNeitherVerifiesNorRenews() {
        // An Identity call under a policy that would verify or renew after its INSPECT_LOGS codes.
        RetryPolicy eager = POLICY.toBuilder()
                .onRecovery(Recovery.INSPECT_LOGS, RetryPolicy.Action.VERIFY_THEN_BACKOFF)
                .build();
        RetryDecisions.Progress noSource = RetryDecisions.Progress.builder()
                .counted(1)
                .verifier(true)
                .remaining(PLENTY)
                .build();
        assertThat(RetryDecisions.decide(eager, answer(StatusCode.NOT_FOUND, Recovery.INSPECT_LOGS), noSource))
                .isEqualTo(new RetryDecision.Stop("not retried: the call concerns no source to verify (INSPECT_LOGS)"));
        RetryPolicy renewing = POLICY.toBuilder()
                .onRecovery(Recovery.INSPECT_LOGS, RetryPolicy.Action.RENEW_THEN_RETRY)
                .build();
        assertThat(RetryDecisions.decide(renewing, answer(StatusCode.UNAUTHENTICATED, Recovery.INSPECT_LOGS), noSource))
                .isEqualTo(new RetryDecision.Stop("not retried: the call sends no secrets to renew (INSPECT_LOGS)"));
        // Back-off still applies: a transport failure of an Identity call is retried like any other.
        assertThat(RetryDecisions.decide(POLICY, answer(StatusCode.UNAVAILABLE, Recovery.BACKOFF), noSource))
                .isEqualTo(new RetryDecision.Retry(Duration.ofMillis(500), "BACKOFF"));
    }

    @Test
    void aCallWithoutASourceThatSendsThePluginsSecretsRenewsThemButVerifiesNothing() {
        // CreateVolumeGroup and ListVolumeGroups: no source (the group has no id yet, or none is named), secrets sent.
        RetryDecisions.Progress pluginSecrets = RetryDecisions.Progress.builder()
                .secrets(true)
                .counted(1)
                .verifier(true)
                .remaining(PLENTY)
                .build();
        assertThat(RetryDecisions.decide(
                        POLICY, answer(StatusCode.UNAUTHENTICATED, Recovery.RENEW_SECRETS), pluginSecrets))
                .isEqualTo(new RetryDecision.RenewSecrets(Optional.empty()));
        assertThat(RetryDecisions.decide(
                        POLICY, answer(StatusCode.NOT_FOUND, Recovery.VERIFY_THEN_BACKOFF), pluginSecrets))
                .isEqualTo(new RetryDecision.Stop(
                        "not retried: the call concerns no source to verify" + " (VERIFY_THEN_BACKOFF)"));
    }

    @Test
    void pushbackCancellationTheInboundLimitAndTheTotalTimeoutStop() {
        RetryDecisions.Outcome negativePushback = answer(StatusCode.ABORTED, Recovery.BACKOFF, "-1");
        assertThat(RetryDecisions.decide(POLICY, negativePushback, progress(1)))
                .isEqualTo(new RetryDecision.Stop("not retried: the plugin's retry pushback says stop"));
        // The plugin's headers came, then the client's own gRPC refused the response (no trailers from the plugin).
        RetryDecisions.Outcome tooLarge = new RetryDecisions.Outcome(
                StatusCode.RESOURCE_EXHAUSTED, Recovery.BACKOFF, true, true, true, false, null);
        assertThat(RetryDecisions.decide(POLICY, tooLarge, progress(1)))
                .isEqualTo(new RetryDecision.Stop("not retried: the response exceeds the client's own limit"));
        RetryDecisions.Progress cancelled = RetryDecisions.Progress.builder()
                .source(true)
                .secrets(true)
                .counted(1)
                .cancelled(true)
                .remaining(PLENTY)
                .build();
        assertThat(RetryDecisions.decide(POLICY, answer(StatusCode.ABORTED, Recovery.BACKOFF), cancelled))
                .isEqualTo(new RetryDecision.Stop("call cancelled"));
        RetryDecisions.Progress late = RetryDecisions.Progress.builder()
                .source(true)
                .secrets(true)
                .counted(1)
                .remaining(Duration.ofMillis(499))
                .build();
        assertThat(RetryDecisions.decide(POLICY, answer(StatusCode.ABORTED, Recovery.BACKOFF), late))
                .isEqualTo(new RetryDecision.Stop(
                        "not retried: the next attempt would start after the total timeout of PT10M"));
    }

    @Test
    void resyncPollsUseTheCapWithoutJitterUntilTheTimeout() {
        assertThat(RetryDecisions.pollAgain(POLICY, 2, PLENTY))
                .isEqualTo(new RetryDecision.Retry(Duration.ofSeconds(1), "not ready yet"));
        assertThat(RetryDecisions.pollAgain(POLICY, 2, Duration.ofMillis(900))).isInstanceOf(RetryDecision.Stop.class);
    }

    @Test
    void policiesWithTheSameSettingsAreEqual() {
        RetryPolicy a = RetryPolicy.builder().maxAttempts(7).failFast(true).build();
        RetryPolicy b =
                RetryPolicy.spec().toBuilder().maxAttempts(7).failFast(true).build();
        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
        assertThat(RetryPolicy.builder().build()).isEqualTo(RetryPolicy.spec());
        assertThat(a)
                .isNotEqualTo(b.toBuilder().failFast(false).build())
                .isNotEqualTo(b.toBuilder()
                        .onRecovery(Recovery.INSPECT_LOGS, RetryPolicy.Action.BACKOFF)
                        .build());
        assertThat(RetryPolicy.spec().failFast()).isFalse();
    }
}
