package io.volrep.benchmarks;

import io.grpc.stub.StreamObserver;
import io.volrep.proto.replication.ControllerGrpc;
import io.volrep.proto.replication.EnableVolumeReplicationRequest;
import io.volrep.proto.replication.EnableVolumeReplicationResponse;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The raw baseline server: a hand-written {@code ControllerImplBase} with the same in-memory behaviour as
 * {@link InMemoryDriver} (enable marks the volume enabled), and none of what the SPI runtime adds: no validation,
 * no per-source guard, no exception mapping, no logging.
 */
final class InMemoryController extends ControllerGrpc.ControllerImplBase {
    private final Map<String, Boolean> enabled = new ConcurrentHashMap<>();

    @Override
    public void enableVolumeReplication(EnableVolumeReplicationRequest request,
                                        StreamObserver<EnableVolumeReplicationResponse> observer) {
        enabled.put(request.getReplicationSource().getVolume().getVolumeId(), Boolean.TRUE);
        observer.onNext(EnableVolumeReplicationResponse.getDefaultInstance());
        observer.onCompleted();
    }

    int enabledCount() {
        return enabled.size();
    }
}
