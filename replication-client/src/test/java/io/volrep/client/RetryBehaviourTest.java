package io.volrep.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.volrep.api.DeadlineExceededException;
import io.volrep.api.InvalidArgumentException;
import io.volrep.api.OperationPendingException;
import io.volrep.api.PreconditionFailedException;
import io.volrep.api.Recovery;
import io.volrep.api.ReplicationException;
import io.volrep.api.ResourceExhaustedException;
import io.volrep.api.Rpc;
import io.volrep.api.Secrets;
import io.volrep.api.SourceNotFoundException;
import io.volrep.api.StatusCode;
import io.volrep.api.UnauthenticatedException;
import io.volrep.api.UnavailableException;
import io.volrep.api.UnimplementedException;
import io.volrep.api.UnknownErrorException;
import io.volrep.client.ScriptedPlugin.Outcome;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.random.RandomGenerator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class RetryBehaviourTest {
    /** Deterministic, short back-offs: 20, 40, 80 ms ... */
    static final RetryPolicy FAST = RetryPolicy.spec().toBuilder()
            .initialBackoff(Duration.ofMillis(20)).multiplier(2).maxBackoff(Duration.ofMillis(200))
            .jitter(RetryPolicy.Jitter.NONE).maxAttempts(5).build();

    final List<AttemptEvent> events = Collections.synchronizedList(new ArrayList<>());
    ScriptedPlugin plugin;
    ReplicationClient client;

    @AfterEach
    void tearDown() throws Exception {
        if (client != null) {
            client.close();
        }
        if (plugin != null) {
            plugin.close();
        }
    }

    ReplicationClient client(RetryPolicy policy) {
        return client(ReplicationClient.builder().retry(policy));
    }

    ReplicationClient client(ReplicationClient.Builder builder) {
        client = builder.target(plugin.target()).listener(events::add).build();
        return client;
    }

    List<Long> retryDelaysMillis() {
        synchronized (events) {
            return events.stream().filter(AttemptEvent::willRetry).map(e -> e.retryDelay().get().toMillis()).toList();
        }
    }

    void abortedThreeTimesThenOk() {
        RetryPolicy policy = FAST.toBuilder().initialBackoff(Duration.ofMillis(100))
                .maxBackoff(Duration.ofSeconds(1)).build();
        client(policy).volume("vol-1").info(); // connects and warms up, so the gaps measure only the back-off
        events.clear();
        plugin.script(Rpc.PROMOTE_VOLUME, Outcome.fail(Status.Code.ABORTED), Outcome.fail(Status.Code.ABORTED),
                Outcome.fail(Status.Code.ABORTED));
        client.volume("vol-1").promote().call();

        var calls = plugin.calls(Rpc.PROMOTE_VOLUME);
        assertThat(calls).hasSize(4);
        assertThat(retryDelaysMillis()).containsExactly(100L, 200L, 400L);
        List<Long> gaps = new ArrayList<>();
        for (int i = 1; i < calls.size(); i++) {
            gaps.add((calls.get(i).nanoTime() - calls.get(i - 1).nanoTime()) / 1_000_000);
        }
        // Each gap is at least the chosen delay, and the delays double: the gaps grow.
        assertThat(gaps.get(0)).isGreaterThanOrEqualTo(100);
        assertThat(gaps.get(1)).isGreaterThanOrEqualTo(200);
        assertThat(gaps.get(2)).isGreaterThanOrEqualTo(400).isGreaterThan(gaps.get(1));
        AttemptEvent last = events.get(events.size() - 1);
        assertThat(last.attempt()).isEqualTo(4);
        assertThat(last.code()).isEqualTo(StatusCode.OK);
    }

    @Test
    void abortedThreeTimesThenOkSucceedsOnAttemptFourWithGrowingGaps() throws Exception {
        plugin = ScriptedPlugin.inProcess();
        abortedThreeTimesThenOk();
    }

    @Test
    void abortedThreeTimesThenOkOverUnixSocket(@TempDir Path dir) throws Exception {
        plugin = ScriptedPlugin.unixSocket(dir.resolve("p.sock"));
        abortedThreeTimesThenOk();
    }

    @Test
    void unavailableTwiceThenOkMakesThreeCallsOverUnixSocket(@TempDir Path dir) throws Exception {
        plugin = ScriptedPlugin.unixSocket(dir.resolve("p.sock"));
        plugin.script(Rpc.DEMOTE_VOLUME, Outcome.fail(Status.Code.UNAVAILABLE), Outcome.fail(Status.Code.UNAVAILABLE));
        client(FAST).volumeGroup("grp-1").demote().force().call();
        assertThat(plugin.calls(Rpc.DEMOTE_VOLUME)).hasSize(3);
    }

    @Test
    void failedPreconditionMakesOneCallAndNamesThePrecondition() throws Exception {
        plugin = ScriptedPlugin.inProcess();
        plugin.script(Rpc.RESYNC_VOLUME, Outcome.fail(Status.Code.FAILED_PRECONDITION, "volume is primary"));
        client(FAST);
        assertThatThrownBy(() -> client.volume("vol-1").resync().call())
                .isInstanceOfSatisfying(PreconditionFailedException.class, e -> {
                    assertThat(e.attempts()).isEqualTo(1);
                    assertThat(e.rpc()).isEqualTo(Rpc.RESYNC_VOLUME);
                    assertThat(e.code()).isEqualTo(StatusCode.FAILED_PRECONDITION);
                    assertThat(e.recovery()).isEqualTo(Recovery.ENSURE_PRECONDITION);
                    assertThat(e.precondition())
                            .isEqualTo("Caller SHOULD ensure that Replication is enabled and the Replication Source is demoted.");
                    assertThat(e.getMessage()).contains("volume is primary").contains(e.precondition());
                });
        assertThat(plugin.calls(Rpc.RESYNC_VOLUME)).hasSize(1);
    }

    @Test
    void unimplementedMakesExactlyOneCall(@TempDir Path dir) throws Exception {
        plugin = ScriptedPlugin.unixSocket(dir.resolve("p.sock"));
        plugin.script(Rpc.GET_VOLUME_REPLICATION_INFO, Outcome.fail(Status.Code.UNIMPLEMENTED));
        client(FAST);
        assertThatThrownBy(() -> client.volume("vol-1").info())
                .isInstanceOfSatisfying(UnimplementedException.class, e -> assertThat(e.attempts()).isEqualTo(1));
        assertThat(plugin.calls(Rpc.GET_VOLUME_REPLICATION_INFO)).hasSize(1);
    }

    static Stream<Arguments> codes() {
        return Stream.of(
                Arguments.of(Status.Code.INVALID_ARGUMENT, 1, InvalidArgumentException.class),
                Arguments.of(Status.Code.NOT_FOUND, 1, SourceNotFoundException.class),
                Arguments.of(Status.Code.FAILED_PRECONDITION, 1, PreconditionFailedException.class),
                Arguments.of(Status.Code.ABORTED, 3, OperationPendingException.class),
                Arguments.of(Status.Code.UNIMPLEMENTED, 1, UnimplementedException.class),
                Arguments.of(Status.Code.UNAUTHENTICATED, 1, UnauthenticatedException.class),
                Arguments.of(Status.Code.UNKNOWN, 1, UnknownErrorException.class),
                Arguments.of(Status.Code.INTERNAL, 1, ReplicationException.class),
                Arguments.of(Status.Code.UNAVAILABLE, 3, UnavailableException.class),
                Arguments.of(Status.Code.DEADLINE_EXCEEDED, 3, DeadlineExceededException.class),
                Arguments.of(Status.Code.RESOURCE_EXHAUSTED, 3, ResourceExhaustedException.class));
    }

    @ParameterizedTest(name = "{0} -> {1} attempt(s), {2}")
    @MethodSource("codes")
    void attemptsAndExceptionPerCode(Status.Code code, int expectedAttempts,
                                     Class<? extends ReplicationException> type) throws Exception {
        plugin = ScriptedPlugin.inProcess();
        plugin.byDefault(Rpc.PROMOTE_VOLUME, r -> Outcome.fail(code));
        client(FAST.toBuilder().maxAttempts(3).build());
        assertThatThrownBy(() -> client.volume("vol-1").promote().call())
                .isExactlyInstanceOf(type)
                .isInstanceOfSatisfying(ReplicationException.class, e -> {
                    assertThat(e.code().value()).isEqualTo(code.value());
                    assertThat(e.attempts()).isEqualTo(expectedAttempts);
                    assertThat(e.rpc()).isEqualTo(Rpc.PROMOTE_VOLUME);
                });
        assertThat(plugin.calls(Rpc.PROMOTE_VOLUME)).hasSize(expectedAttempts);
        assertThat(events).hasSize(expectedAttempts);
        assertThat(events.get(events.size() - 1).willRetry()).isFalse();
    }

    @Test
    void fullJitterDelaysStayWithinTheExponentialCap() throws Exception {
        plugin = ScriptedPlugin.inProcess();
        plugin.byDefault(Rpc.ENABLE_VOLUME_REPLICATION, r -> Outcome.fail(Status.Code.ABORTED));
        // A generator that always returns the top of the range: the delay equals the cap.
        RandomGenerator top = new RandomGenerator() {
            @Override
            public long nextLong() {
                return Long.MAX_VALUE;
            }

            @Override
            public long nextLong(long bound) {
                return bound - 1;
            }
        };
        RetryPolicy policy = FAST.toBuilder().jitter(RetryPolicy.Jitter.FULL).maxAttempts(6).random(top).build();
        client(policy);
        assertThatThrownBy(() -> client.volume("vol-1").enable().call()).isInstanceOf(OperationPendingException.class);
        // caps: 20, 40, 80, 160, 200 (maxBackoff)
        assertThat(retryDelaysMillis()).containsExactly(20L, 40L, 80L, 160L, 200L);

        events.clear();
        RetryPolicy seeded = policy.toBuilder().random(RandomGenerator.of("L64X128MixRandom")).build();
        assertThatThrownBy(() -> client.volume("vol-2").enable().retryPolicy(seeded).call())
                .isInstanceOf(OperationPendingException.class);
        List<Long> delays = retryDelaysMillis();
        assertThat(delays).hasSize(5);
        for (int i = 0; i < delays.size(); i++) {
            assertThat(delays.get(i)).isBetween(0L, seeded.backoffCap(i + 1).toMillis());
        }
    }

    @Test
    void pushbackTrailerSetsTheDelayAndANegativeOneStops() throws Exception {
        plugin = ScriptedPlugin.inProcess();
        plugin.script(Rpc.PROMOTE_VOLUME, Outcome.fail(Status.Code.UNAVAILABLE).withPushback("123"));
        client(FAST).volume("vol-1").promote().call();
        assertThat(retryDelaysMillis()).containsExactly(123L);
        assertThat(plugin.calls(Rpc.PROMOTE_VOLUME)).hasSize(2);

        plugin.script(Rpc.DEMOTE_VOLUME, Outcome.fail(Status.Code.ABORTED).withPushback("-1"));
        assertThatThrownBy(() -> client.volume("vol-1").demote().call())
                .isInstanceOfSatisfying(OperationPendingException.class, e -> assertThat(e.attempts()).isEqualTo(1));
        plugin.script(Rpc.DEMOTE_VOLUME, Outcome.fail(Status.Code.ABORTED).withPushback("soon"));
        assertThatThrownBy(() -> client.volume("vol-1").demote().call()).isInstanceOf(OperationPendingException.class);
        assertThat(plugin.calls(Rpc.DEMOTE_VOLUME)).hasSize(2);
    }

    @Test
    void totalTimeoutStopsRetriesThatWouldEndTooLate() throws Exception {
        plugin = ScriptedPlugin.inProcess();
        plugin.byDefault(Rpc.PROMOTE_VOLUME, r -> Outcome.fail(Status.Code.ABORTED));
        // 20 + 40 = 60 ms fit in 100 ms; the third delay (80) would end after it.
        client(FAST.toBuilder().maxAttempts(10).totalTimeout(Duration.ofMillis(100)).build());
        assertThatThrownBy(() -> client.volume("vol-1").promote().call())
                .isInstanceOfSatisfying(OperationPendingException.class, e -> assertThat(e.attempts()).isBetween(2, 3));
        assertThat(events.get(events.size() - 1).decision()).contains("total timeout");
    }

    @Test
    void notFoundIsRetriedOnlyWhenTheVerifierApproves() throws Exception {
        plugin = ScriptedPlugin.inProcess();
        plugin.script(Rpc.ENABLE_VOLUME_REPLICATION, Outcome.fail(Status.Code.NOT_FOUND));
        AtomicInteger verified = new AtomicInteger();
        client(ReplicationClient.builder().retry(FAST).sourceVerifier(SourceVerifier.of(s -> {
            verified.incrementAndGet();
            return s.id().startsWith("vol-");
        })));
        client.volume("vol-1").enable().call();
        assertThat(plugin.calls(Rpc.ENABLE_VOLUME_REPLICATION)).hasSize(2);
        assertThat(verified).hasValue(1);

        plugin.script(Rpc.ENABLE_VOLUME_REPLICATION, Outcome.fail(Status.Code.NOT_FOUND));
        assertThatThrownBy(() -> client.volume("gone-1").enable().call())
                .isInstanceOfSatisfying(SourceNotFoundException.class, e -> assertThat(e.attempts()).isEqualTo(1));
        assertThat(plugin.calls(Rpc.ENABLE_VOLUME_REPLICATION)).hasSize(3);
    }

    @Test
    void unauthenticatedIsRetriedOnceWithRenewedSecrets() throws Exception {
        plugin = ScriptedPlugin.inProcess();
        AtomicInteger generation = new AtomicInteger(1);
        SecretsProvider renewing = new SecretsProvider() {
            @Override
            public Secrets secrets(io.volrep.api.ReplicationSource source) {
                return Secrets.of(Map.of("token", "token-" + generation.get()));
            }

            @Override
            public CompletionStage<Secrets> renew(io.volrep.api.ReplicationSource source) {
                generation.incrementAndGet();
                return CompletableFuture.completedFuture(secrets(source));
            }
        };
        plugin.script(Rpc.DISABLE_VOLUME_REPLICATION, Outcome.fail(Status.Code.UNAUTHENTICATED));
        client(ReplicationClient.builder().retry(FAST).secrets(renewing));
        client.volume("vol-1").disable().call();
        var calls = plugin.calls(Rpc.DISABLE_VOLUME_REPLICATION);
        assertThat(calls).extracting(c -> c.secrets().get("token")).containsExactly("token-1", "token-2");

        // Still rejected after renewing: surfaced after exactly two calls.
        plugin.byDefault(Rpc.DISABLE_VOLUME_REPLICATION, r -> Outcome.fail(Status.Code.UNAUTHENTICATED));
        assertThatThrownBy(() -> client.volume("vol-2").disable().call())
                .isInstanceOfSatisfying(UnauthenticatedException.class, e -> assertThat(e.attempts()).isEqualTo(2));
        assertThat(plugin.calls(Rpc.DISABLE_VOLUME_REPLICATION)).hasSize(4);

        // Per-call secrets cannot be renewed: one call.
        assertThatThrownBy(() -> client.volume("vol-3").disable().secrets(Map.of("token", "fixed")).call())
                .isInstanceOfSatisfying(UnauthenticatedException.class, e -> assertThat(e.attempts()).isEqualTo(1));
    }

    @Test
    void recoveryOverridesChangeTheDefaults() throws Exception {
        plugin = ScriptedPlugin.inProcess();
        plugin.byDefault(Rpc.PROMOTE_VOLUME, r -> Outcome.fail(Status.Code.ABORTED));
        client(FAST.toBuilder().onRecovery(Recovery.BACKOFF, RetryPolicy.Action.FAIL).build());
        assertThatThrownBy(() -> client.volume("vol-1").promote().call())
                .isInstanceOfSatisfying(OperationPendingException.class, e -> assertThat(e.attempts()).isEqualTo(1));

        plugin.script(Rpc.DEMOTE_VOLUME, Outcome.fail(Status.Code.UNKNOWN));
        client.volume("vol-1").demote()
                .retryPolicy(FAST.toBuilder().onRecovery(Recovery.INSPECT_LOGS, RetryPolicy.Action.BACKOFF).build())
                .call();
        assertThat(plugin.calls(Rpc.DEMOTE_VOLUME)).hasSize(2);
    }
}
