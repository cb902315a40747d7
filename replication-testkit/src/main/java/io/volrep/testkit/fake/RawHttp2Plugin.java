package io.volrep.testkit.fake;

import io.grpc.netty.shaded.io.netty.bootstrap.ServerBootstrap;
import io.grpc.netty.shaded.io.netty.buffer.ByteBuf;
import io.grpc.netty.shaded.io.netty.buffer.Unpooled;
import io.grpc.netty.shaded.io.netty.channel.Channel;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandlerContext;
import io.grpc.netty.shaded.io.netty.channel.ChannelInboundHandlerAdapter;
import io.grpc.netty.shaded.io.netty.channel.ChannelInitializer;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.nio.NioIoHandler;
import io.grpc.netty.shaded.io.netty.channel.socket.SocketChannel;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.DefaultHttp2ResetFrame;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2DataFrame;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2Error;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2FrameStream;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2Headers;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2HeadersFrame;
import io.grpc.netty.shaded.io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A hostile plugin below gRPC: an HTTP/2 server on TCP (netty's frame codec, no gRPC server) that answers every
 * request with exactly the frames of its {@link Script}, so a client can be shown answers no gRPC server
 * would produce (a response followed by an error status, a response without status, two responses), a
 * connection lost under a call ({@link Disconnect}), or a refused stream ({@link Refuse}). A client must report each of them as an error.
 *
 * <pre>{@code
 * try (RawHttp2Plugin plugin = new RawHttp2Plugin(Script.of(new Message(new byte[0]), new Trailers(13, "boom")))) {
 *     assertThatThrownBy(() -> myClient(plugin.target()).enable("vol-1")).hasMessageContaining("boom");
 * }
 * }</pre>
 */
public final class RawHttp2Plugin implements AutoCloseable {

    /** The frames sent after the request: response headers, then these. */
    public sealed interface Frame permits Message, Trailers, EndOnData, Disconnect, Refuse {}

    /** One length-prefixed gRPC message holding {@code payload} (a serialized protobuf). */
    @SuppressWarnings("ArrayRecordComponent") // a frame to send, never compared; the bytes are written as given
    public record Message(byte[] payload) implements Frame {}

    /** The trailers (END_STREAM); {@code status} null leaves grpc-status out. */
    public record Trailers(Integer status, String message) implements Frame {}

    /** An empty DATA frame with END_STREAM: the stream ends with no trailers at all. */
    public record EndOnData() implements Frame {}

    /**
     * The connection closes here, as when the plugin's process dies: no GOAWAY, no RST_STREAM, the socket just
     * closes. First in a script, the request is never answered at all (not even with response headers).
     */
    public record Disconnect() implements Frame {}

    /**
     * The stream is refused (RST_STREAM REFUSED_STREAM): the plugin says it did not process the request, as a
     * server does that is at its stream limit or going away. First in a script, no response headers are sent.
     */
    public record Refuse() implements Frame {}

    /** What is sent for every request. */
    public record Script(List<Frame> frames) {
        public static Script of(Frame... frames) {
            return new Script(List.of(frames));
        }
    }

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final Channel server;
    private final AtomicInteger requests = new AtomicInteger();

    /** Listens on an ephemeral TCP port of 127.0.0.1. */
    public RawHttp2Plugin(Script script) throws InterruptedException {
        server = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(Http2FrameCodecBuilder.forServer().build(), new Answer(script));
                    }
                })
                .bind("127.0.0.1", 0)
                .sync()
                .channel();
    }

    /** The client's target, {@code dns:///127.0.0.1:PORT}. */
    public String target() {
        return "dns:///127.0.0.1:" + ((InetSocketAddress) server.localAddress()).getPort();
    }

    /** How many requests (HTTP/2 streams) arrived. */
    public int requests() {
        return requests.get();
    }

    @Override
    public void close() throws InterruptedException {
        server.close().sync();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
    }

    private final class Answer extends ChannelInboundHandlerAdapter {
        private final Script script;

        Answer(Script script) {
            this.script = script;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                if (msg instanceof Http2HeadersFrame h && h.isEndStream()) {
                    answer(ctx, h.stream());
                } else if (msg instanceof Http2DataFrame d && d.isEndStream()) {
                    answer(ctx, d.stream());
                }
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        private void answer(ChannelHandlerContext ctx, Http2FrameStream stream) {
            requests.incrementAndGet();
            if (script.frames().isEmpty()
                    || !(script.frames().get(0) instanceof Disconnect
                            || script.frames().get(0) instanceof Refuse)) {
                Http2Headers headers = new DefaultHttp2Headers().status("200").set("content-type", "application/grpc");
                ctx.write(new DefaultHttp2HeadersFrame(headers, false).stream(stream));
            }
            for (Frame f : script.frames()) {
                if (f instanceof Disconnect) {
                    // Below the pipeline: closing through it would have the HTTP/2 codec send a GOAWAY first.
                    ctx.flush();
                    ctx.channel().unsafe().close(ctx.channel().unsafe().voidPromise());
                    return;
                } else if (f instanceof Refuse) {
                    ctx.writeAndFlush(new DefaultHttp2ResetFrame(Http2Error.REFUSED_STREAM).stream(stream));
                    return;
                } else if (f instanceof Message m) {
                    ByteBuf buf = Unpooled.buffer(5 + m.payload().length)
                            .writeByte(0)
                            .writeInt(m.payload().length)
                            .writeBytes(m.payload());
                    ctx.write(new DefaultHttp2DataFrame(buf, false).stream(stream));
                } else if (f instanceof Trailers t) {
                    Http2Headers trailers = new DefaultHttp2Headers();
                    if (t.status() != null) {
                        trailers.set("grpc-status", Integer.toString(t.status()));
                    }
                    if (t.message() != null) {
                        trailers.set("grpc-message", t.message());
                    }
                    ctx.write(new DefaultHttp2HeadersFrame(trailers, true).stream(stream));
                } else {
                    ctx.write(new DefaultHttp2DataFrame(Unpooled.EMPTY_BUFFER, true).stream(stream));
                }
            }
            ctx.flush();
        }
    }
}
