package io.volrep.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.volrep.api.ProtocolViolationException;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.testkit.fake.FakePlugin;
import io.volrep.testkit.fake.InfoViolation;
import io.volrep.testkit.fake.RecordedCall;
import io.volrep.testsupport.GrpcCleanup;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An answer is judged by the spec's answer rules before the call is reported (issue 48, item 1): a plugin that
 * answers OK with a response that breaks them is a protocol violation for the caller, the {@link AttemptListener}
 * and every {@link CallObserver} alike, never an OK for some of them.
 */
class AnswerVerdictTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    /** What an observer saw of the calls: each attempt's code and decision, and each call's end. */
    private final List<String> observed = new CopyOnWriteArrayList<>();

    private final List<AttemptEvent> heard = new CopyOnWriteArrayList<>();

    private ReplicationClient client(FakePlugin plugin, ReplicationClient.Builder builder) {
        return grpc.register(builder.target(plugin.address())
                .retry(RetryBehaviourTest.FAST)
                .listener(heard::add)
                .observer((rpc, source) -> new CallObservation() {
                    @Override
                    public void onAttempt(AttemptEvent event) {
                        observed.add("attempt " + event.code().display() + ": " + event.decision());
                    }

                    @Override
                    public void onFinished(StatusCode code, int attempts) {
                        observed.add("finished " + code.display() + " after " + attempts);
                    }
                })
                .build());
    }

    @Test
    void aResponseThatBreaksTheRulesIsAViolationForTheCallerTheListenerAndTheObservers() {
        FakePlugin plugin = grpc.register(FakePlugin.builder().volumes(1).start());
        plugin.violateInfo(InfoViolation.MISSING_LAST_SYNC_TIME);
        ReplicationClient client = client(plugin, ReplicationClient.builder());
        client.volume("vol-0").enable().call();
        client.volume("vol-0").promote().call();
        observed.clear();
        heard.clear();

        assertThatThrownBy(() -> client.volume("vol-0").info())
                .isInstanceOfSatisfying(ProtocolViolationException.class, e -> {
                    assertThat(e.field()).contains("last_sync_time");
                    assertThat(e.code()).isEqualTo(StatusCode.UNKNOWN);
                    assertThat(e.attempts()).isEqualTo(1);
                });

        assertThat(observed)
                .containsExactly("attempt 2 UNKNOWN: not retried: protocol violation", "finished 2 UNKNOWN after 1");
        assertThat(heard).singleElement().satisfies(event -> {
            assertThat(event.code()).isEqualTo(StatusCode.UNKNOWN);
            assertThat(event.willRetry()).isFalse();
            assertThat(event.describe())
                    .isEqualTo("GetVolumeReplicationInfo volume vol-0 attempt 1: 2 UNKNOWN -> not retried: protocol"
                            + " violation");
        });
        // The plugin did answer OK: a violation is never retried.
        assertThat(plugin.calls(Rpc.GET_VOLUME_REPLICATION_INFO))
                .extracting(RecordedCall::code)
                .containsExactly(StatusCode.OK);
    }

    @Test
    void theSameVerdictWhenTheAnswerArrivesOnTheTransportThread() throws Exception {
        FakePlugin plugin = grpc.register(FakePlugin.builder().volumes(1).start());
        plugin.violateInfo(InfoViolation.NEGATIVE_LAST_SYNC_BYTES);
        ReplicationClient client = client(plugin, ReplicationClient.builder().directExecutor());
        client.volume("vol-0").enable().call();
        client.volume("vol-0").promote().call();
        observed.clear();

        assertThatThrownBy(() -> client.volume("vol-0").infoAsync().get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOfSatisfying(
                        ProtocolViolationException.class,
                        e -> assertThat(e.field()).contains("last_sync_bytes"));
        assertThat(observed)
                .containsExactly("attempt 2 UNKNOWN: not retried: protocol violation", "finished 2 UNKNOWN after 1");
        assertThat(client.activeSources()).isZero();
    }
}
