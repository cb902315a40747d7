package io.volrep.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.protobuf.Message;
import io.grpc.CallOptions;
import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCall.Listener;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.volrep.api.ErrorScheme;
import io.volrep.api.HealReport;
import io.volrep.api.ProtocolViolationException;
import io.volrep.api.ReplicationDestination;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.ReplicationSource.Kind;
import io.volrep.api.Rpc;
import io.volrep.api.SpecDialect;
import io.volrep.api.internal.wire.RequestFields;
import io.volrep.api.internal.wire.Transcoder;
import io.volrep.api.internal.wire.WireMapping;
import io.volrep.client.ReplicationClient;
import io.volrep.proto.healer.HealerNodeGrpc;
import io.volrep.proto.healer.NodeHealerRequest;
import io.volrep.proto.healer.NodeHealerResponse;
import io.volrep.proto.identity.Capability;
import io.volrep.proto.identity.GetCapabilitiesRequest;
import io.volrep.proto.identity.GetCapabilitiesResponse;
import io.volrep.proto.identity.GetIdentityRequest;
import io.volrep.proto.identity.GetIdentityResponse;
import io.volrep.proto.identity.IdentityGrpc;
import io.volrep.proto.identity.ProbeRequest;
import io.volrep.proto.identity.ProbeResponse;
import io.volrep.proto.replication.GetReplicationDestinationInfoResponse;
import io.volrep.proto.replication.GetVolumeReplicationInfoResponse;
import io.volrep.proto.replication.ResyncVolumeResponse;
import io.volrep.spi.DestinationRequest;
import io.volrep.spi.DisableRequest;
import io.volrep.spi.EnableRequest;
import io.volrep.spi.HealRequest;
import io.volrep.spi.HealerDriver;
import io.volrep.spi.InfoRequest;
import io.volrep.spi.ReplicationDriver;
import io.volrep.spi.ReplicationServer;
import io.volrep.spi.ResyncRequest;
import io.volrep.spi.ResyncResult;
import io.volrep.spi.ServerCallEvent;
import io.volrep.spi.exec.ExecDriver;
import io.volrep.testkit.AnswerCorpus.Answer;
import io.volrep.testkit.LifecycleModel.State;
import io.volrep.testkit.reference.ReferenceDriver;
import io.volrep.testsupport.GrpcCleanup;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.opentest4j.TestAbortedException;

/**
 * One answer, four judges: every answer of {@link AnswerCorpus} goes through volrep's client, the SPI runtime (from a
 * driver), the exec bridge (from a driver executable) and the conformance kit, each over real gRPC, and all of them
 * must agree: a good answer passes everywhere; a bad one is rejected everywhere (the client throws
 * {@link ProtocolViolationException}, the runtime and the bridge answer the driver's answer as invalid, the kit fails
 * a required check), each naming the field.
 */
class AnswerAgreementTest {
    private static final Map<String, String> SECRETS = Map.of("user", "admin");
    private static final String VOLUME_PATH = "/var/lib/volrep/vol-0";

    @RegisterExtension
    static final GrpcCleanup grpc = new GrpcCleanup();

    @TempDir
    static Path dir;

    /** What the raw plugin answers, by method: the answer under test, and sane answers to everything else. */
    private static final Map<String, Message> rawAnswers = new ConcurrentHashMap<>();

    private static ReplicationClient client;
    private static Path execAnswer;
    private static ManagedChannel execChannel;
    private static final List<ServerCallEvent> execEvents = new CopyOnWriteArrayList<>();

    /** A layer's judgement of one answer. */
    record Verdict(Judgement judgement, String detail) {
        enum Judgement {
            ACCEPTED,
            REJECTED,
            NOT_APPLICABLE
        }

        static Verdict accepted() {
            return new Verdict(Judgement.ACCEPTED, "");
        }

        static Verdict rejected(String why) {
            return new Verdict(Judgement.REJECTED, why);
        }

        static Verdict notApplicable(String why) {
            return new Verdict(Judgement.NOT_APPLICABLE, why);
        }
    }

    static Stream<Answer> answers() {
        return AnswerCorpus.all().stream();
    }

    @BeforeAll
    static void start() throws Exception {
        String name = InProcessServerBuilder.generateName();
        InProcessServerBuilder raw = InProcessServerBuilder.forName(name).directExecutor();
        Transcoder current = Transcoder.of(SpecDialect.CURRENT);
        ServerServiceDefinition.Builder controller = ServerServiceDefinition.builder(current.service());
        for (Rpc rpc : current.rpcs()) {
            controller.addMethod(current.method(rpc), answering());
        }
        raw.addService(controller.build());
        raw.addService(ServerServiceDefinition.builder(HealerNodeGrpc.SERVICE_NAME)
                .addMethod(HealerNodeGrpc.getNodeHealerMethod(), answering())
                .build());
        raw.addService(ServerServiceDefinition.builder(IdentityGrpc.SERVICE_NAME)
                .addMethod(IdentityGrpc.getGetIdentityMethod(), answering())
                .addMethod(IdentityGrpc.getGetCapabilitiesMethod(), answering())
                .addMethod(IdentityGrpc.getProbeMethod(), answering())
                .build());
        grpc.register(raw.build().start());
        client = grpc.register(
                ReplicationClient.builder().target("inprocess:" + name).build());

        execAnswer = dir.resolve("answer.json");
        Path script = dir.resolve("driver");
        Files.writeString(
                script,
                "#!/bin/sh\n"
                        + "if [ \"$1\" = init ]; then echo '{\"status\":\"Success\",\"capabilities\":{\"destination\":true,"
                        + "\"heal\":true}}'; exit 0; fi\n"
                        + "cat '" + execAnswer + "'\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        ExecDriver exec = grpc.register(ExecDriver.builder()
                .executable(script)
                .timeout(Duration.ofSeconds(20))
                .build());
        String execName = InProcessServerBuilder.generateName();
        grpc.register(ReplicationServer.builder()
                .driver(exec)
                .healer(exec)
                .observer(execEvents::add)
                .listen("inprocess:" + execName)
                .build()
                .start());
        execChannel = grpc.register(InProcessChannelBuilder.forName(execName).build());
    }

    /** A handler answering what {@link #rawAnswers} holds for its method. */
    @SuppressWarnings("unchecked")
    private static <Q, R> ServerCallHandler<Q, R> answering() {
        return ServerCalls.asyncUnaryCall((request, observer) -> {
            observer.onNext((R)
                    rawAnswers.get(((Message) request).getDescriptorForType().getFullName()));
            observer.onCompleted();
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("answers")
    void everyLayerJudgesTheAnswerAlike(Answer answer) throws Exception {
        Map<String, Verdict> verdicts = new LinkedHashMap<>();
        verdicts.put("client", client(answer));
        verdicts.put("server runtime", server(answer));
        verdicts.put("exec bridge", exec(answer));
        verdicts.put("kit", kit(answer));

        SoftAssertions soft = new SoftAssertions();
        soft.assertThat(verdicts.get("client").judgement())
                .as("the client judges every answer")
                .isNotEqualTo(Verdict.Judgement.NOT_APPLICABLE);
        soft.assertThat(verdicts.get("kit").judgement())
                .as("the kit judges every answer")
                .isNotEqualTo(Verdict.Judgement.NOT_APPLICABLE);
        if (!answer.valid()) {
            // Each layer in its own terms: the client's exception names the field; the runtime answers the driver's
            // answer as invalid (the exec bridge too, unless its JSON was already malformed).
            soft.assertThat(verdicts.get("client").detail())
                    .as("client's field on %s", answer)
                    .startsWith("field " + answer.field());
            String server = verdicts.get("server runtime").detail();
            if (server.startsWith("UNKNOWN")) {
                soft.assertThat(server)
                        .as("server runtime on %s", answer)
                        .contains("driver returned an invalid response")
                        .endsWith("[DRIVER_FAILURE]");
            }
            String exec = verdicts.get("exec bridge").detail();
            if (exec.startsWith("UNKNOWN") && !exec.contains("malformed output")) {
                soft.assertThat(exec)
                        .as("exec bridge on %s", answer)
                        .contains("driver returned an invalid response")
                        .endsWith("[DRIVER_FAILURE]");
            }
        }
        verdicts.forEach((layer, v) -> {
            if (v.judgement() == Verdict.Judgement.NOT_APPLICABLE) {
                return;
            }
            if (answer.valid()) {
                soft.assertThat(v.judgement())
                        .as("%s on %s: %s", layer, answer, v.detail())
                        .isEqualTo(Verdict.Judgement.ACCEPTED);
            } else {
                soft.assertThat(v.judgement()).as("%s on %s", layer, answer).isEqualTo(Verdict.Judgement.REJECTED);
                soft.assertThat(v.detail())
                        .as("%s on %s names the field", layer, answer)
                        .containsAnyOf(answer.field(), execName(answer.field()));
            }
        });
        soft.assertAll();
    }

    // ------------------------------------------------------------------------------------------------ the client

    private static Map<String, Message> saneAnswers() {
        Map<String, Message> sane = new LinkedHashMap<>();
        sane.put(
                GetIdentityRequest.getDescriptor().getFullName(),
                GetIdentityResponse.newBuilder()
                        .setName("raw.example.com")
                        .setVendorVersion("1")
                        .build());
        sane.put(
                GetCapabilitiesRequest.getDescriptor().getFullName(),
                GetCapabilitiesResponse.newBuilder()
                        .addCapabilities(Capability.newBuilder()
                                .setVolumeReplication(Capability.VolumeReplication.newBuilder()
                                        .setType(Capability.VolumeReplication.Type.GET_REPLICATION_DESTINATION_INFO)))
                        .build());
        sane.put(ProbeRequest.getDescriptor().getFullName(), ProbeResponse.getDefaultInstance());
        return sane;
    }

    /** The request message the answer's RPC takes. */
    private static String requestType(Rpc rpc) {
        return switch (rpc) {
            case NODE_HEALER -> NodeHealerRequest.getDescriptor().getFullName();
            case GET_IDENTITY -> GetIdentityRequest.getDescriptor().getFullName();
            case GET_CAPABILITIES -> GetCapabilitiesRequest.getDescriptor().getFullName();
            case PROBE -> ProbeRequest.getDescriptor().getFullName();
            default ->
                Transcoder.of(SpecDialect.CURRENT).method(rpc).getRequestMarshaller()
                                instanceof MethodDescriptor.PrototypeMarshaller<?> p
                        ? ((Message) p.getMessagePrototype())
                                .getDescriptorForType()
                                .getFullName()
                        : "";
        };
    }

    private static Verdict client(Answer a) {
        rawAnswers.clear();
        rawAnswers.putAll(saneAnswers());
        rawAnswers.put(requestType(a.rpc()), a.wire());
        try {
            switch (a.rpc()) {
                case GET_VOLUME_REPLICATION_INFO -> client.volume("vol-0").info();
                case GET_REPLICATION_DESTINATION_INFO ->
                    (a.kind() == Kind.VOLUME ? client.volume("vol-0") : client.volumeGroup("grp-0")).destination();
                case RESYNC_VOLUME -> client.volume("vol-0").resync().call();
                case NODE_HEALER ->
                    client.node().heal("vol-0", Path.of(VOLUME_PATH)).call();
                case GET_IDENTITY -> client.identity();
                case GET_CAPABILITIES -> client.capabilities();
                case PROBE -> client.probe();
                default -> throw new IllegalArgumentException("no answer to judge: " + a.rpc());
            }
            return Verdict.accepted();
        } catch (ProtocolViolationException e) {
            return Verdict.rejected("field " + e.field().orElse("(none)") + ": " + e.getMessage());
        }
    }

    // ------------------------------------------------------------------------------- the server runtime (a driver)

    /** The source an answer is for, as a wire request names it. */
    private static ReplicationSource source(Answer a) {
        return a.kind() == Kind.VOLUME ? ReplicationSource.volume("vol-0") : ReplicationSource.volumeGroup("grp-0");
    }

    /** Sends the answer's RPC through {@code channel} and judges what the server answered. */
    private static Verdict call(ManagedChannel channel, Answer a, List<ServerCallEvent> events) {
        events.clear();
        Message request = switch (a.rpc()) {
            case NODE_HEALER ->
                NodeHealerRequest.newBuilder()
                        .setVolumeId("vol-0")
                        .setVolumePath(VOLUME_PATH)
                        .build();
            case GET_IDENTITY -> GetIdentityRequest.getDefaultInstance();
            default ->
                new RequestFields(WireMapping.toProto(source(a)), "", Map.of(), Map.of(), "", false).toRequest(a.rpc());
        };
        @SuppressWarnings("unchecked")
        MethodDescriptor<Message, Message> method = (MethodDescriptor<Message, Message>) (MethodDescriptor<?, ?>)
                switch (a.rpc()) {
                    case NODE_HEALER -> HealerNodeGrpc.getNodeHealerMethod();
                    case GET_IDENTITY -> IdentityGrpc.getGetIdentityMethod();
                    default -> Transcoder.of(SpecDialect.CURRENT).method(a.rpc());
                };
        try {
            ClientCalls.blockingUnaryCall(
                    channel, method, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS), request);
            return Verdict.accepted();
        } catch (StatusRuntimeException e) {
            String cause =
                    events.isEmpty() ? "" : " [" + events.get(events.size() - 1).cause() + "]";
            return Verdict.rejected(
                    e.getStatus().getCode() + ": " + e.getStatus().getDescription() + cause);
        }
    }

    /** The answer as a driver writes it (the typed model), or null with why it cannot be written so. */
    private record Typed(Object value, String inexpressible) {
        static Typed of(Object value) {
            return new Typed(value, null);
        }

        static Typed cannot(String why) {
            return new Typed(null, why);
        }
    }

    private static Typed typed(Answer a) {
        try {
            return switch (a.rpc()) {
                case GET_VOLUME_REPLICATION_INFO -> typedInfo((GetVolumeReplicationInfoResponse) a.wire());
                case GET_REPLICATION_DESTINATION_INFO -> {
                    GetReplicationDestinationInfoResponse r = (GetReplicationDestinationInfoResponse) a.wire();
                    var d = r.getReplicationDestination();
                    yield Typed.of(
                            switch (d.getTypeCase()) {
                                case VOLUME ->
                                    ReplicationDestination.volume(d.getVolume().getVolumeId());
                                case VOLUMEGROUP ->
                                    ReplicationDestination.volumeGroup(
                                            d.getVolumegroup().getVolumeGroupId(),
                                            d.getVolumegroup().getVolumeIdsMap());
                                case TYPE_NOT_SET -> null;
                            });
                }
                case RESYNC_VOLUME ->
                    Typed.of(
                            ((ResyncVolumeResponse) a.wire()).getReady()
                                    ? ResyncResult.READY
                                    : ResyncResult.IN_PROGRESS);
                case NODE_HEALER -> {
                    NodeHealerResponse r = (NodeHealerResponse) a.wire();
                    yield Typed.of(new HealReport(r.getAbnormal(), r.getMessage()));
                }
                default -> throw new IllegalArgumentException(a.rpc().toString());
            };
        } catch (IllegalArgumentException | NullPointerException e) {
            return Typed.cannot("the typed model refuses it: " + e.getMessage());
        }
    }

    @SuppressWarnings("ProtoTimestampGetSecondsGetNano") // the nanos alone decide whether an Instant can hold it
    private static Typed typedInfo(GetVolumeReplicationInfoResponse r) {
        if (!r.hasLastSyncTime()) {
            return Typed.cannot("last_sync_time: ReplicationInfo requires it");
        }
        int nanos = r.getLastSyncTime().getNanos();
        if (nanos < 0 || nanos > 999_999_999) {
            return Typed.cannot("last_sync_time: an Instant cannot carry nanos " + nanos);
        }
        Optional<Duration> duration = Optional.empty();
        if (r.hasLastSyncDuration()) {
            var d = r.getLastSyncDuration();
            if (Math.abs(d.getNanos()) > 999_999_999
                    || (d.getSeconds() > 0 && d.getNanos() < 0)
                    || (d.getSeconds() < 0 && d.getNanos() > 0)) {
                return Typed.cannot("last_sync_duration: a java.time.Duration cannot carry " + d);
            }
            duration = Optional.of(Duration.ofSeconds(d.getSeconds(), d.getNanos()));
        }
        if (r.getStatus() == GetVolumeReplicationInfoResponse.Status.UNRECOGNIZED) {
            return Typed.cannot("status: ReplicationInfo.Status cannot carry " + r.getStatusValue());
        }
        return Typed.of(new ReplicationInfo(
                Instant.ofEpochSecond(r.getLastSyncTime().getSeconds(), nanos),
                duration,
                OptionalLong.of(r.getLastSyncBytes()), // proto3: 0 is a value (0 B), as WireMapping reads it
                ReplicationInfo.Status.fromWireNumber(r.getStatusValue()),
                r.getStatusMessage()));
    }

    /** A driver answering {@code answer} to every call that has an answer. */
    private static final class Answering implements ReplicationDriver, HealerDriver {
        private final Object answer;

        Answering(Object answer) {
            this.answer = answer;
        }

        @Override
        public void enable(EnableRequest r) {}

        @Override
        public void disable(DisableRequest r) {}

        @Override
        public ReplicationInfo info(InfoRequest r) {
            return (ReplicationInfo) answer;
        }

        @Override
        public ReplicationDestination destination(DestinationRequest r) {
            return (ReplicationDestination) answer;
        }

        @Override
        public Set<Rpc> servedRpcs() {
            return ReplicationDriver.defaultRpcsAnd(Rpc.GET_REPLICATION_DESTINATION_INFO);
        }

        @Override
        public ResyncResult resync(ResyncRequest r) {
            return (ResyncResult) answer;
        }

        @Override
        public HealReport heal(HealRequest r) {
            return (HealReport) answer;
        }

        @Override
        public Set<Kind> supportedSourceKinds() {
            return EnumSet.of(Kind.VOLUME, Kind.VOLUME_GROUP);
        }
    }

    private static Verdict server(Answer a) {
        if (a.rpc() == Rpc.GET_CAPABILITIES || a.rpc() == Rpc.PROBE) {
            return Verdict.notApplicable("the runtime derives it from what it serves: no driver answers it");
        }
        ReplicationServer.Builder builder = ReplicationServer.builder();
        Answering driver;
        if (a.rpc() == Rpc.GET_IDENTITY) {
            GetIdentityResponse identity = (GetIdentityResponse) a.wire();
            if (identity.getManifestCount() > 0) {
                return a.valid()
                        ? Verdict.notApplicable("the runtime answers no manifest")
                        : Verdict.rejected("manifest: the runtime answers none");
            }
            try {
                builder.identity(identity.getName(), identity.getVendorVersion());
            } catch (IllegalArgumentException e) {
                return Verdict.rejected("refused at configuration: " + e.getMessage());
            }
            driver = new Answering(null);
        } else {
            Typed typed = typed(a);
            if (typed.inexpressible() != null) {
                return a.valid()
                        ? Verdict.notApplicable(typed.inexpressible())
                        : Verdict.rejected(typed.inexpressible());
            }
            driver = new Answering(typed.value());
        }
        List<ServerCallEvent> events = new CopyOnWriteArrayList<>();
        String name = InProcessServerBuilder.generateName();
        ReplicationServer server = builder.driver(driver)
                .healer(driver)
                .observer(events::add)
                .listen("inprocess:" + name)
                .build()
                .start();
        ManagedChannel channel = InProcessChannelBuilder.forName(name).build();
        try {
            return call(channel, a, events);
        } finally {
            channel.shutdownNow();
            server.close();
        }
    }

    // ------------------------------------------------------------------------------------------ the exec bridge

    /** The exec protocol's name of a wire field, as a driver author knows it. */
    static String execName(String field) {
        if (field == null) {
            return "";
        }
        return switch (field) {
            case "last_sync_time" -> "lastSyncTime";
            case "last_sync_duration" -> "lastSyncDurationSeconds";
            case "last_sync_bytes" -> "lastSyncBytes";
            case "status" -> "replicationStatus";
            case "replication_destination",
                    "replication_destination.volume.volume_id",
                    "replication_destination.volumegroup.volume_group_id" -> "destinationId";
            case "replication_destination.volumegroup.volume_ids" -> "destinationVolumeIds";
            default -> field;
        };
    }

    /** The answer as an exec driver prints it, or empty when the exec protocol cannot say it. */
    private static Optional<String> execJson(Answer a) {
        JsonObject json = new JsonObject();
        json.addProperty("status", "Success");
        switch (a.rpc()) {
            case GET_VOLUME_REPLICATION_INFO -> {
                GetVolumeReplicationInfoResponse r = (GetVolumeReplicationInfoResponse) a.wire();
                if (r.hasLastSyncTime()) {
                    var t = r.getLastSyncTime();
                    if (t.getNanos() < 0 || t.getNanos() > 999_999_999) {
                        return Optional.empty();
                    }
                    json.addProperty(
                            "lastSyncTime",
                            Instant.ofEpochSecond(t.getSeconds(), t.getNanos()).toString());
                }
                if (r.hasLastSyncDuration()) {
                    var d = r.getLastSyncDuration();
                    if ((d.getSeconds() > 0 && d.getNanos() < 0)
                            || (d.getSeconds() < 0 && d.getNanos() > 0)
                            || Math.abs(d.getNanos()) > 999_999_999) {
                        return Optional.empty();
                    }
                    json.addProperty(
                            "lastSyncDurationSeconds",
                            BigDecimal.valueOf(d.getSeconds()).add(BigDecimal.valueOf(d.getNanos(), 9)));
                }
                if (r.getLastSyncBytes() != 0) {
                    json.addProperty("lastSyncBytes", r.getLastSyncBytes());
                }
                if (r.getStatusValue() != 0) {
                    json.addProperty(
                            "replicationStatus",
                            r.getStatus() == GetVolumeReplicationInfoResponse.Status.UNRECOGNIZED
                                    ? String.valueOf(r.getStatusValue())
                                    : r.getStatus().name());
                }
                if (!r.getStatusMessage().isEmpty()) {
                    json.addProperty("replicationStatusMessage", r.getStatusMessage());
                }
            }
            case GET_REPLICATION_DESTINATION_INFO -> {
                var d = ((GetReplicationDestinationInfoResponse) a.wire()).getReplicationDestination();
                switch (d.getTypeCase()) {
                    case VOLUME -> {
                        if (a.kind() != Kind.VOLUME) {
                            return Optional.empty(); // the bridge makes a group's destination a group's
                        }
                        json.addProperty("destinationId", d.getVolume().getVolumeId());
                    }
                    case VOLUMEGROUP -> {
                        if (a.kind() != Kind.VOLUME_GROUP && d.getVolumegroup().getVolumeIdsCount() == 0) {
                            return Optional.empty(); // without members it reads as a volume's destination
                        }
                        json.addProperty("destinationId", d.getVolumegroup().getVolumeGroupId());
                        JsonObject members = new JsonObject();
                        d.getVolumegroup().getVolumeIdsMap().forEach(members::addProperty);
                        json.add("destinationVolumeIds", members);
                    }
                    case TYPE_NOT_SET -> {}
                }
            }
            case RESYNC_VOLUME -> json.addProperty("ready", ((ResyncVolumeResponse) a.wire()).getReady());
            case NODE_HEALER -> {
                NodeHealerResponse r = (NodeHealerResponse) a.wire();
                json.addProperty("abnormal", r.getAbnormal());
                if (!r.getMessage().isEmpty()) {
                    json.addProperty("message", r.getMessage());
                }
            }
            default -> throw new IllegalArgumentException(a.rpc().toString());
        }
        return Optional.of(json.toString());
    }

    private static Verdict exec(Answer a) throws Exception {
        if (a.rpc() == Rpc.GET_IDENTITY || a.rpc() == Rpc.GET_CAPABILITIES || a.rpc() == Rpc.PROBE) {
            return Verdict.notApplicable("the exec protocol has no identity answer");
        }
        Optional<String> json = execJson(a);
        if (json.isEmpty()) {
            return a.valid()
                    ? Verdict.notApplicable("the exec protocol cannot say it")
                    : Verdict.rejected(a.field() + ": the exec protocol cannot say it");
        }
        Files.writeString(execAnswer, json.get());
        return call(execChannel, a, execEvents);
    }

    // --------------------------------------------------------------------------------------------------- the kit

    /** The checks that judge the answers of {@code a}'s RPC (its named checks and a walk check that sees one). */
    private static List<String> kitChecks(Answer a) {
        return switch (a.rpc()) {
            case GET_VOLUME_REPLICATION_INFO ->
                List.of(
                        ControllerChecks.LAST_SYNC_TIME,
                        ControllerChecks.LAST_SYNC_BYTES,
                        ControllerChecks.LAST_SYNC_DURATION,
                        ControllerChecks.HEALTH_STATUS,
                        walk(Rpc.GET_VOLUME_REPLICATION_INFO, Kind.VOLUME, State.PRIMARY));
            case GET_REPLICATION_DESTINATION_INFO ->
                List.of(
                        a.kind() == Kind.VOLUME
                                ? ControllerChecks.DESTINATION_VOLUME
                                : ControllerChecks.DESTINATION_GROUP,
                        walk(Rpc.GET_REPLICATION_DESTINATION_INFO, a.kind(), State.PRIMARY));
            case RESYNC_VOLUME -> List.of(walk(Rpc.RESYNC_VOLUME, Kind.VOLUME, State.SECONDARY));
            case NODE_HEALER -> List.of(HealerChecks.MESSAGE_REQUIRED);
            case GET_IDENTITY -> List.of(IdentityChecks.NAME);
            case GET_CAPABILITIES -> List.of(IdentityChecks.REPLICATION, IdentityChecks.CONTROLLER);
            case PROBE -> List.of(IdentityChecks.PROBE);
            default -> throw new IllegalArgumentException(a.rpc().toString());
        };
    }

    /** The name of the lifecycle walk's check of {@code rpc} in {@code state} for {@code kind}. */
    private static String walk(Rpc rpc, Kind kind, State state) {
        return LifecycleChecks.walkName(
                ErrorScheme.spec(), rpc, kind, state, LifecycleModel.spec().expect(rpc, state));
    }

    /** Replaces the plugin's answers to {@code a}'s RPC by {@code a}, below the runtime's own checks. */
    private static ServerInterceptor answering(Answer a) {
        return new ServerInterceptor() {
            @Override
            public <Q, R> Listener<Q> interceptCall(
                    ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
                if (!call.getMethodDescriptor()
                        .getBareMethodName()
                        .equals(a.rpc().methodName())) {
                    return next.startCall(call, headers);
                }
                return next.startCall(
                        new SimpleForwardingServerCall<>(call) {
                            @Override
                            @SuppressWarnings("unchecked")
                            public void sendMessage(R message) {
                                super.sendMessage((R) a.wire());
                            }
                        },
                        headers);
            }
        };
    }

    private static Verdict kit(Answer a) {
        ReferenceDriver reference = ReferenceDriver.builder()
                .volumes(2)
                .groups(1)
                .requiredSecrets(SECRETS)
                .build();
        ConformanceConfig config = ConformanceConfig.builder()
                .driver(reference)
                .healerDriver(reference)
                .healerVolume("vol-0", VOLUME_PATH)
                .volumes("vol-0", "vol-1")
                .volumeGroups("grp-0")
                .secrets(SECRETS)
                .interceptor(answering(a))
                .build();
        Map<String, Check> byName = new LinkedHashMap<>();
        ConformanceChecks.all().stream().flatMap(g -> g.checks(config).stream()).forEach(c -> byName.put(c.name(), c));
        List<String> failures = new ArrayList<>();
        try (ConformanceSession session = ConformanceSession.open(config)) {
            for (String name : kitChecks(a)) {
                Check check = byName.get(name);
                assertThat(check).as("check %s", name).isNotNull();
                try {
                    session.run(check);
                } catch (TestAbortedException e) {
                    String causedByAFailure = ConformanceContext.NOT_RUN_PREFIX + ConformanceContext.BECAUSE_OF;
                    if (!String.valueOf(e.getMessage()).startsWith(causedByAFailure)) {
                        throw new AssertionError("check " + name + " did not run: " + e.getMessage(), e);
                    }
                    // One defect, one FAIL: the check that judged this answer first failed; this one names it.
                    failures.add(name + ": " + e.getMessage());
                } catch (AssertionError e) {
                    if (check.requirement() == Requirement.REQUIRED) {
                        failures.add(name + ": " + e.getMessage());
                    }
                } catch (Throwable e) {
                    throw new AssertionError("check " + name + " broke", e);
                }
            }
        }
        return failures.isEmpty() ? Verdict.accepted() : Verdict.rejected(String.join("\n", failures));
    }
}
