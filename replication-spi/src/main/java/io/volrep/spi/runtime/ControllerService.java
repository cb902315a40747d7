package io.volrep.spi.runtime;

import io.grpc.stub.StreamObserver;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.Secrets;
import io.volrep.api.wire.WireMapping;
import io.volrep.proto.replication.ControllerGrpc;
import io.volrep.proto.replication.DemoteVolumeRequest;
import io.volrep.proto.replication.DemoteVolumeResponse;
import io.volrep.proto.replication.DisableVolumeReplicationRequest;
import io.volrep.proto.replication.DisableVolumeReplicationResponse;
import io.volrep.proto.replication.EnableVolumeReplicationRequest;
import io.volrep.proto.replication.EnableVolumeReplicationResponse;
import io.volrep.proto.replication.GetVolumeReplicationInfoRequest;
import io.volrep.proto.replication.GetVolumeReplicationInfoResponse;
import io.volrep.proto.replication.PromoteVolumeRequest;
import io.volrep.proto.replication.PromoteVolumeResponse;
import io.volrep.proto.replication.ResyncVolumeRequest;
import io.volrep.proto.replication.ResyncVolumeResponse;
import io.volrep.spi.DemoteRequest;
import io.volrep.spi.DisableRequest;
import io.volrep.spi.EnableRequest;
import io.volrep.spi.InfoRequest;
import io.volrep.spi.PromoteRequest;
import io.volrep.spi.ReplicationDriver;
import io.volrep.spi.ResyncRequest;
import io.volrep.spi.ResyncResult;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;

/**
 * {@code replication.Controller} served by a {@link ReplicationDriver} through the {@link CallRunner}.
 *
 * <pre>{@code
 * ServerServiceDefinition service = new ControllerService(driver, runner).bindService();
 * }</pre>
 */
public final class ControllerService extends ControllerGrpc.ControllerImplBase {
    /** protobuf's Timestamp range: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z. */
    private static final Instant MIN_TIMESTAMP = Instant.parse("0001-01-01T00:00:00Z");
    private static final Instant MAX_TIMESTAMP = Instant.parse("9999-12-31T23:59:59.999999999Z");

    private final ReplicationDriver driver;
    private final CallRunner runner;
    private final Set<ReplicationSource.Kind> kinds;

    public ControllerService(ReplicationDriver driver, CallRunner runner) {
        this.driver = Objects.requireNonNull(driver, "driver");
        this.runner = Objects.requireNonNull(runner, "runner");
        this.kinds = Set.copyOf(Objects.requireNonNull(driver.supportedSourceKinds(), "supportedSourceKinds()"));
    }

    private static <R> CallRunner.Call<R> call(ReplicationSource source, Secrets secrets, Supplier<R> invocation) {
        return new CallRunner.Call<>(source, source.toString(), secrets, invocation);
    }

    @Override
    public void enableVolumeReplication(EnableVolumeReplicationRequest request,
                                        StreamObserver<EnableVolumeReplicationResponse> observer) {
        runner.unary(Rpc.ENABLE_VOLUME_REPLICATION, request, observer, this::enable);
    }

    /** Validates an EnableVolumeReplication request and prepares the driver call (shared with the legacy dialects). */
    CallRunner.Call<EnableVolumeReplicationResponse> enable(EnableVolumeReplicationRequest r) {
        ReplicationSource source = RequestValidation.source(r.hasReplicationSource(), r.getReplicationSource(),
                r.getVolumeId(), kinds);
        Map<String, String> parameters = RequestValidation.parameters(r.getParametersMap());
        Secrets secrets = RequestValidation.secrets(r.getSecretsMap());
        EnableRequest typed = new EnableRequest(source, parameters, secrets,
                RequestValidation.replicationId(r.getReplicationId()));
        return call(source, secrets, () -> {
            driver.enable(typed);
            return EnableVolumeReplicationResponse.getDefaultInstance();
        });
    }

    @Override
    public void disableVolumeReplication(DisableVolumeReplicationRequest request,
                                         StreamObserver<DisableVolumeReplicationResponse> observer) {
        runner.unary(Rpc.DISABLE_VOLUME_REPLICATION, request, observer, this::disable);
    }

    /** Validates a DisableVolumeReplication request and prepares the driver call (shared with the legacy dialects). */
    CallRunner.Call<DisableVolumeReplicationResponse> disable(DisableVolumeReplicationRequest r) {
        ReplicationSource source = RequestValidation.source(r.hasReplicationSource(), r.getReplicationSource(),
                r.getVolumeId(), kinds);
        Map<String, String> parameters = RequestValidation.parameters(r.getParametersMap());
        Secrets secrets = RequestValidation.secrets(r.getSecretsMap());
        DisableRequest typed = new DisableRequest(source, parameters, secrets,
                RequestValidation.replicationId(r.getReplicationId()));
        return call(source, secrets, () -> {
            driver.disable(typed);
            return DisableVolumeReplicationResponse.getDefaultInstance();
        });
    }

    @Override
    public void promoteVolume(PromoteVolumeRequest request, StreamObserver<PromoteVolumeResponse> observer) {
        runner.unary(Rpc.PROMOTE_VOLUME, request, observer, this::promote);
    }

    /** Validates a PromoteVolume request and prepares the driver call (shared with the legacy dialects). */
    CallRunner.Call<PromoteVolumeResponse> promote(PromoteVolumeRequest r) {
        ReplicationSource source = RequestValidation.source(r.hasReplicationSource(), r.getReplicationSource(),
                r.getVolumeId(), kinds);
        Map<String, String> parameters = RequestValidation.parameters(r.getParametersMap());
        Secrets secrets = RequestValidation.secrets(r.getSecretsMap());
        PromoteRequest typed = new PromoteRequest(source, parameters, secrets,
                RequestValidation.replicationId(r.getReplicationId()), r.getForce());
        return call(source, secrets, () -> {
            driver.promote(typed);
            return PromoteVolumeResponse.getDefaultInstance();
        });
    }

    @Override
    public void demoteVolume(DemoteVolumeRequest request, StreamObserver<DemoteVolumeResponse> observer) {
        runner.unary(Rpc.DEMOTE_VOLUME, request, observer, this::demote);
    }

    /** Validates a DemoteVolume request and prepares the driver call (shared with the legacy dialects). */
    CallRunner.Call<DemoteVolumeResponse> demote(DemoteVolumeRequest r) {
        ReplicationSource source = RequestValidation.source(r.hasReplicationSource(), r.getReplicationSource(),
                r.getVolumeId(), kinds);
        Map<String, String> parameters = RequestValidation.parameters(r.getParametersMap());
        Secrets secrets = RequestValidation.secrets(r.getSecretsMap());
        DemoteRequest typed = new DemoteRequest(source, parameters, secrets,
                RequestValidation.replicationId(r.getReplicationId()), r.getForce());
        return call(source, secrets, () -> {
            driver.demote(typed);
            return DemoteVolumeResponse.getDefaultInstance();
        });
    }

    @Override
    public void resyncVolume(ResyncVolumeRequest request, StreamObserver<ResyncVolumeResponse> observer) {
        runner.unary(Rpc.RESYNC_VOLUME, request, observer, this::resync);
    }

    /** Validates a ResyncVolume request and prepares the driver call (shared with the legacy dialects). */
    CallRunner.Call<ResyncVolumeResponse> resync(ResyncVolumeRequest r) {
        ReplicationSource source = RequestValidation.source(r.hasReplicationSource(), r.getReplicationSource(),
                r.getVolumeId(), kinds);
        Map<String, String> parameters = RequestValidation.parameters(r.getParametersMap());
        Secrets secrets = RequestValidation.secrets(r.getSecretsMap());
        ResyncRequest typed = new ResyncRequest(source, parameters, secrets,
                RequestValidation.replicationId(r.getReplicationId()), r.getForce());
        return call(source, secrets, () -> {
            ResyncResult result = driver.resync(typed);
            if (result == null) {
                throw new InvalidDriverResponseException("resync returned null instead of a ResyncResult");
            }
            return ResyncVolumeResponse.newBuilder().setReady(result.ready()).build();
        });
    }

    @Override
    public void getVolumeReplicationInfo(GetVolumeReplicationInfoRequest request,
                                         StreamObserver<GetVolumeReplicationInfoResponse> observer) {
        runner.unary(Rpc.GET_VOLUME_REPLICATION_INFO, request, observer, this::info);
    }

    /** Validates a GetVolumeReplicationInfo request and prepares the driver call (shared with the legacy dialects). */
    CallRunner.Call<GetVolumeReplicationInfoResponse> info(GetVolumeReplicationInfoRequest r) {
        ReplicationSource source = RequestValidation.source(r.hasReplicationSource(), r.getReplicationSource(),
                r.getVolumeId(), kinds);
        Secrets secrets = RequestValidation.secrets(r.getSecretsMap());
        InfoRequest typed = new InfoRequest(source, secrets, RequestValidation.replicationId(r.getReplicationId()));
        return call(source, secrets, () -> WireMapping.toProto(checked(driver.info(typed))));
    }

    /** The driver's info, if the spec allows it on the wire. */
    static ReplicationInfo checked(ReplicationInfo info) {
        if (info == null) {
            throw new InvalidDriverResponseException("info returned null; last_sync_time is REQUIRED");
        }
        if (info.lastSyncTime() == null) {
            throw new InvalidDriverResponseException("last_sync_time is REQUIRED but missing");
        }
        Instant time = info.lastSyncTime();
        if (time.isBefore(MIN_TIMESTAMP) || time.isAfter(MAX_TIMESTAMP)) {
            throw new InvalidDriverResponseException("last_sync_time " + time + " is outside protobuf's Timestamp range");
        }
        if (info.lastSyncBytes().isPresent() && info.lastSyncBytes().getAsLong() < 0) {
            throw new InvalidDriverResponseException("last_sync_bytes must not be negative");
        }
        if (info.lastSyncDuration().isPresent() && info.lastSyncDuration().get().isNegative()) {
            throw new InvalidDriverResponseException("last_sync_duration must not be negative");
        }
        return info;
    }
}
