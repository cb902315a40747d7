package io.volrep.spi.runtime;

import io.grpc.stub.StreamObserver;
import io.volrep.api.InvalidArgumentException;
import io.volrep.api.Rpc;
import io.volrep.proto.replication.DemoteVolumeRequest;
import io.volrep.proto.replication.DisableVolumeReplicationRequest;
import io.volrep.proto.replication.EnableVolumeReplicationRequest;
import io.volrep.proto.replication.PromoteVolumeRequest;
import io.volrep.proto.replication.ResyncVolumeRequest;
import io.volrep.proto.replication.v0_1_0.ControllerGrpc;
import java.util.Objects;

/**
 * {@code replication.Controller} as spec revision v0.1.0 defines it, on the legacy generated stubs: five RPCs
 * addressed by the REQUIRED {@code volume_id} alone. Each request is decoded into the current revision's message
 * and runs through the {@link ControllerService}'s own validation and driver call, so the driver sees a volume
 * source, as in every dialect. GetVolumeReplicationInfo does not exist in this revision: gRPC answers
 * 12 UNIMPLEMENTED, as for any method a service does not have.
 *
 * <pre>{@code
 * ServerServiceDefinition service = new LegacyV010ControllerService(new ControllerService(driver, runner), runner)
 *         .bindService();
 * }</pre>
 */
public final class LegacyV010ControllerService extends ControllerGrpc.ControllerImplBase {
    private final ControllerService current;
    private final CallRunner runner;

    public LegacyV010ControllerService(ControllerService current, CallRunner runner) {
        this.current = Objects.requireNonNull(current, "current");
        this.runner = Objects.requireNonNull(runner, "runner");
    }

    private static String volumeId(String volumeId) {
        if (volumeId.isEmpty()) {
            throw new InvalidArgumentException("volume_id: required field is missing (REQUIRED in spec v0.1.0)");
        }
        return volumeId;
    }

    @Override
    public void enableVolumeReplication(io.volrep.proto.replication.v0_1_0.EnableVolumeReplicationRequest request,
            StreamObserver<io.volrep.proto.replication.v0_1_0.EnableVolumeReplicationResponse> observer) {
        runner.unary(Rpc.ENABLE_VOLUME_REPLICATION, request, observer, r -> current.enable(
                EnableVolumeReplicationRequest.newBuilder().setVolumeId(volumeId(r.getVolumeId()))
                        .putAllParameters(r.getParametersMap()).putAllSecrets(r.getSecretsMap()).build())
                .map(x -> io.volrep.proto.replication.v0_1_0.EnableVolumeReplicationResponse.getDefaultInstance()));
    }

    @Override
    public void disableVolumeReplication(io.volrep.proto.replication.v0_1_0.DisableVolumeReplicationRequest request,
            StreamObserver<io.volrep.proto.replication.v0_1_0.DisableVolumeReplicationResponse> observer) {
        runner.unary(Rpc.DISABLE_VOLUME_REPLICATION, request, observer, r -> current.disable(
                DisableVolumeReplicationRequest.newBuilder().setVolumeId(volumeId(r.getVolumeId()))
                        .putAllParameters(r.getParametersMap()).putAllSecrets(r.getSecretsMap()).build())
                .map(x -> io.volrep.proto.replication.v0_1_0.DisableVolumeReplicationResponse.getDefaultInstance()));
    }

    @Override
    public void promoteVolume(io.volrep.proto.replication.v0_1_0.PromoteVolumeRequest request,
            StreamObserver<io.volrep.proto.replication.v0_1_0.PromoteVolumeResponse> observer) {
        runner.unary(Rpc.PROMOTE_VOLUME, request, observer, r -> current.promote(
                PromoteVolumeRequest.newBuilder().setVolumeId(volumeId(r.getVolumeId())).setForce(r.getForce())
                        .putAllParameters(r.getParametersMap()).putAllSecrets(r.getSecretsMap()).build())
                .map(x -> io.volrep.proto.replication.v0_1_0.PromoteVolumeResponse.getDefaultInstance()));
    }

    @Override
    public void demoteVolume(io.volrep.proto.replication.v0_1_0.DemoteVolumeRequest request,
            StreamObserver<io.volrep.proto.replication.v0_1_0.DemoteVolumeResponse> observer) {
        runner.unary(Rpc.DEMOTE_VOLUME, request, observer, r -> current.demote(
                DemoteVolumeRequest.newBuilder().setVolumeId(volumeId(r.getVolumeId())).setForce(r.getForce())
                        .putAllParameters(r.getParametersMap()).putAllSecrets(r.getSecretsMap()).build())
                .map(x -> io.volrep.proto.replication.v0_1_0.DemoteVolumeResponse.getDefaultInstance()));
    }

    @Override
    public void resyncVolume(io.volrep.proto.replication.v0_1_0.ResyncVolumeRequest request,
            StreamObserver<io.volrep.proto.replication.v0_1_0.ResyncVolumeResponse> observer) {
        runner.unary(Rpc.RESYNC_VOLUME, request, observer, r -> current.resync(
                ResyncVolumeRequest.newBuilder().setVolumeId(volumeId(r.getVolumeId())).setForce(r.getForce())
                        .putAllParameters(r.getParametersMap()).putAllSecrets(r.getSecretsMap()).build())
                .map(response -> io.volrep.proto.replication.v0_1_0.ResyncVolumeResponse.newBuilder()
                        .setReady(response.getReady()).build()));
    }
}
