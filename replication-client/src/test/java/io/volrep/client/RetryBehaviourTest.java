package io.volrep.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.grpc.Status;
import io.volrep.api.DeadlineExceededException;
import io.volrep.api.InvalidArgumentException;
import io.volrep.api.OperationPendingException;
import io.volrep.api.PreconditionFailedException;
import io.volrep.api.Recovery;
import io.volrep.api.ReplicationException;
import io.volrep.api.ReplicationSource;
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
import io.volrep.testkit.fake.FakePlugin;
import io.volrep.testkit.fake.RecordedCall;
import io.volrep.testsupport.GrpcCleanup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.random.RandomGenerator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * How many attempts each answer gets, with which delays, against the public {@link FakePlugin} (the reference driver
 * behind the SPI runtime, failures scripted in front of it); everything a test starts is released by
 * {@link GrpcCleanup}.
 */
class RetryBehaviourTest {
    /** Deterministic, short back-offs: 20, 40, 80 ms ... */
    static final RetryPolicy FAST = RetryPolicy.spec().toBuilder()
            .initialBackoff(Duration.ofMillis(20))
            .multiplier(2)
            .maxBackoff(Duration.ofMillis(200))
            .jitter(RetryPolicy.Jitter.NONE)
            .maxAttempts(5)
            .build();

    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    final List<AttemptEvent> events = Collections.synchronizedList(new ArrayList<>());
    FakePlugin plugin;
    ReplicationClient client;

    /** A plugin with volumes vol-0 .. vol-3 and groups grp-0, grp-1, listening on {@code listen} (null: in-process). */
    FakePlugin plugin(String listen) {
        FakePlugin.Builder builder = FakePlugin.builder().volumes(4).groups(2);
        if (listen != null) {
            builder.listen(listen);
        }
        plugin = grpc.register(builder.start());
        return plugin;
    }

    ReplicationClient client(RetryPolicy policy) {
        return client(ReplicationClient.builder().retry(policy));
    }

    ReplicationClient client(ReplicationClient.Builder builder) {
        client = grpc.register(
                builder.target(plugin.address()).listener(events::add).build());
        return client;
    }

    List<Long> retryDelaysMillis() {
        synchronized (events) {
            return events.stream()
                    .filter(AttemptEvent::willRetry)
                    .map(e -> e.retryDelay().get().toMillis())
                    .toList();
        }
    }

    void abortedThreeTimesThenOk() {
        RetryPolicy policy = FAST.toBuilder()
                .initialBackoff(Duration.ofMillis(100))
                .maxBackoff(Duration.ofSeconds(1))
                .build();
        // Connects and warms up, so the gaps measure only the back-off; and a promote needs replication enabled.
        client(policy).volume("vol-1").enable().call();
        events.clear();
        plugin.failNext(Rpc.PROMOTE_VOLUME, 3, StatusCode.ABORTED);
        client.volume("vol-1").promote().call();

        List<RecordedCall> calls = plugin.calls(Rpc.PROMOTE_VOLUME);
        assertThat(calls)
                .extracting(RecordedCall::code)
                .containsExactly(StatusCode.ABORTED, StatusCode.ABORTED, StatusCode.ABORTED, StatusCode.OK);
        assertThat(retryDelaysMillis()).containsExactly(100L, 200L, 400L);
        List<Long> gaps = new ArrayList<>();
        for (int i = 1; i < calls.size(); i++) {
            gaps.add(Duration.between(calls.get(i - 1).started(), calls.get(i).started())
                    .toMillis());
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
        plugin(null);
        abortedThreeTimesThenOk();
    }

    @Test
    void abortedThreeTimesThenOkOverUnixSocket(@TempDir Path dir) throws Exception {
        plugin("unix://" + dir.resolve("p.sock"));
        abortedThreeTimesThenOk();
    }

    @Test
    void unavailableTwiceThenOkMakesThreeCallsOverUnixSocket(@TempDir Path dir) throws Exception {
        plugin("unix://" + dir.resolve("p.sock"));
        client(FAST).volumeGroup("grp-1").enable().call();
        plugin.failNext(Rpc.DEMOTE_VOLUME, 2, StatusCode.UNAVAILABLE);
        client.volumeGroup("grp-1").demote().force().call();
        assertThat(plugin.calls(Rpc.DEMOTE_VOLUME))
                .extracting(RecordedCall::code)
                .containsExactly(StatusCode.UNAVAILABLE, StatusCode.UNAVAILABLE, StatusCode.OK);
    }

    @Test
    void failedPreconditionMakesOneCallAndNamesThePrecondition() throws Exception {
        plugin(null);
        client(FAST).volume("vol-1").enable().call(); // enabled and primary: a resync needs a secondary
        assertThatThrownBy(() -> client.volume("vol-1").resync().call())
                .isInstanceOfSatisfying(PreconditionFailedException.class, e -> {
                    assertThat(e.attempts()).isEqualTo(1);
                    assertThat(e.rpc()).isEqualTo(Rpc.RESYNC_VOLUME);
                    assertThat(e.code()).isEqualTo(StatusCode.FAILED_PRECONDITION);
                    assertThat(e.recovery()).isEqualTo(Recovery.ENSURE_PRECONDITION);
                    assertThat(e.precondition())
                            .isEqualTo(
                                    "Caller SHOULD ensure that Replication is enabled and the Replication Source is demoted.");
                    assertThat(e.getMessage())
                            .contains("volume vol-1 is not demoted")
                            .contains(e.precondition());
                });
        assertThat(plugin.calls(Rpc.RESYNC_VOLUME)).hasSize(1);
    }

    @Test
    void unimplementedMakesExactlyOneCall(@TempDir Path dir) throws Exception {
        plugin("unix://" + dir.resolve("p.sock"));
        plugin.failNext(Rpc.GET_VOLUME_REPLICATION_INFO, 1, StatusCode.UNIMPLEMENTED);
        client(FAST);
        assertThatThrownBy(() -> client.volume("vol-1").info())
                .isInstanceOfSatisfying(
                        UnimplementedException.class,
                        e -> assertThat(e.attempts()).isEqualTo(1));
        assertThat(plugin.calls(Rpc.GET_VOLUME_REPLICATION_INFO)).hasSize(1);
    }

    static Stream<Arguments> codes() {
        return Stream.of(
                Arguments.of(StatusCode.INVALID_ARGUMENT, 1, InvalidArgumentException.class),
                Arguments.of(StatusCode.NOT_FOUND, 1, SourceNotFoundException.class),
                Arguments.of(StatusCode.FAILED_PRECONDITION, 1, PreconditionFailedException.class),
                Arguments.of(StatusCode.ABORTED, 3, OperationPendingException.class),
                Arguments.of(StatusCode.UNIMPLEMENTED, 1, UnimplementedException.class),
                Arguments.of(StatusCode.UNAUTHENTICATED, 1, UnauthenticatedException.class),
                Arguments.of(StatusCode.UNKNOWN, 1, UnknownErrorException.class),
                Arguments.of(StatusCode.INTERNAL, 1, ReplicationException.class),
                Arguments.of(StatusCode.UNAVAILABLE, 3, UnavailableException.class),
                Arguments.of(StatusCode.DEADLINE_EXCEEDED, 3, DeadlineExceededException.class),
                Arguments.of(StatusCode.RESOURCE_EXHAUSTED, 3, ResourceExhaustedException.class));
    }

    @ParameterizedTest(name = "{0} -> {1} attempt(s), {2}")
    @MethodSource("codes")
    void attemptsAndExceptionPerCode(StatusCode code, int expectedAttempts, Class<? extends ReplicationException> type)
            throws Exception {
        plugin(null);
        plugin.failNext(Rpc.PROMOTE_VOLUME, 3, code);
        client(FAST.toBuilder().maxAttempts(3).build());
        assertThatThrownBy(() -> client.volume("vol-1").promote().call())
                .isExactlyInstanceOf(type)
                .isInstanceOfSatisfying(ReplicationException.class, e -> {
                    assertThat(e.code()).isEqualTo(code);
                    assertThat(e.attempts()).isEqualTo(expectedAttempts);
                    assertThat(e.rpc()).isEqualTo(Rpc.PROMOTE_VOLUME);
                });
        assertThat(plugin.calls(Rpc.PROMOTE_VOLUME)).hasSize(expectedAttempts);
        assertThat(events).hasSize(expectedAttempts);
        assertThat(events.get(events.size() - 1).willRetry()).isFalse();
    }

    @Test
    void fullJitterDelaysStayWithinTheExponentialCap() throws Exception {
        plugin(null);
        plugin.failNext(Rpc.ENABLE_VOLUME_REPLICATION, 12, StatusCode.ABORTED); // 6 attempts, twice
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
        RetryPolicy policy = FAST.toBuilder()
                .jitter(RetryPolicy.Jitter.FULL)
                .maxAttempts(6)
                .random(top)
                .build();
        client(policy);
        assertThatThrownBy(() -> client.volume("vol-1").enable().call()).isInstanceOf(OperationPendingException.class);
        // caps: 20, 40, 80, 160, 200 (maxBackoff)
        assertThat(retryDelaysMillis()).containsExactly(20L, 40L, 80L, 160L, 200L);

        events.clear();
        RetryPolicy seeded = policy.toBuilder()
                .random(RandomGenerator.of("L64X128MixRandom"))
                .build();
        assertThatThrownBy(() ->
                        client.volume("vol-2").enable().retryPolicy(seeded).call())
                .isInstanceOf(OperationPendingException.class);
        List<Long> delays = retryDelaysMillis();
        assertThat(delays).hasSize(5);
        for (int i = 0; i < delays.size(); i++) {
            assertThat(delays.get(i)).isBetween(0L, seeded.backoffCap(i + 1).toMillis());
        }
    }

    @Test
    void pushbackTrailerSetsTheDelayAndANegativeOneStops() throws Exception {
        plugin(null);
        client(FAST).volume("vol-1").enable().call();
        plugin.failNext(Rpc.PROMOTE_VOLUME, 1, StatusCode.UNAVAILABLE, Duration.ofMillis(123));
        client.volume("vol-1").promote().call();
        assertThat(retryDelaysMillis()).containsExactly(123L);
        assertThat(plugin.calls(Rpc.PROMOTE_VOLUME)).hasSize(2);

        plugin.failNext(Rpc.DEMOTE_VOLUME, 1, StatusCode.ABORTED, Duration.ofMillis(-1));
        assertThatThrownBy(() -> client.volume("vol-1").demote().call())
                .isInstanceOfSatisfying(
                        OperationPendingException.class,
                        e -> assertThat(e.attempts()).isEqualTo(1));
        assertThat(plugin.calls(Rpc.DEMOTE_VOLUME)).hasSize(1);
    }

    /**
     * A trailer that is no number of milliseconds stops the retries, as a negative one does. FakePlugin writes only
     * well-formed trailers, so the {@link ScriptedPlugin} (which writes any text) sends this one.
     */
    @Test
    void anUnreadablePushbackTrailerStopsToo() throws Exception {
        ScriptedPlugin scripted = grpc.register(ScriptedPlugin.inProcess());
        scripted.script(Rpc.DEMOTE_VOLUME, Outcome.fail(Status.Code.ABORTED).withPushback("soon"));
        client = grpc.register(ReplicationClient.builder()
                .retry(FAST)
                .target(scripted.target())
                .build());
        assertThatThrownBy(() -> client.volume("vol-1").demote().call())
                .isInstanceOfSatisfying(
                        OperationPendingException.class,
                        e -> assertThat(e.attempts()).isEqualTo(1));
        assertThat(scripted.calls(Rpc.DEMOTE_VOLUME)).hasSize(1);
    }

    @Test
    void totalTimeoutStopsRetriesThatWouldEndTooLate() throws Exception {
        plugin(null);
        plugin.failNext(Rpc.PROMOTE_VOLUME, 10, StatusCode.ABORTED);
        // 20 + 40 = 60 ms fit in 100 ms; the third delay (80) would end after it.
        client(FAST.toBuilder()
                .maxAttempts(10)
                .totalTimeout(Duration.ofMillis(100))
                .build());
        assertThatThrownBy(() -> client.volume("vol-1").promote().call())
                .isInstanceOfSatisfying(
                        OperationPendingException.class,
                        e -> assertThat(e.attempts()).isBetween(2, 3));
        assertThat(events.get(events.size() - 1).decision()).contains("total timeout");
    }

    @Test
    void notFoundIsRetriedOnlyWhenTheVerifierApproves() throws Exception {
        plugin(null);
        plugin.failNext(Rpc.ENABLE_VOLUME_REPLICATION, 1, StatusCode.NOT_FOUND);
        AtomicInteger verified = new AtomicInteger();
        client(ReplicationClient.builder().retry(FAST).sourceVerifier(SourceVerifier.of(s -> {
            verified.incrementAndGet();
            return s.id().startsWith("vol-");
        })));
        client.volume("vol-1").enable().call();
        assertThat(plugin.calls(Rpc.ENABLE_VOLUME_REPLICATION)).hasSize(2);
        assertThat(verified).hasValue(1);

        // The plugin has no gone-1, and the verifier agrees: not retried.
        assertThatThrownBy(() -> client.volume("gone-1").enable().call())
                .isInstanceOfSatisfying(
                        SourceNotFoundException.class,
                        e -> assertThat(e.attempts()).isEqualTo(1));
        assertThat(plugin.calls(Rpc.ENABLE_VOLUME_REPLICATION)).hasSize(3);
    }

    @Test
    void unauthenticatedIsRetriedOnceWithRenewedSecrets() throws Exception {
        plugin = grpc.register(FakePlugin.builder()
                .volumes(4)
                .requiredSecret("token", "token-2")
                .start());
        AtomicInteger generation = new AtomicInteger(1);
        SecretsProvider renewing = new SecretsProvider() {
            @Override
            public Secrets secrets(ReplicationSource source) {
                return Secrets.of(Map.of("token", "token-" + generation.get()));
            }

            @Override
            public CompletionStage<Secrets> renew(ReplicationSource source) {
                generation.incrementAndGet();
                return CompletableFuture.completedFuture(secrets(source));
            }
        };
        client(ReplicationClient.builder().retry(FAST).secrets(renewing));
        // token-1 is refused by the plugin; the renewed token-2 is the one it wants.
        client.volume("vol-1").disable().call();
        assertThat(plugin.calls(Rpc.DISABLE_VOLUME_REPLICATION))
                .extracting(RecordedCall::code, RecordedCall::injected)
                .containsExactly(tuple(StatusCode.UNAUTHENTICATED, false), tuple(StatusCode.OK, false));
        assertThat(generation).hasValue(2);

        // Still rejected after renewing (token-10, then token-11): surfaced after exactly two calls.
        generation.set(10);
        assertThatThrownBy(() -> client.volume("vol-2").disable().call())
                .isInstanceOfSatisfying(
                        UnauthenticatedException.class,
                        e -> assertThat(e.attempts()).isEqualTo(2));
        assertThat(plugin.calls(Rpc.DISABLE_VOLUME_REPLICATION)).hasSize(4);

        // Per-call secrets cannot be renewed: one call.
        assertThatThrownBy(() -> client.volume("vol-3")
                        .disable()
                        .secrets(Map.of("token", "fixed"))
                        .call())
                .isInstanceOfSatisfying(
                        UnauthenticatedException.class,
                        e -> assertThat(e.attempts()).isEqualTo(1));
    }

    @Test
    void recoveryOverridesChangeTheDefaults() throws Exception {
        plugin(null);
        plugin.failNext(Rpc.PROMOTE_VOLUME, 1, StatusCode.ABORTED);
        client(FAST.toBuilder()
                .onRecovery(Recovery.BACKOFF, RetryPolicy.Action.FAIL)
                .build());
        assertThatThrownBy(() -> client.volume("vol-1").promote().call())
                .isInstanceOfSatisfying(
                        OperationPendingException.class,
                        e -> assertThat(e.attempts()).isEqualTo(1));

        client.volume("vol-1").enable().call(); // a demote needs replication enabled
        plugin.failNext(Rpc.DEMOTE_VOLUME, 1, StatusCode.UNKNOWN);
        client.volume("vol-1")
                .demote()
                .retryPolicy(FAST.toBuilder()
                        .onRecovery(Recovery.INSPECT_LOGS, RetryPolicy.Action.BACKOFF)
                        .build())
                .call();
        assertThat(plugin.calls(Rpc.DEMOTE_VOLUME)).hasSize(2);
    }

    @Test
    void aSchedulerThatRefusesTheRetryFailsTheCallInsteadOfLeavingItWaiting() {
        plugin(null);
        ScheduledExecutorService refusing = Executors.newSingleThreadScheduledExecutor();
        refusing.shutdown();
        client(ReplicationClient.builder().retry(FAST).scheduler(refusing));
        plugin.failNext(Rpc.ENABLE_VOLUME_REPLICATION, 2, StatusCode.ABORTED);

        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            assertThatThrownBy(() -> client.volume("vol-1").enable().call())
                    .isInstanceOf(RejectedExecutionException.class);
            assertThatThrownBy(() -> client.volume("vol-1").enable().callAsync().get(5, TimeUnit.MINUTES))
                    .hasRootCauseInstanceOf(RejectedExecutionException.class);
        });
        assertThat(plugin.calls(Rpc.ENABLE_VOLUME_REPLICATION))
                .as("one attempt each, no retry")
                .extracting(RecordedCall::code)
                .containsExactly(StatusCode.ABORTED, StatusCode.ABORTED);
    }
}
