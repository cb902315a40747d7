package io.volrep.benchmarks;

import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import io.volrep.proto.replication.ControllerGrpc;
import io.volrep.proto.replication.EnableVolumeReplicationRequest;
import io.volrep.proto.replication.EnableVolumeReplicationResponse;
import java.util.function.Consumer;

/**
 * The raw baseline's calls: the fastest correct use of grpc-java's public API for one unary enable. Blocking goes
 * through {@link ClientCalls#blockingUnaryCall} (what the generated blocking stub calls, minus the stub object);
 * asynchronous starts a {@link ClientCall} with a small listener (what the async stub does, minus the
 * {@code StreamObserver} adapters), and checks what a correct client must: exactly one response, status OK.
 */
final class RawUnary {
    private RawUnary() {}

    static EnableVolumeReplicationResponse enable(Channel channel, String volumeId) {
        return ClientCalls.blockingUnaryCall(
                channel,
                ControllerGrpc.getEnableVolumeReplicationMethod(),
                Transports.deadlineFromNow(),
                Transports.enableRequest(volumeId));
    }

    /**
     * Starts one enable; {@code done} receives null on success, else the failure, on the channel's executor
     * (direct for the raw channel, so on the transport thread).
     */
    static void enableAsync(Channel channel, String volumeId, Consumer<Throwable> done) {
        ClientCall<EnableVolumeReplicationRequest, EnableVolumeReplicationResponse> call =
                channel.newCall(ControllerGrpc.getEnableVolumeReplicationMethod(), Transports.deadlineFromNow());
        call.start(new Listener(done), new Metadata());
        // Two, as ClientCalls does for unary calls: a second message would be a protocol violation to report.
        call.request(2);
        call.sendMessage(Transports.enableRequest(volumeId));
        call.halfClose();
    }

    private static final class Listener extends ClientCall.Listener<EnableVolumeReplicationResponse> {
        private final Consumer<Throwable> done;
        private int responses;

        Listener(Consumer<Throwable> done) {
            this.done = done;
        }

        @Override
        public void onMessage(EnableVolumeReplicationResponse message) {
            responses++;
        }

        @Override
        public void onClose(Status status, Metadata trailers) {
            if (!status.isOk()) {
                done.accept(status.asRuntimeException(trailers));
            } else if (responses != 1) {
                done.accept(new IllegalStateException(responses + " responses to a unary call"));
            } else {
                done.accept(null);
            }
        }
    }
}
