package io.volrep.spi.internal.runtime;

import com.google.protobuf.Message;
import io.grpc.BindableService;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ServerCalls;
import io.volrep.api.ReplicationDestination;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.Secrets;
import io.volrep.api.SpecDialect;
import io.volrep.api.internal.wire.AnswerRules;
import io.volrep.api.internal.wire.RequestFields;
import io.volrep.api.internal.wire.Transcoder;
import io.volrep.api.internal.wire.WireMapping;
import io.volrep.proto.replication.DemoteVolumeResponse;
import io.volrep.proto.replication.DisableVolumeReplicationResponse;
import io.volrep.proto.replication.EnableVolumeReplicationResponse;
import io.volrep.proto.replication.GetReplicationDestinationInfoResponse;
import io.volrep.proto.replication.PromoteVolumeResponse;
import io.volrep.proto.replication.ResyncVolumeResponse;
import io.volrep.spi.DemoteRequest;
import io.volrep.spi.DestinationRequest;
import io.volrep.spi.DisableRequest;
import io.volrep.spi.EnableRequest;
import io.volrep.spi.InfoRequest;
import io.volrep.spi.PromoteRequest;
import io.volrep.spi.ReplicationDriver;
import io.volrep.spi.ResyncRequest;
import io.volrep.spi.ResyncResult;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * {@code replication.Controller} served by a {@link ReplicationDriver} through the {@link CallRunner}, in any spec
 * revision: each request is transcoded ({@link Transcoder}) into the current revision's message, validated once
 * and turned into the driver's typed request; the answer is transcoded back. The driver sees the same typed
 * requests in every revision. An RPC the revision does not define is not bound, so gRPC answers
 * 12 UNIMPLEMENTED (v0.1.0's GetVolumeReplicationInfo).
 *
 * <pre>{@code
 * ServerServiceDefinition current = new ControllerService(driver, runner).bindService();
 * ServerServiceDefinition legacy = new ControllerService(driver, runner, SpecDialect.V0_1_3).bindService();
 * }</pre>
 */
public final class ControllerService implements BindableService {
    private final ReplicationDriver driver;
    private final CallRunner runner;
    private final Transcoder transcoder;
    private final Set<ReplicationSource.Kind> kinds;

    /** The current revision's service. */
    public ControllerService(ReplicationDriver driver, CallRunner runner) {
        this(driver, runner, SpecDialect.CURRENT);
    }

    /** The service of spec revision {@code dialect}. */
    public ControllerService(ReplicationDriver driver, CallRunner runner, SpecDialect dialect) {
        this.driver = Objects.requireNonNull(driver, "driver");
        this.runner = Objects.requireNonNull(runner, "runner");
        this.transcoder = Transcoder.of(Objects.requireNonNull(dialect, "dialect"));
        this.kinds = Set.copyOf(Objects.requireNonNull(driver.supportedSourceKinds(), "supportedSourceKinds()"));
    }

    @Override
    public ServerServiceDefinition bindService() {
        ServerServiceDefinition.Builder service = ServerServiceDefinition.builder(transcoder.service());
        for (Rpc rpc : transcoder.rpcs()) {
            service.addMethod(
                    transcoder.method(rpc),
                    ServerCalls.asyncUnaryCall((request, observer) -> runner.unary(
                            rpc,
                            request,
                            observer,
                            wire -> prepare(rpc, transcoder.requestFromWire(rpc, wire))
                                    .map(r -> transcoder.responseToWire(rpc, r)))));
        }
        return service.build();
    }

    /** A validated current-revision request: what every RPC's driver request is made of. */
    private record Validated(
            ReplicationSource source,
            Map<String, String> parameters,
            Secrets secrets,
            Optional<String> replicationId,
            boolean force) {
        CallRunner.Call<Message> call(Supplier<Message> invocation) {
            return new CallRunner.Call<>(source, source.toString(), secrets, invocation);
        }
    }

    /** Validates a current-revision request (the same checks for every RPC) and prepares the driver call. */
    CallRunner.Call<Message> prepare(Rpc rpc, Message request) {
        RequestFields f = RequestFields.of(request);
        ReplicationSource source = RequestValidation.source(f.source() != null, f.source(), f.volumeId(), kinds);
        Validated v = new Validated(
                source,
                RequestValidation.parameters(f.parameters()),
                RequestValidation.secrets(f.secrets()),
                RequestValidation.replicationId(f.replicationId()),
                f.force());
        return switch (rpc) {
            case ENABLE_VOLUME_REPLICATION ->
                v.call(() -> {
                    driver.enable(new EnableRequest(source, v.parameters(), v.secrets(), v.replicationId()));
                    return EnableVolumeReplicationResponse.getDefaultInstance();
                });
            case DISABLE_VOLUME_REPLICATION ->
                v.call(() -> {
                    driver.disable(new DisableRequest(source, v.parameters(), v.secrets(), v.replicationId()));
                    return DisableVolumeReplicationResponse.getDefaultInstance();
                });
            case PROMOTE_VOLUME ->
                v.call(() -> {
                    driver.promote(
                            new PromoteRequest(source, v.parameters(), v.secrets(), v.replicationId(), v.force()));
                    return PromoteVolumeResponse.getDefaultInstance();
                });
            case DEMOTE_VOLUME ->
                v.call(() -> {
                    driver.demote(new DemoteRequest(source, v.parameters(), v.secrets(), v.replicationId(), v.force()));
                    return DemoteVolumeResponse.getDefaultInstance();
                });
            case RESYNC_VOLUME ->
                v.call(() -> {
                    ResyncResult result = driver.resync(
                            new ResyncRequest(source, v.parameters(), v.secrets(), v.replicationId(), v.force()));
                    if (result == null) {
                        throw new InvalidDriverResponseException("resync returned null instead of a ResyncResult");
                    }
                    return checked(
                            rpc,
                            source,
                            ResyncVolumeResponse.newBuilder()
                                    .setReady(result.ready())
                                    .build());
                });
            case GET_VOLUME_REPLICATION_INFO ->
                v.call(() -> {
                    ReplicationInfo info = driver.info(new InfoRequest(source, v.secrets(), v.replicationId()));
                    if (info == null) {
                        throw new InvalidDriverResponseException("info returned null; last_sync_time is REQUIRED");
                    }
                    return checked(rpc, source, WireMapping.toProto(info));
                });
            case GET_REPLICATION_DESTINATION_INFO ->
                v.call(() -> {
                    ReplicationDestination destination =
                            driver.destination(new DestinationRequest(source, v.secrets()));
                    // No destination is judged as the answer without one: replication_destination is REQUIRED.
                    return checked(
                            rpc,
                            source,
                            destination == null
                                    ? GetReplicationDestinationInfoResponse.getDefaultInstance()
                                    : WireMapping.toProto(destination));
                });
            case NODE_HEALER,
                    GET_IDENTITY,
                    GET_CAPABILITIES,
                    PROBE,
                    CREATE_VOLUME_GROUP,
                    MODIFY_VOLUME_GROUP_MEMBERSHIP,
                    DELETE_VOLUME_GROUP,
                    LIST_VOLUME_GROUPS,
                    CONTROLLER_GET_VOLUME_GROUP ->
                throw new IllegalArgumentException(rpc + " is not a replication.Controller method");
        };
    }

    /** The driver's answer, if it keeps the spec's {@link AnswerRules}: else an invalid driver answer. */
    private static Message checked(Rpc rpc, ReplicationSource source, Message answer) {
        InvalidDriverResponseException.requireNoProblems("", AnswerRules.of(rpc, answer, source.kind()));
        return answer;
    }
}
