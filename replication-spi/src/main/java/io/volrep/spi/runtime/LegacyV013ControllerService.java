package io.volrep.spi.runtime;

import io.grpc.stub.StreamObserver;
import io.volrep.api.CsiLimits;
import io.volrep.api.InvalidArgumentException;
import io.volrep.api.Rpc;
import io.volrep.proto.replication.DemoteVolumeRequest;
import io.volrep.proto.replication.DisableVolumeReplicationRequest;
import io.volrep.proto.replication.EnableVolumeReplicationRequest;
import io.volrep.proto.replication.GetVolumeReplicationInfoRequest;
import io.volrep.proto.replication.PromoteVolumeRequest;
import io.volrep.proto.replication.ReplicationSource;
import io.volrep.proto.replication.ResyncVolumeRequest;
import io.volrep.proto.replication.v0_1_3.ControllerGrpc;
import java.util.Objects;

/**
 * {@code replication.Controller} as spec revision v0.1.3 defines it, on the legacy generated stubs: each request
 * is decoded into the current revision's message and runs through the {@link ControllerService}'s own
 * validation and driver call, so the driver sees the same typed requests in every dialect.
 *
 * <p>v0.1.3's rules on top: {@code volume_id} is REQUIRED (INVALID_ARGUMENT when empty, even with a
 * {@code replication_source}); {@code replication_source} is numbered {@code volumegroup = 1, volume = 2}; a
 * volume source must agree with {@code volume_id}, a group source carries {@code volume_id} as the revision
 * demands but is addressed by the group; {@code volume_id} alone is a volume source. Info answers only
 * {@code last_sync_time}.
 *
 * <pre>{@code
 * ServerServiceDefinition service = new LegacyV013ControllerService(new ControllerService(driver, runner), runner)
 *         .bindService();
 * }</pre>
 */
public final class LegacyV013ControllerService extends ControllerGrpc.ControllerImplBase {
    private final ControllerService current;
    private final CallRunner runner;

    public LegacyV013ControllerService(ControllerService current, CallRunner runner) {
        this.current = Objects.requireNonNull(current, "current");
        this.runner = Objects.requireNonNull(runner, "runner");
    }

    /** How the current revision names the source of a v0.1.3 request: its volume_id and replication_source. */
    record Addressed(String volumeId, ReplicationSource source) {
    }

    static Addressed address(String volumeId, boolean hasSource,
                             io.volrep.proto.replication.v0_1_3.ReplicationSource legacy) {
        if (volumeId.isEmpty()) {
            throw new InvalidArgumentException("volume_id: required field is missing (REQUIRED in spec v0.1.3)");
        }
        CsiLimits.requireStringWithinLimit("volume_id", volumeId);
        if (!hasSource) {
            return new Addressed(volumeId, null);
        }
        return switch (legacy.getTypeCase()) {
            case VOLUME -> new Addressed(volumeId, ReplicationSource.newBuilder().setVolume(
                    ReplicationSource.VolumeSource.newBuilder().setVolumeId(legacy.getVolume().getVolumeId())).build());
            case VOLUMEGROUP -> new Addressed("", ReplicationSource.newBuilder().setVolumegroup(
                    ReplicationSource.VolumeGroupSource.newBuilder()
                            .setVolumeGroupId(legacy.getVolumegroup().getVolumeGroupId())).build());
            case TYPE_NOT_SET -> new Addressed("", ReplicationSource.getDefaultInstance());
        };
    }

    @Override
    public void enableVolumeReplication(io.volrep.proto.replication.v0_1_3.EnableVolumeReplicationRequest request,
            StreamObserver<io.volrep.proto.replication.v0_1_3.EnableVolumeReplicationResponse> observer) {
        runner.unary(Rpc.ENABLE_VOLUME_REPLICATION, request, observer, r -> {
            Addressed a = address(r.getVolumeId(), r.hasReplicationSource(), r.getReplicationSource());
            EnableVolumeReplicationRequest.Builder b = EnableVolumeReplicationRequest.newBuilder()
                    .setVolumeId(a.volumeId()).putAllParameters(r.getParametersMap())
                    .putAllSecrets(r.getSecretsMap()).setReplicationId(r.getReplicationId());
            if (a.source() != null) {
                b.setReplicationSource(a.source());
            }
            return current.enable(b.build()).map(
                    x -> io.volrep.proto.replication.v0_1_3.EnableVolumeReplicationResponse.getDefaultInstance());
        });
    }

    @Override
    public void disableVolumeReplication(io.volrep.proto.replication.v0_1_3.DisableVolumeReplicationRequest request,
            StreamObserver<io.volrep.proto.replication.v0_1_3.DisableVolumeReplicationResponse> observer) {
        runner.unary(Rpc.DISABLE_VOLUME_REPLICATION, request, observer, r -> {
            Addressed a = address(r.getVolumeId(), r.hasReplicationSource(), r.getReplicationSource());
            DisableVolumeReplicationRequest.Builder b = DisableVolumeReplicationRequest.newBuilder()
                    .setVolumeId(a.volumeId()).putAllParameters(r.getParametersMap())
                    .putAllSecrets(r.getSecretsMap()).setReplicationId(r.getReplicationId());
            if (a.source() != null) {
                b.setReplicationSource(a.source());
            }
            return current.disable(b.build()).map(
                    x -> io.volrep.proto.replication.v0_1_3.DisableVolumeReplicationResponse.getDefaultInstance());
        });
    }

    @Override
    public void promoteVolume(io.volrep.proto.replication.v0_1_3.PromoteVolumeRequest request,
            StreamObserver<io.volrep.proto.replication.v0_1_3.PromoteVolumeResponse> observer) {
        runner.unary(Rpc.PROMOTE_VOLUME, request, observer, r -> {
            Addressed a = address(r.getVolumeId(), r.hasReplicationSource(), r.getReplicationSource());
            PromoteVolumeRequest.Builder b = PromoteVolumeRequest.newBuilder()
                    .setVolumeId(a.volumeId()).setForce(r.getForce()).putAllParameters(r.getParametersMap())
                    .putAllSecrets(r.getSecretsMap()).setReplicationId(r.getReplicationId());
            if (a.source() != null) {
                b.setReplicationSource(a.source());
            }
            return current.promote(b.build()).map(
                    x -> io.volrep.proto.replication.v0_1_3.PromoteVolumeResponse.getDefaultInstance());
        });
    }

    @Override
    public void demoteVolume(io.volrep.proto.replication.v0_1_3.DemoteVolumeRequest request,
            StreamObserver<io.volrep.proto.replication.v0_1_3.DemoteVolumeResponse> observer) {
        runner.unary(Rpc.DEMOTE_VOLUME, request, observer, r -> {
            Addressed a = address(r.getVolumeId(), r.hasReplicationSource(), r.getReplicationSource());
            DemoteVolumeRequest.Builder b = DemoteVolumeRequest.newBuilder()
                    .setVolumeId(a.volumeId()).setForce(r.getForce()).putAllParameters(r.getParametersMap())
                    .putAllSecrets(r.getSecretsMap()).setReplicationId(r.getReplicationId());
            if (a.source() != null) {
                b.setReplicationSource(a.source());
            }
            return current.demote(b.build()).map(
                    x -> io.volrep.proto.replication.v0_1_3.DemoteVolumeResponse.getDefaultInstance());
        });
    }

    @Override
    public void resyncVolume(io.volrep.proto.replication.v0_1_3.ResyncVolumeRequest request,
            StreamObserver<io.volrep.proto.replication.v0_1_3.ResyncVolumeResponse> observer) {
        runner.unary(Rpc.RESYNC_VOLUME, request, observer, r -> {
            Addressed a = address(r.getVolumeId(), r.hasReplicationSource(), r.getReplicationSource());
            ResyncVolumeRequest.Builder b = ResyncVolumeRequest.newBuilder()
                    .setVolumeId(a.volumeId()).setForce(r.getForce()).putAllParameters(r.getParametersMap())
                    .putAllSecrets(r.getSecretsMap()).setReplicationId(r.getReplicationId());
            if (a.source() != null) {
                b.setReplicationSource(a.source());
            }
            return current.resync(b.build()).map(response -> io.volrep.proto.replication.v0_1_3.ResyncVolumeResponse
                    .newBuilder().setReady(response.getReady()).build());
        });
    }

    @Override
    public void getVolumeReplicationInfo(io.volrep.proto.replication.v0_1_3.GetVolumeReplicationInfoRequest request,
            StreamObserver<io.volrep.proto.replication.v0_1_3.GetVolumeReplicationInfoResponse> observer) {
        runner.unary(Rpc.GET_VOLUME_REPLICATION_INFO, request, observer, r -> {
            Addressed a = address(r.getVolumeId(), r.hasReplicationSource(), r.getReplicationSource());
            GetVolumeReplicationInfoRequest.Builder b = GetVolumeReplicationInfoRequest.newBuilder()
                    .setVolumeId(a.volumeId()).putAllSecrets(r.getSecretsMap())
                    .setReplicationId(r.getReplicationId());
            if (a.source() != null) {
                b.setReplicationSource(a.source());
            }
            // v0.1.3 knows only last_sync_time: duration and bytes the driver reports are not on this wire.
            return current.info(b.build()).map(info -> io.volrep.proto.replication.v0_1_3
                    .GetVolumeReplicationInfoResponse.newBuilder().setLastSyncTime(info.getLastSyncTime()).build());
        });
    }
}
