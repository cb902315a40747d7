package io.volrep.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.util.concurrent.MoreExecutors;
import io.grpc.stub.StreamObserver;
import io.volrep.proto.replication.ControllerGrpc;
import io.volrep.proto.replication.DisableVolumeReplicationRequest;
import io.volrep.proto.replication.DisableVolumeReplicationResponse;
import io.volrep.proto.replication.EnableVolumeReplicationRequest;
import io.volrep.proto.replication.EnableVolumeReplicationResponse;
import io.volrep.testsupport.GrpcCleanup;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Calls on one source finish, as their callers see them, in the order they ran: the slot's next call must not
 * finish before the previous call's caller has been told. RestartTest caught the race under load (an answer handed
 * to the next call's thread overtook the previous call's completion); direct executors on both sides make it
 * certain, since the next call then runs, and is answered, on the thread that finishes the previous one.
 */
class SingleFlightOrderTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    @Test
    void aQueuedCallNeverFinishesBeforeThePreviousOneIsReported() throws Exception {
        AtomicReference<StreamObserver<EnableVolumeReplicationResponse>> held = new AtomicReference<>();
        TestServer server = grpc.register(TestServer.inProcess(new ControllerGrpc.ControllerImplBase() {
            @Override
            public void enableVolumeReplication(
                    EnableVolumeReplicationRequest request, StreamObserver<EnableVolumeReplicationResponse> o) {
                held.set(o); // answered when the test says so
            }

            @Override
            public void disableVolumeReplication(
                    DisableVolumeReplicationRequest request, StreamObserver<DisableVolumeReplicationResponse> o) {
                o.onNext(DisableVolumeReplicationResponse.getDefaultInstance()); // answered at once
                o.onCompleted();
            }
        }));
        ReplicationClient client = grpc.register(ReplicationClient.builder()
                .target(server.target())
                .executor(MoreExecutors.newDirectExecutorService())
                .directExecutor()
                .build());
        List<String> reported = new CopyOnWriteArrayList<>();

        CompletableFuture<Void> first = client.volume("vol-0").enable().callAsync();
        CompletableFuture<Void> second = client.volume("vol-0").disable().callAsync(); // waits for its slot
        first.thenRun(() -> reported.add("first"));
        second.thenRun(() -> reported.add("second"));
        assertThat(reported).isEmpty();
        assertThat(held.get()).as("the first call reached the plugin").isNotNull();

        held.get().onNext(EnableVolumeReplicationResponse.getDefaultInstance());
        held.get().onCompleted();

        assertThat(reported).containsExactly("first", "second");
        assertThat(client.activeSources()).isZero();
    }
}
