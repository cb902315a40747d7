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
import io.volrep.api.UnimplementedException;
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
import io.volrep.spi.CallDeadline;
import io.volrep.spi.DemoteRequest;
import io.volrep.spi.DestinationRequest;
import io.volrep.spi.DisableRequest;
import io.volrep.spi.EnableRequest;
import io.volrep.spi.InfoRequest;
import io.volrep.spi.PromoteRequest;
import io.volrep.spi.ReplicationDriver;
import io.volrep.spi.ResyncRequest;
import io.volrep.spi.ResyncResult;
import io.volrep.spi.SourceChangeRequest;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;

/**
 * {@code replication.Controller} served by a {@link ReplicationDriver} through the {@link CallRunner}, in any spec
 * revision: each request is transcoded ({@link Transcoder}) into the current revision's message, validated once
 * and turned into the driver's typed request; the answer is transcoded back. An RPC the driver does not declare
 * ({@link ReplicationDriver#servedRpcs()}) answers 12 UNIMPLEMENTED without reaching it. The driver sees the same typed
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
    private final Set<Rpc> served;

    /** The current revision's service. */
    public ControllerService(ReplicationDriver driver, CallRunner runner) {
        this(driver, runner, SpecDialect.CURRENT);
    }

    /**
     * The service of spec revision {@code dialect}.
     *
     * @throws IllegalArgumentException when the driver's {@link ReplicationDriver#servedRpcs()} names another service's
     *                                  RPC
     */
    public ControllerService(ReplicationDriver driver, CallRunner runner, SpecDialect dialect) {
        this.driver = Objects.requireNonNull(driver, "driver");
        this.runner = Objects.requireNonNull(runner, "runner");
        this.transcoder = Transcoder.of(Objects.requireNonNull(dialect, "dialect"));
        this.kinds = Set.copyOf(Objects.requireNonNull(driver.supportedSourceKinds(), "supportedSourceKinds()"));
        this.served = served(driver);
    }

    /**
     * What {@code driver} declares it serves ({@link ReplicationDriver#servedRpcs()}), read once.
     *
     * @throws IllegalArgumentException when it names an RPC of another service
     */
    public static Set<Rpc> served(ReplicationDriver driver) {
        Set<Rpc> served = Set.copyOf(Objects.requireNonNull(driver.servedRpcs(), "servedRpcs()"));
        if (!served.stream().allMatch(Rpc::isReplication)) {
            throw new IllegalArgumentException(
                    "ReplicationDriver.servedRpcs() must hold replication.Controller RPCs only, got " + served);
        }
        return served;
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
                            (wire, deadline) -> prepare(rpc, transcoder.requestFromWire(rpc, wire), deadline)
                                    .map(r -> transcoder.responseToWire(rpc, r)))));
        }
        return service.build();
    }

    /**
     * Validates a current-revision request (the same checks for every RPC) and prepares the driver call; an RPC the
     * driver does not serve answers 12 UNIMPLEMENTED first, without calling it.
     */
    CallRunner.Call<Message> prepare(Rpc rpc, Message request, CallDeadline deadline) {
        if (!served.contains(rpc)) {
            throw new UnimplementedException(rpc.methodName() + " is not implemented by this plugin");
        }
        RequestFields f = RequestFields.of(request);
        ReplicationSource source = RequestValidation.source(f.source() != null, f.source(), f.volumeId(), kinds);
        Map<String, String> parameters = RequestValidation.parameters(f.parameters());
        Secrets secrets = RequestValidation.secrets(f.secrets());
        String replicationId = RequestValidation.replicationId(f.replicationId());
        Supplier<Message> invocation = switch (rpc) {
            case ENABLE_VOLUME_REPLICATION -> {
                EnableRequest r = change(EnableRequest.builder(), source, parameters, replicationId)
                        .secrets(secrets)
                        .deadline(deadline)
                        .build();
                yield () -> {
                    driver.enable(r);
                    return EnableVolumeReplicationResponse.getDefaultInstance();
                };
            }
            case DISABLE_VOLUME_REPLICATION -> {
                DisableRequest r = change(DisableRequest.builder(), source, parameters, replicationId)
                        .secrets(secrets)
                        .deadline(deadline)
                        .build();
                yield () -> {
                    driver.disable(r);
                    return DisableVolumeReplicationResponse.getDefaultInstance();
                };
            }
            case PROMOTE_VOLUME -> {
                PromoteRequest r = change(PromoteRequest.builder(), source, parameters, replicationId)
                        .force(f.force())
                        .secrets(secrets)
                        .deadline(deadline)
                        .build();
                yield () -> {
                    driver.promote(r);
                    return PromoteVolumeResponse.getDefaultInstance();
                };
            }
            case DEMOTE_VOLUME -> {
                DemoteRequest r = change(DemoteRequest.builder(), source, parameters, replicationId)
                        .force(f.force())
                        .secrets(secrets)
                        .deadline(deadline)
                        .build();
                yield () -> {
                    driver.demote(r);
                    return DemoteVolumeResponse.getDefaultInstance();
                };
            }
            case RESYNC_VOLUME -> {
                ResyncRequest r = change(ResyncRequest.builder(), source, parameters, replicationId)
                        .force(f.force())
                        .secrets(secrets)
                        .deadline(deadline)
                        .build();
                yield () -> resync(rpc, r);
            }
            case GET_VOLUME_REPLICATION_INFO -> {
                InfoRequest r = InfoRequest.builder()
                        .source(source)
                        .replicationId(replicationId)
                        .secrets(secrets)
                        .deadline(deadline)
                        .build();
                yield () -> info(rpc, r);
            }
            case GET_REPLICATION_DESTINATION_INFO -> {
                DestinationRequest r = DestinationRequest.builder()
                        .source(source)
                        .secrets(secrets)
                        .deadline(deadline)
                        .build();
                yield () -> destination(rpc, r);
            }
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
        return new CallRunner.Call<>(source, source.toString(), secrets, invocation);
    }

    /** A change request's builder with what every change request carries. */
    private static <B extends SourceChangeRequest.Builder<B>> B change(
            B builder, ReplicationSource source, Map<String, String> parameters, String replicationId) {
        return builder.source(source).parameters(parameters).replicationId(replicationId);
    }

    private Message resync(Rpc rpc, ResyncRequest r) {
        ResyncResult result = driver.resync(r);
        if (result == null) {
            throw new InvalidDriverResponseException("resync returned null instead of a ResyncResult");
        }
        return checked(
                rpc,
                r.source(),
                ResyncVolumeResponse.newBuilder().setReady(result.ready()).build());
    }

    private Message info(Rpc rpc, InfoRequest r) {
        ReplicationInfo info = driver.info(r);
        if (info == null) {
            throw new InvalidDriverResponseException("info returned null; last_sync_time is REQUIRED");
        }
        return checked(rpc, r.source(), WireMapping.toProto(info));
    }

    private Message destination(Rpc rpc, DestinationRequest r) {
        ReplicationDestination destination = driver.destination(r);
        // No destination is judged as the answer without one: replication_destination is REQUIRED.
        return checked(
                rpc,
                r.source(),
                destination == null
                        ? GetReplicationDestinationInfoResponse.getDefaultInstance()
                        : WireMapping.toProto(destination));
    }

    /** The driver's answer, if it keeps the spec's {@link AnswerRules}: else an invalid driver answer. */
    private static Message checked(Rpc rpc, ReplicationSource source, Message answer) {
        InvalidDriverResponseException.requireNoProblems("", AnswerRules.of(rpc, answer, source.kind()));
        return answer;
    }
}
