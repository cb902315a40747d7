package io.volrep.spi;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.CallOptions;
import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.ClientCalls;
import io.volrep.api.HealReport;
import io.volrep.api.InvalidArgumentException;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.api.VolumeGroup;
import io.volrep.proto.replication.ControllerGrpc;
import io.volrep.proto.replication.EnableVolumeReplicationRequest;
import io.volrep.testsupport.GrpcCleanup;
import io.volrep.testsupport.RawBytes;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * How the runtime says why it rejected a request, without reading its own messages back: the field a request was
 * rejected for comes from {@link InvalidArgumentException#field()}, and bytes that do not parse take their own path
 * at the handler (INVALID_ARGUMENT, observed, never passed to the caller's interceptors or the service), on every
 * service the runtime serves.
 */
class RejectionPathsTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    private final ScriptedDriver driver = new ScriptedDriver();
    private final List<ServerCallEvent> events = new CopyOnWriteArrayList<>();
    /** The class of every request message the caller's interceptor saw. */
    private final List<Class<?>> intercepted = new CopyOnWriteArrayList<>();

    private ManagedChannel channel;
    private ControllerGrpc.ControllerBlockingStub stub;

    @BeforeEach
    void start() {
        String name = InProcessServerBuilder.generateName();
        ServerInterceptor recording = new ServerInterceptor() {
            @Override
            public <Q, R> ServerCall.Listener<Q> interceptCall(
                    ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
                return new SimpleForwardingServerCallListener<>(next.startCall(call, headers)) {
                    @Override
                    public void onMessage(Q message) {
                        intercepted.add(message.getClass());
                        super.onMessage(message);
                    }
                };
            }
        };
        VolumeGroupDriver groups = new VolumeGroupDriver() {
            @Override
            public VolumeGroup create(CreateGroupRequest request) {
                throw new AssertionError("never called with bytes that do not parse");
            }

            @Override
            public void delete(DeleteGroupRequest request) {
                throw new AssertionError("never called with bytes that do not parse");
            }
        };
        grpc.register(ReplicationServer.builder()
                .driver(driver)
                .healer(r -> HealReport.healthy("ok"))
                .volumeGroups(groups)
                .interceptor(recording)
                .observer(events::add)
                .listen("inprocess:" + name)
                .build()
                .start());
        channel = grpc.register(InProcessChannelBuilder.forName(name).build());
        stub = ControllerGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
    }

    private static Status statusOf(Runnable call) {
        try {
            call.run();
            return Status.OK;
        } catch (StatusRuntimeException e) {
            return e.getStatus();
        }
    }

    /** The last call's event. */
    private ServerCallEvent last() {
        assertThat(events).isNotEmpty();
        return events.get(events.size() - 1);
    }

    @Test
    void theRejectedFieldIsTheOneTheValidationNamedNeverAValue() {
        Map<WireCalls.Fields, String> rejected = Map.of(
                WireCalls.Fields.volume(""),
                "replication_source.volume.volume_id",
                WireCalls.Fields.volume("v".repeat(129)),
                "replication_source.volume.volume_id",
                WireCalls.Fields.volume("vol-1").withParameters(Map.of("k", "p".repeat(5000))),
                "parameters",
                WireCalls.Fields.volume("vol-1").withVolumeId("vol-2"),
                "volume_id",
                new WireCalls.Fields(null, null, null, null, null),
                "replication_source",
                WireCalls.Fields.volume("vol-1").withReplicationId("r".repeat(200)),
                "replication_id");
        rejected.forEach((fields, field) -> {
            assertThat(statusOf(() -> WireCalls.call(stub, Rpc.ENABLE_VOLUME_REPLICATION, fields))
                            .getCode())
                    .isEqualTo(Status.Code.INVALID_ARGUMENT);
            assertThat(last().cause()).isEqualTo(ServerCallEvent.Cause.INVALID_REQUEST);
            assertThat(last().rejectedField()).as("%s", fields).contains(field);
        });
    }

    @Test
    void aDriversOwnInvalidArgumentIsTheDriversAnswerWithoutARejectedField() {
        driver.onCall = () -> {
            throw InvalidArgumentException.ofField("parameters", "mirroringMode must be snapshot or journal");
        };
        Status status =
                statusOf(() -> WireCalls.call(stub, Rpc.ENABLE_VOLUME_REPLICATION, WireCalls.Fields.volume("vol-1")));
        assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(status.getDescription()).isEqualTo("parameters: mirroringMode must be snapshot or journal");
        assertThat(last().cause()).isEqualTo(ServerCallEvent.Cause.DRIVER_ERROR);
        assertThat(last().rejectedField()).isEmpty();
    }

    /** Sends {@code body} as the request of {@code rpc}. */
    private Status raw(Rpc rpc, byte[] body) {
        MethodDescriptor<byte[], byte[]> method = RawBytes.unary(rpc.fullMethodName());
        return statusOf(() -> ClientCalls.blockingUnaryCall(
                channel.newCall(method, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS)), body));
    }

    @Test
    void bytesThatDoNotParseAreAnsweredAtTheHandlerOnEveryService() {
        byte[] garbage = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f, 0x42, 0x13};
        for (Rpc rpc : Rpc.values()) {
            events.clear();
            Status status = raw(rpc, garbage);
            assertThat(status.getCode()).as("%s", rpc).isEqualTo(Status.Code.INVALID_ARGUMENT);
            assertThat(status.getDescription())
                    .as("%s", rpc)
                    .startsWith("malformed request: not a valid "
                            + rpc.service().substring(0, rpc.service().indexOf('.')) + ".");
            assertThat(events).as("%s", rpc).singleElement().satisfies(e -> {
                assertThat(e.rpc()).isEqualTo(rpc);
                assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT);
                assertThat(e.cause()).isEqualTo(ServerCallEvent.Cause.INVALID_REQUEST);
                assertThat(e.rejectedField()).isEqualTo(Optional.empty());
            });
        }
        assertThat(intercepted)
                .as("the caller's interceptor never sees what did not parse")
                .isEmpty();
        assertThat(driver.requests).isEmpty();

        assertThat(statusOf(() -> WireCalls.call(stub, Rpc.ENABLE_VOLUME_REPLICATION, WireCalls.Fields.volume("vol-1")))
                        .getCode())
                .isEqualTo(Status.Code.OK);
        assertThat(intercepted).containsExactly(EnableVolumeReplicationRequest.class);
    }
}
