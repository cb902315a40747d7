package io.volrep.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.volrep.api.Recovery;
import java.time.Duration;
import java.util.Random;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {

    @Test
    void specDefaultsFollowTheErrorScheme() {
        RetryPolicy p = RetryPolicy.spec();
        assertThat(p.action(Recovery.FIX_REQUEST)).isEqualTo(RetryPolicy.Action.FAIL);
        assertThat(p.action(Recovery.NEVER)).isEqualTo(RetryPolicy.Action.FAIL);
        assertThat(p.action(Recovery.INSPECT_LOGS)).isEqualTo(RetryPolicy.Action.FAIL);
        assertThat(p.action(Recovery.ENSURE_PRECONDITION)).isEqualTo(RetryPolicy.Action.FAIL);
        assertThat(p.action(Recovery.BACKOFF)).isEqualTo(RetryPolicy.Action.BACKOFF);
        assertThat(p.action(Recovery.VERIFY_THEN_BACKOFF)).isEqualTo(RetryPolicy.Action.VERIFY_THEN_BACKOFF);
        assertThat(p.action(Recovery.RENEW_SECRETS)).isEqualTo(RetryPolicy.Action.RENEW_THEN_RETRY);
        assertThat(p.maxAttempts()).isEqualTo(5);
        assertThat(p.perAttemptTimeout()).isEqualTo(Duration.ofMinutes(3));
        assertThat(p.jitter()).isEqualTo(RetryPolicy.Jitter.FULL);
        assertThat(RetryPolicy.noRetries().maxAttempts()).isEqualTo(1);
    }

    @Test
    void toBuilderCopiesAndLeavesTheOriginalAlone() {
        RetryPolicy p = RetryPolicy.spec().toBuilder()
                .maxAttempts(8)
                .multiplier(3)
                .onRecovery(Recovery.INSPECT_LOGS, RetryPolicy.Action.BACKOFF)
                .build();
        RetryPolicy q = p.toBuilder().maxAttempts(2).build();
        assertThat(p.maxAttempts()).isEqualTo(8);
        assertThat(q.maxAttempts()).isEqualTo(2);
        assertThat(q.multiplier()).isEqualTo(3);
        assertThat(q.action(Recovery.INSPECT_LOGS)).isEqualTo(RetryPolicy.Action.BACKOFF);
        assertThat(RetryPolicy.spec().action(Recovery.INSPECT_LOGS)).isEqualTo(RetryPolicy.Action.FAIL);
    }

    @Test
    void backoffCapsGrowExponentiallyUpToTheMaximum() {
        RetryPolicy p = RetryPolicy.builder()
                .initialBackoff(Duration.ofMillis(100))
                .multiplier(2)
                .maxBackoff(Duration.ofMillis(500))
                .jitter(RetryPolicy.Jitter.NONE)
                .build();
        assertThat(p.backoff(1)).isEqualTo(Duration.ofMillis(100));
        assertThat(p.backoff(2)).isEqualTo(Duration.ofMillis(200));
        assertThat(p.backoff(3)).isEqualTo(Duration.ofMillis(400));
        assertThat(p.backoff(4)).isEqualTo(Duration.ofMillis(500));
        assertThat(p.backoff(60)).isEqualTo(Duration.ofMillis(500));
        RetryPolicy jittered = p.toBuilder().jitter(RetryPolicy.Jitter.FULL).build();
        for (int i = 1; i < 200; i++) {
            assertThat(jittered.backoff(i % 6 + 1)).isBetween(Duration.ZERO, jittered.backoffCap(i % 6 + 1));
        }
    }

    @Test
    void equalJitterStaysInTheUpperHalfOfTheCapSoGapsGrowStrictly() {
        RetryPolicy p = RetryPolicy.builder()
                .initialBackoff(Duration.ofMillis(100))
                .multiplier(2)
                .maxBackoff(Duration.ofSeconds(10))
                .jitter(RetryPolicy.Jitter.EQUAL)
                .random(new SplittableRandom(42))
                .build();
        for (int round = 0; round < 500; round++) {
            Duration previous = Duration.ofMillis(-1);
            for (int retry = 1; retry <= 6; retry++) {
                Duration cap = p.backoffCap(retry);
                Duration delay = p.backoff(retry);
                assertThat(delay).isGreaterThanOrEqualTo(cap.dividedBy(2)).isLessThan(cap);
                assertThat(delay).as("retry %d after %s", retry, previous).isGreaterThan(previous);
                previous = delay;
            }
        }
        // Both ends are reached: a generator at its minimum gives cap/2, at its maximum cap - 1 ms.
        RetryPolicy low = p.toBuilder()
                .random(new Random() {
                    @Override
                    public long nextLong(long bound) {
                        return 0;
                    }
                })
                .build();
        RetryPolicy high = p.toBuilder()
                .random(new Random() {
                    @Override
                    public long nextLong(long bound) {
                        return bound - 1;
                    }
                })
                .build();
        assertThat(low.backoff(3)).isEqualTo(Duration.ofMillis(200));
        assertThat(high.backoff(3)).isEqualTo(Duration.ofMillis(399));
        assertThat(high.backoff(2)).isLessThan(low.backoff(3));
        assertThat(RetryPolicy.spec().jitter())
                .as("the library default stays full jitter")
                .isEqualTo(RetryPolicy.Jitter.FULL);
    }

    @Test
    void invalidValuesAreRejected() {
        RetryPolicy.Builder b = RetryPolicy.builder();
        assertThatThrownBy(() -> b.maxAttempts(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.multiplier(0.5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.totalTimeout(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.initialBackoff(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.onRecovery(Recovery.NEVER, RetryPolicy.Action.BACKOFF))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("MUST NOT");
        assertThatThrownBy(() -> RetryPolicy.builder()
                        .initialBackoff(Duration.ofSeconds(60))
                        .build())
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void pushbackFollowsTheGrpcConvention() {
        assertThat(RetryDecisions.parsePushback("250")).isEqualTo(250);
        assertThat(RetryDecisions.parsePushback("0")).isZero();
        assertThat(RetryDecisions.parsePushback("-1")).isNegative();
        assertThat(RetryDecisions.parsePushback("later")).isNegative();
    }
}
