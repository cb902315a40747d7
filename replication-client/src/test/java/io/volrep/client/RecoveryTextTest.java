package io.volrep.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.volrep.api.PreconditionFailedException;
import io.volrep.api.Recovery;
import io.volrep.api.ReplicationException;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.testkit.fake.FakePlugin;
import io.volrep.testkit.fake.FaultInjector;
import io.volrep.testsupport.GrpcCleanup;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Which row's recovery text a failed call quotes, over real gRPC: PromoteVolume's 9 FAILED_PRECONDITION row lists two
 * conditions ("replication is not enabled or Source cannot be promoted without force option") and its recovery text
 * addresses only the first; the text a caller gets must fit the answer it got.
 */
class RecoveryTextTest {
    static final RetryPolicy FAST = RetryPolicy.spec().toBuilder()
            .initialBackoff(Duration.ofMillis(10))
            .maxBackoff(Duration.ofMillis(20))
            .jitter(RetryPolicy.Jitter.NONE)
            .maxAttempts(2)
            .build();
    static final String ENABLED = "Caller SHOULD ensure that replication is enabled.";

    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    private ReplicationClient client(FakePlugin fake) {
        return grpc.register(
                ReplicationClient.builder().target(fake.address()).retry(FAST).build());
    }

    @Test
    void anUnforcedPromoteRefusedWithNineNamesBothConditionsOfTheRowEachWithItsRecovery() {
        FakePlugin fake = grpc.register(FakePlugin.builder().volumes(1).start());
        ReplicationClient client = client(fake);
        client.volume("vol-0").enable().call();
        client.volume("vol-0").demote().call();
        fake.refuse(Rpc.PROMOTE_VOLUME, null, StatusCode.FAILED_PRECONDITION, FaultInjector.Window.calls(1));

        PreconditionFailedException e = catchThrowableOfType(
                PreconditionFailedException.class,
                () -> client.volume("vol-0").promote().call());

        assertThat(e.attempts()).isEqualTo(1);
        assertThat(e.recovery()).isEqualTo(Recovery.ENSURE_PRECONDITION);
        // Not "ensure that replication is enabled" alone: replication is enabled here, the peer's demotion is not in.
        assertThat(e.precondition())
                .isNotEqualTo(ENABLED)
                .contains("replication is not enabled")
                .contains(ENABLED)
                .contains("cannot be promoted without force option")
                .contains("retry without force");
        assertThat(e.recoveryText()).isEqualTo(e.precondition());
        assertThat(e.getMessage()).contains("(precondition: " + e.precondition() + ")");
    }

    @Test
    void aForcedPromoteRefusedWithNineCanOnlyMeanReplicationIsNotEnabled() {
        FakePlugin fake = grpc.register(FakePlugin.builder().volumes(1).start());
        ReplicationClient client = client(fake);

        // The reference driver's own answer: vol-0's replication is not enabled.
        PreconditionFailedException e = catchThrowableOfType(
                PreconditionFailedException.class,
                () -> client.volume("vol-0").promote().force().call());

        assertThat(e.precondition()).isEqualTo(ENABLED);
        assertThat(e.getMessage()).endsWith("(precondition: " + ENABLED + ")");
    }

    @Test
    void anAbortedPromoteQuotesTheAbortedRowWhateverTheForce() {
        FakePlugin fake = grpc.register(FakePlugin.builder().volumes(1).start());
        ReplicationClient client = client(fake);
        fake.failNext(Rpc.PROMOTE_VOLUME, 2, StatusCode.ABORTED);

        ReplicationException e = catchThrowableOfType(
                ReplicationException.class,
                () -> client.volume("vol-0").promote().call());

        assertThat(e.code()).isEqualTo(StatusCode.ABORTED);
        assertThat(e.attempts()).isEqualTo(2);
        assertThat(e.recoveryText())
                .isEqualTo("Caller SHOULD ensure that there are no other calls pending for the"
                        + " specified `replication_source`, and then retry with exponential back off.");
    }
}
