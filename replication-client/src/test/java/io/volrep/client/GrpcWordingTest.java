package io.volrep.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientStreamTracer;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.volrep.api.DeadlineExceededException;
import io.volrep.api.ReplicationException;
import io.volrep.api.ResourceExhaustedException;
import io.volrep.testkit.fake.RawHttp2Plugin;
import io.volrep.testkit.fake.RawHttp2Plugin.Message;
import io.volrep.testkit.fake.RawHttp2Plugin.Script;
import io.volrep.testkit.fake.RawHttp2Plugin.Trailers;
import io.volrep.testsupport.GrpcCleanup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client decides from facts, not from gRPC's words (issue 29, item 2): with every status description rewritten,
 * as a gRPC upgrade may reword them, a response over the client's own limit is still not retried, and a deadline
 * that ran out waiting for a connection still says so and why. The rewording is an interceptor between gRPC and the
 * client; the transport, and what its stream tracer sees, are real.
 */
class GrpcWordingTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    /** Rewrites every failed status's description, keeping its code and cause. */
    static final ClientInterceptor REWORDED = new ClientInterceptor() {
        @Override
        public <Q, A> ClientCall<Q, A> interceptCall(MethodDescriptor<Q, A> method, CallOptions options, Channel next) {
            return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
                @Override
                public void start(Listener<A> listener, Metadata headers) {
                    super.start(
                            new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(listener) {
                                @Override
                                public void onClose(Status status, Metadata trailers) {
                                    super.onClose(
                                            status.isOk()
                                                    ? status
                                                    : Status.fromCode(status.getCode())
                                                            .withDescription("worded differently by a later gRPC")
                                                            .withCause(status.getCause()),
                                            trailers);
                                }
                            },
                            headers);
                }
            };
        }
    };

    /**
     * Asks for the response only once the plugin's trailers were read, as a loaded machine can order it: the
     * request for messages travels to the transport thread as a task, and the plugin's whole answer can be read
     * before that task runs. The transport and its tracers are real.
     */
    static final ClientInterceptor RESPONSE_ASKED_FOR_AFTER_THE_TRAILERS = new ClientInterceptor() {
        @Override
        public <Q, A> ClientCall<Q, A> interceptCall(MethodDescriptor<Q, A> method, CallOptions options, Channel next) {
            CompletableFuture<Void> trailersRead = new CompletableFuture<>();
            ClientStreamTracer.Factory tracer = new ClientStreamTracer.Factory() {
                @Override
                public ClientStreamTracer newClientStreamTracer(ClientStreamTracer.StreamInfo info, Metadata h) {
                    return new ClientStreamTracer() {
                        @Override
                        public void inboundTrailers(Metadata trailers) {
                            trailersRead.complete(null);
                        }
                    };
                }
            };
            return new ForwardingClientCall.SimpleForwardingClientCall<>(
                    next.newCall(method, options.withStreamTracerFactory(tracer))) {
                @Override
                public void request(int messages) {
                    // Not on the transport thread that read the trailers: after it is done with them.
                    trailersRead
                            .completeOnTimeout(null, 10, TimeUnit.SECONDS)
                            .thenRunAsync(() -> super.request(messages));
                }
            };
        }
    };

    @Test
    void aResponseOverTheClientsLimitWhoseTrailersWereReadFirstIsStillItsOwnRefusal() throws Exception {
        // CI saw the plugin's trailers reach the tracer before the client refused the oversized message; the
        // client then took the refusal for the plugin's own RESOURCE_EXHAUSTED.
        RawHttp2Plugin plugin = grpc.register(
                new RawHttp2Plugin(Script.of(new Message(FinalStatusTest.response(2048)), new Trailers(0, null))));
        ReplicationClient client = grpc.register(ReplicationClient.builder()
                .target(plugin.target())
                .retry(RetryBehaviourTest.FAST)
                .maxInboundMessageSize(1024)
                .interceptor(RESPONSE_ASKED_FOR_AFTER_THE_TRAILERS)
                .build());
        assertRefusedOnceForTheClientsLimit(client, plugin, 1024);
    }

    @Test
    void aResponseOverTheClientsLimitIsNotRetriedWhateverGrpcCallsIt() throws Exception {
        RawHttp2Plugin plugin = grpc.register(
                new RawHttp2Plugin(Script.of(new Message(FinalStatusTest.response(5 << 20)), new Trailers(0, null))));
        ReplicationClient client = grpc.register(ReplicationClient.builder()
                .target(plugin.target())
                .retry(RetryBehaviourTest.FAST)
                .interceptor(REWORDED)
                .build());
        assertRefusedOnceForTheClientsLimit(client, plugin, 4 << 20);
    }

    /** The client's own refusal of a response over {@code limitBytes}: named as such, and never retried. */
    private static void assertRefusedOnceForTheClientsLimit(
            ReplicationClient client, RawHttp2Plugin plugin, int limitBytes) {
        assertThatThrownBy(() -> client.volume("vol-1").enable().call())
                .isInstanceOf(ResourceExhaustedException.class)
                .hasMessageContaining("inbound message limit of " + limitBytes + " bytes")
                .hasMessageContaining("maxInboundMessageSize")
                .satisfies(
                        e -> assertThat(((ReplicationException) e).attempts()).isEqualTo(1));
        assertThat(plugin.requests())
                .as("the same response would be refused again")
                .isEqualTo(1);
    }

    @Test
    void aDeadlineSpentWaitingForAConnectionSaysSoWhateverGrpcCallsIt(@TempDir Path dir) {
        Path missing = dir.resolve("missing.sock");
        ReplicationClient client = grpc.register(ReplicationClient.builder()
                .target("unix://" + missing)
                .retry(RetryPolicy.spec().toBuilder()
                        .totalTimeout(Duration.ofMillis(800))
                        .build())
                .interceptor(REWORDED)
                .build());
        assertThatThrownBy(() -> client.volume("vol-1").info())
                .isInstanceOf(DeadlineExceededException.class)
                .hasMessage("GetVolumeReplicationInfo for volume vol-1 failed with 4 DEADLINE_EXCEEDED: no answer from"
                        + " the plugin at unix://" + missing + " within the call's deadline: it waited for the plugin"
                        + " to accept connections (no such socket file " + missing + ")")
                .satisfies(
                        e -> assertThat(((ReplicationException) e).attempts()).isEqualTo(1));
    }
}
