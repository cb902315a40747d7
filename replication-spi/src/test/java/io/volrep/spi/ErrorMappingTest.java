package io.volrep.spi;

import static io.volrep.spi.InProcessHarness.statusOf;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import io.volrep.api.DeadlineExceededException;
import io.volrep.api.InvalidArgumentException;
import io.volrep.api.OperationPendingException;
import io.volrep.api.PreconditionFailedException;
import io.volrep.api.ReplicationException;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ResourceExhaustedException;
import io.volrep.api.Rpc;
import io.volrep.api.SourceNotFoundException;
import io.volrep.api.StatusCode;
import io.volrep.api.UnauthenticatedException;
import io.volrep.api.UnavailableException;
import io.volrep.api.UnimplementedException;
import io.volrep.api.UnknownErrorException;
import io.volrep.proto.replication.GetVolumeReplicationInfoResponse;
import io.volrep.proto.replication.ResyncVolumeResponse;
import io.volrep.testsupport.GrpcCleanup;
import io.volrep.testsupport.RawBytes;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** What the client sees when the driver throws, answers nonsense, or implements nothing; and raw wire abuse. */
class ErrorMappingTest {
    private ScriptedDriver driver;
    private InProcessHarness harness;

    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    @BeforeEach
    void start() {
        driver = new ScriptedDriver();
        harness = grpc.register(new InProcessHarness(driver));
    }

    static Stream<ReplicationException> driverExceptions() {
        return Stream.of(
                new InvalidArgumentException("parameters.mode: unknown mode"),
                new SourceNotFoundException("volume vol-1 does not exist"),
                new PreconditionFailedException("replication is not enabled"),
                new OperationPendingException("busy"),
                new UnimplementedException("not here"),
                new UnauthenticatedException("bad credentials"),
                new UnknownErrorException("backend exploded"),
                new UnavailableException("backend down"),
                new DeadlineExceededException("too slow"),
                new ResourceExhaustedException("quota"));
    }

    @ParameterizedTest
    @MethodSource("driverExceptions")
    void typedExceptionsKeepTheirCodeAndMessage(ReplicationException thrown) {
        driver.onCall = () -> {
            throw thrown;
        };
        for (Rpc rpc : Rpc.values()) {
            if (!rpc.isReplication()) {
                continue;
            }
            Status status = statusOf(() -> WireCalls.call(harness.stub, rpc, WireCalls.Fields.volume("vol-1")));
            assertThat(status.getCode().value())
                    .as(rpc.toString())
                    .isEqualTo(thrown.code().value());
            assertThat(status.getDescription()).isEqualTo(thrown.getMessage());
        }
    }

    @Test
    void aCodeOutsideTheSpecTableStillMapsToItsCode() {
        // The spec's Enable table has no FAILED_PRECONDITION row; the runtime answers it anyway (and WARNs).
        driver.onCall = () -> {
            throw new PreconditionFailedException("pool is read-only");
        };
        Status status = statusOf(
                () -> WireCalls.call(harness.stub, Rpc.ENABLE_VOLUME_REPLICATION, WireCalls.Fields.volume("vol-1")));
        assertThat(status.getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
        assertThat(status.getDescription()).isEqualTo("pool is read-only");
    }

    @Test
    void genericReplicationExceptionWithAnUntabledCodeKeepsIt() {
        driver.onCall = () -> {
            throw new ReplicationException(StatusCode.PERMISSION_DENIED, "no");
        };
        assertThat(statusOf(() -> WireCalls.call(harness.stub, Rpc.DEMOTE_VOLUME, WireCalls.Fields.volume("v")))
                        .getCode())
                .isEqualTo(Status.Code.PERMISSION_DENIED);
    }

    @Test
    void unexpectedExceptionsBecomeUnknownWithAGenericMessage() {
        driver.onCall = () -> {
            throw new IllegalStateException("connection to 10.0.0.1 failed, password hunter22");
        };
        Status status =
                statusOf(() -> WireCalls.call(harness.stub, Rpc.PROMOTE_VOLUME, WireCalls.Fields.volume("vol-1")));
        assertThat(status.getCode()).isEqualTo(Status.Code.UNKNOWN);
        assertThat(status.getDescription())
                .startsWith("the driver failed unexpectedly (IllegalStateException, incident ")
                .doesNotContain("hunter22")
                .doesNotContain("10.0.0.1");
    }

    @Test
    void errorsToo() {
        driver.onCall = () -> {
            throw new AssertionError("driver bug");
        };
        Status status = statusOf(
                () -> WireCalls.call(harness.stub, Rpc.DISABLE_VOLUME_REPLICATION, WireCalls.Fields.volume("vol-1")));
        assertThat(status.getCode()).isEqualTo(Status.Code.UNKNOWN);
        // ... and the server keeps serving.
        driver.onCall = () -> {};
        assertThat(statusOf(() -> WireCalls.call(
                                harness.stub, Rpc.DISABLE_VOLUME_REPLICATION, WireCalls.Fields.volume("vol-1")))
                        .getCode())
                .isEqualTo(Status.Code.OK);
    }

    @Test
    void nullInfoIsAnInvalidResponse() {
        driver.info = r -> null;
        Status status = statusOf(
                () -> WireCalls.call(harness.stub, Rpc.GET_VOLUME_REPLICATION_INFO, WireCalls.Fields.volume("vol-1")));
        assertThat(status.getCode()).isEqualTo(Status.Code.UNKNOWN);
        assertThat(status.getDescription())
                .startsWith("driver returned an invalid response: ")
                .contains("last_sync_time");
    }

    @Test
    void infoOutsideTheTimestampRangeIsAnInvalidResponse() {
        driver.info = r -> ReplicationInfo.of(Instant.MAX);
        Status status = statusOf(
                () -> WireCalls.call(harness.stub, Rpc.GET_VOLUME_REPLICATION_INFO, WireCalls.Fields.volume("vol-1")));
        assertThat(status.getCode()).isEqualTo(Status.Code.UNKNOWN);
        assertThat(status.getDescription())
                .startsWith("driver returned an invalid response: ")
                .contains("last_sync_time");
    }

    @Test
    void aNegativeInfoCannotEvenBeBuilt() {
        // The typed model refuses negative bytes and durations, so a driver can only fail with an exception,
        // which the runtime answers UNKNOWN.
        driver.info = r -> ReplicationInfo.of(Instant.now()).withLastSyncBytes(-1);
        assertThat(statusOf(() -> WireCalls.call(
                                harness.stub, Rpc.GET_VOLUME_REPLICATION_INFO, WireCalls.Fields.volume("vol-1")))
                        .getCode())
                .isEqualTo(Status.Code.UNKNOWN);
    }

    @Test
    void nullResyncResultIsAnInvalidResponse() {
        driver.resync = r -> null;
        Status status =
                statusOf(() -> WireCalls.call(harness.stub, Rpc.RESYNC_VOLUME, WireCalls.Fields.volume("vol-1")));
        assertThat(status.getCode()).isEqualTo(Status.Code.UNKNOWN);
        assertThat(status.getDescription()).startsWith("driver returned an invalid response: ");
    }

    @Test
    void validAnswersReachTheWire() {
        Instant t = Instant.parse("2026-03-01T10:00:00.5Z");
        driver.info = r -> ReplicationInfo.of(t)
                .withLastSyncDuration(Duration.ofMillis(1500))
                .withLastSyncBytes(42);
        driver.resync = r -> ResyncResult.IN_PROGRESS;
        var info = (GetVolumeReplicationInfoResponse)
                WireCalls.call(harness.stub, Rpc.GET_VOLUME_REPLICATION_INFO, WireCalls.Fields.volume("vol-1"));
        var time = info.getLastSyncTime();
        assertThat(Instant.ofEpochSecond(time.getSeconds(), time.getNanos()))
                .isEqualTo(Instant.ofEpochSecond(t.getEpochSecond(), 500_000_000));
        assertThat(info.getLastSyncDuration().getSeconds()).isEqualTo(1);
        assertThat(info.getLastSyncBytes()).isEqualTo(42);
        var resync = (ResyncVolumeResponse)
                WireCalls.call(harness.stub, Rpc.RESYNC_VOLUME, WireCalls.Fields.volume("vol-1"));
        assertThat(resync.getReady()).isFalse();
    }

    @ParameterizedTest
    @EnumSource(
            value = Rpc.class,
            names = {"PROMOTE_VOLUME", "DEMOTE_VOLUME", "RESYNC_VOLUME", "GET_VOLUME_REPLICATION_INFO"})
    void defaultMethodsAnswerUnimplemented(Rpc rpc) {
        ReplicationDriver minimal = new ReplicationDriver() {
            @Override
            public void enable(EnableRequest request) {}

            @Override
            public void disable(DisableRequest request) {}
        };
        InProcessHarness h = grpc.register(new InProcessHarness(minimal));
        Status status = statusOf(() -> WireCalls.call(h.stub, rpc, WireCalls.Fields.volume("vol-1")));
        assertThat(status.getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
        assertThat(status.getDescription()).contains(rpc.methodName());
        assertThat(statusOf(() ->
                                WireCalls.call(h.stub, Rpc.ENABLE_VOLUME_REPLICATION, WireCalls.Fields.volume("vol-1")))
                        .getCode())
                .isEqualTo(Status.Code.OK);
    }

    /** Sends raw bytes to a method and returns the status. */
    private Status rawCall(String fullMethodName, byte[] body) {
        MethodDescriptor<byte[], byte[]> method = RawBytes.unary(fullMethodName);
        ClientCall<byte[], byte[]> call =
                harness.channel.newCall(method, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS));
        return statusOf(() -> ClientCalls.blockingUnaryCall(call, body));
    }

    @Test
    void unknownMethodsAnswerUnimplemented() {
        assertThat(rawCall("replication.Controller/NoSuchMethod", new byte[0]).getCode())
                .isEqualTo(Status.Code.UNIMPLEMENTED);
        assertThat(rawCall("no.Such/Service", new byte[0]).getCode()).isEqualTo(Status.Code.UNIMPLEMENTED);
    }

    @Test
    void garbageBytesAnswerAnErrorAndTheServerKeepsServing() {
        byte[] garbage = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f, 0x42, 0x13};
        for (Rpc rpc : Rpc.values()) {
            if (rpc.isReplication()) {
                Status status = rawCall(rpc.fullMethodName(), garbage);
                assertThat(status.getCode()).as(rpc.toString()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                assertThat(status.getDescription()).startsWith("malformed request: not a valid replication.");
            }
        }
        assertThat(driver.requests).isEmpty();
        assertThat(statusOf(() -> WireCalls.call(
                                harness.stub, Rpc.ENABLE_VOLUME_REPLICATION, WireCalls.Fields.volume("vol-1")))
                        .getCode())
                .isEqualTo(Status.Code.OK);
        // An empty body is a valid (empty) message: no source, so INVALID_ARGUMENT from the runtime.
        assertThat(rawCall(Rpc.ENABLE_VOLUME_REPLICATION.fullMethodName(), new byte[0])
                        .getCode())
                .isEqualTo(Status.Code.INVALID_ARGUMENT);
    }
}
