package io.volrep.benchmarks;

import io.grpc.stub.StreamObserver;
import io.volrep.proto.replication.ControllerGrpc;
import io.volrep.proto.replication.EnableVolumeReplicationRequest;
import io.volrep.proto.replication.EnableVolumeReplicationResponse;

/** Answers every enable with OK and remembers nothing: a server whose memory does not grow with the sources. */
final class StatelessController extends ControllerGrpc.ControllerImplBase {
    @Override
    public void enableVolumeReplication(
            EnableVolumeReplicationRequest request, StreamObserver<EnableVolumeReplicationResponse> observer) {
        observer.onNext(EnableVolumeReplicationResponse.getDefaultInstance());
        observer.onCompleted();
    }
}
