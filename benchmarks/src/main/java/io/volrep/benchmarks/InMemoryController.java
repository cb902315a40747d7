package io.volrep.benchmarks;

import io.grpc.BindableService;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.volrep.proto.replication.ControllerGrpc;
import io.volrep.proto.replication.EnableVolumeReplicationRequest;
import io.volrep.proto.replication.EnableVolumeReplicationResponse;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The raw baseline server: the same in-memory behaviour as {@link InMemoryDriver} (enable marks the volume
 * enabled), and none of what the SPI runtime adds: no validation, no per-source guard, no exception mapping, no
 * logging. It is the fastest correct grpc-java server for the call: a bare {@link ServerCallHandler} (what the
 * generated {@code ControllerImplBase} builds from {@code ServerCalls}, minus its {@code StreamObserver}
 * adapters), served with a direct executor by {@link Transports#startRaw}.
 */
final class InMemoryController implements BindableService {
    private final Map<String, Boolean> enabled = new ConcurrentHashMap<>();

    @Override
    public ServerServiceDefinition bindService() {
        return ServerServiceDefinition.builder(ControllerGrpc.SERVICE_NAME)
                .addMethod(ControllerGrpc.getEnableVolumeReplicationMethod(), this::startCall)
                .build();
    }

    int enabledCount() {
        return enabled.size();
    }

    private ServerCall.Listener<EnableVolumeReplicationRequest> startCall(
            ServerCall<EnableVolumeReplicationRequest, EnableVolumeReplicationResponse> call, Metadata headers) {
        // Two, as ServerCalls does for unary calls: a second request is a client error to report.
        call.request(2);
        return new ServerCall.Listener<>() {
            private EnableVolumeReplicationRequest request;
            private boolean failed;

            @Override
            public void onMessage(EnableVolumeReplicationRequest message) {
                if (request != null) {
                    failed = true;
                    call.close(Status.INTERNAL.withDescription("too many requests"), new Metadata());
                    return;
                }
                request = message;
            }

            @Override
            public void onHalfClose() {
                if (failed) {
                    return;
                }
                if (request == null) {
                    call.close(Status.INTERNAL.withDescription("half-closed before sending a request"), new Metadata());
                    return;
                }
                enabled.put(request.getReplicationSource().getVolume().getVolumeId(), Boolean.TRUE);
                call.sendHeaders(new Metadata());
                call.sendMessage(EnableVolumeReplicationResponse.getDefaultInstance());
                call.close(Status.OK, new Metadata());
            }
        };
    }
}
