package io.volrep.spi;

import static io.volrep.spi.InProcessHarness.statusOf;
import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.shaded.io.netty.bootstrap.Bootstrap;
import io.grpc.netty.shaded.io.netty.buffer.ByteBuf;
import io.grpc.netty.shaded.io.netty.channel.Channel;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandlerContext;
import io.grpc.netty.shaded.io.netty.channel.ChannelInitializer;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.nio.NioIoHandler;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioSocketChannel;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2ConnectionHandlerBuilder;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2Error;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2FrameAdapter;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2Headers;
import io.volrep.api.Rpc;
import io.volrep.proto.replication.ControllerGrpc;
import io.volrep.testsupport.GrpcCleanup;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * HTTP/2 rapid reset (CVE-2023-44487) against a real TCP listener: a raw HTTP/2 client (netty's codec, as shaded
 * into grpc-netty-shaded) opens 20,000 streams on one connection, resetting each right after its HEADERS. The
 * server closes that connection (GOAWAY ENHANCE_YOUR_CALM "too_many_rststreams"), while a well-behaved client on
 * its own connection keeps being served throughout.
 */
class RapidResetTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    private static final int PAIRS = 20_000;

    @Test
    void aFloodOfHeadersAndResetsGetsGoawayWhileAnotherClientKeepsBeingServed() throws Exception {
        ReplicationServer server = grpc.register(ReplicationServer.builder()
                .driver(new ScriptedDriver())
                .listen("127.0.0.1:0")
                .build()
                .start());
        ManagedChannel channel =
                grpc.register(Grpc.newChannelBuilder(server.address(), InsecureChannelCredentials.create())
                        .build());
        ControllerGrpc.ControllerBlockingStub stub = ControllerGrpc.newBlockingStub(channel);
        assertThat(enable(stub)).isEqualTo(Status.Code.OK);
        AtomicBoolean attackOver = new AtomicBoolean();
        CompletableFuture<List<Status.Code>> served = CompletableFuture.supplyAsync(() -> {
            List<Status.Code> codes = new CopyOnWriteArrayList<>();
            while (!attackOver.get()) {
                codes.add(enable(stub));
            }
            return codes;
        });

        Attack attack = rapidReset(server.port());
        attackOver.set(true);

        assertThat(attack.closed)
                .as("the attacker's connection is closed (%d pairs written)", attack.written.get())
                .isTrue();
        // The GOAWAY itself is often lost: the server closes a socket with unread input, so the kernel
        // resets it. When the attacker did read it, it says why.
        assertThat(attack.goAwayCode.get()).as("GOAWAY error code").isIn(-1L, Http2Error.ENHANCE_YOUR_CALM.code());
        assertThat(attack.written.get()).isLessThanOrEqualTo(PAIRS);
        List<Status.Code> codes = served.get(5, TimeUnit.MINUTES);
        assertThat(codes).isNotEmpty().containsOnly(Status.Code.OK);
        assertThat(enable(stub)).isEqualTo(Status.Code.OK);
    }

    private static Status.Code enable(ControllerGrpc.ControllerBlockingStub stub) {
        return statusOf(() -> WireCalls.call(
                        stub.withDeadlineAfter(10, TimeUnit.SECONDS),
                        Rpc.ENABLE_VOLUME_REPLICATION,
                        WireCalls.Fields.volume("vol-1")))
                .getCode();
    }

    /** What the attacker saw. */
    private static final class Attack {
        final AtomicLong goAwayCode = new AtomicLong(-1);
        final AtomicLong written = new AtomicLong();
        volatile boolean closed;
    }

    /** Opens one connection and writes {@link #PAIRS} HEADERS+RST_STREAM pairs as fast as it can. */
    private static Attack rapidReset(int port) throws Exception {
        Attack attack = new Attack();
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            Http2FrameAdapter listener = new Http2FrameAdapter() {
                @Override
                public void onGoAwayRead(ChannelHandlerContext ctx, int lastStreamId, long errorCode, ByteBuf debug) {
                    attack.goAwayCode.compareAndSet(-1, errorCode);
                }
            };
            Channel channel = new Bootstrap()
                    .group(group)
                    .channel(NioSocketChannel.class)
                    .handler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline()
                                    .addLast(new Http2ConnectionHandlerBuilder()
                                            .server(false)
                                            .frameListener(listener)
                                            .build());
                        }
                    })
                    .connect("127.0.0.1", port)
                    .sync()
                    .channel();
            Http2ConnectionHandler http2 = channel.pipeline().get(Http2ConnectionHandler.class);
            ChannelHandlerContext ctx = channel.pipeline().context(http2);
            Http2Headers headers = new DefaultHttp2Headers()
                    .method("POST")
                    .scheme("http")
                    .authority("localhost")
                    .path("/replication.Controller/EnableVolumeReplication")
                    .add("content-type", "application/grpc")
                    .add("te", "trailers");
            channel.eventLoop()
                    .submit(() -> {
                        for (int i = 0; i < PAIRS && channel.isActive(); i++) {
                            int stream = 2 * i + 3;
                            http2.encoder().writeHeaders(ctx, stream, headers, 0, false, ctx.newPromise());
                            http2.resetStream(ctx, stream, Http2Error.CANCEL.code(), ctx.newPromise());
                            attack.written.incrementAndGet();
                            if (i % 100 == 99) {
                                ctx.flush();
                            }
                        }
                        ctx.flush();
                    })
                    .sync();
            attack.closed = channel.closeFuture().await(5, TimeUnit.MINUTES);
            channel.close().sync();
            return attack;
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }
}
