package io.volrep.cli;

import io.grpc.netty.shaded.io.netty.bootstrap.ServerBootstrap;
import io.grpc.netty.shaded.io.netty.buffer.Unpooled;
import io.grpc.netty.shaded.io.netty.channel.Channel;
import io.grpc.netty.shaded.io.netty.channel.ChannelFuture;
import io.grpc.netty.shaded.io.netty.channel.ChannelFutureListener;
import io.grpc.netty.shaded.io.netty.channel.ChannelHandlerContext;
import io.grpc.netty.shaded.io.netty.channel.ChannelInitializer;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.SimpleChannelInboundHandler;
import io.grpc.netty.shaded.io.netty.channel.nio.NioIoHandler;
import io.grpc.netty.shaded.io.netty.channel.socket.SocketChannel;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioServerSocketChannel;
import io.grpc.netty.shaded.io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.grpc.netty.shaded.io.netty.handler.codec.http.FullHttpRequest;
import io.grpc.netty.shaded.io.netty.handler.codec.http.FullHttpResponse;
import io.grpc.netty.shaded.io.netty.handler.codec.http.HttpHeaderNames;
import io.grpc.netty.shaded.io.netty.handler.codec.http.HttpHeaderValues;
import io.grpc.netty.shaded.io.netty.handler.codec.http.HttpMethod;
import io.grpc.netty.shaded.io.netty.handler.codec.http.HttpObjectAggregator;
import io.grpc.netty.shaded.io.netty.handler.codec.http.HttpResponseStatus;
import io.grpc.netty.shaded.io.netty.handler.codec.http.HttpServerCodec;
import io.grpc.netty.shaded.io.netty.handler.codec.http.HttpVersion;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The HTTP endpoint of {@code --metrics-listen}: {@code GET /metrics} (exactly that path; a query is ignored)
 * answers the scrape, anything else 404 (405 for another method). Built on Netty (the copy gRPC's
 * {@code grpc-netty-shaded} ships, already in the jar): its event loop reads every connection without blocking, so
 * a client that sends nothing or drips its header byte by byte holds no thread and delays no scrape. Every
 * connection is closed {@code readTimeout} after it opened whatever it sent (one request per connection, no
 * keep-alive), and at most {@value #MAX_CONNECTIONS} are open at once: a new one beyond them closes the oldest that has
 * not sent its request, so a scraper always gets through.
 *
 * <pre>{@code
 * try (MetricsHttpServer http = MetricsHttpServer.start(new InetSocketAddress("127.0.0.1", 0),
 *         registry::scrape, "text/plain; version=0.0.4; charset=utf-8", Duration.ofSeconds(10))) {
 *     System.out.println("metrics on http://127.0.0.1:" + http.port() + "/metrics");
 * }
 * }</pre>
 */
final class MetricsHttpServer implements AutoCloseable {
    /** The only path that answers. */
    static final String PATH = "/metrics";
    /** Connections open at once beyond which a new one evicts the oldest idle one. */
    static final int MAX_CONNECTIONS = 64;

    private final EventLoopGroup group;
    private final Channel server;

    private MetricsHttpServer(EventLoopGroup group, Channel server) {
        this.group = group;
        this.server = server;
    }

    /**
     * Binds {@code address} and serves {@code scrape} as {@code contentType}.
     *
     * @throws java.io.IOException when the address cannot be bound
     */
    static MetricsHttpServer start(
            InetSocketAddress address, Supplier<String> scrape, String contentType, Duration readTimeout)
            throws IOException {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(
                1, new DefaultThreadFactory("volrep-metrics", true), NioIoHandler.newFactory());
        Connections connections = new Connections();
        ChannelFuture bound = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        connections.opened(ch);
                        // The whole exchange within the read timeout: idle and dripping clients are cut.
                        ch.eventLoop()
                                .schedule(
                                        () -> {
                                            ch.close();
                                        },
                                        readTimeout.toNanos(),
                                        TimeUnit.NANOSECONDS);
                        ch.pipeline()
                                .addLast(
                                        new HttpServerCodec(4096, 8192, 8192),
                                        new HttpObjectAggregator(1024),
                                        new Scrape(scrape, contentType, connections));
                    }
                })
                .bind(address)
                .awaitUninterruptibly();
        if (!bound.isSuccess()) {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            throw bound.cause() instanceof IOException io ? io : new IOException(bound.cause());
        }
        return new MetricsHttpServer(group, bound.channel());
    }

    /** The bound port. */
    int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    @Override
    public void close() {
        server.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /**
     * The open connections, oldest first, and which of them still wait for their request. Beyond
     * {@value #MAX_CONNECTIONS}, a new connection makes room by closing the oldest one that has not sent its request
     * yet: idle or slow connections cannot lock a scraper out (before, the 65th connection was closed at once, and 64
     * idle ones refused every scrape until their read timeout). Used on the event loop's one thread.
     */
    private static final class Connections {
        /** Every open connection, oldest first. */
        private final Set<Channel> open = new LinkedHashSet<>();
        /** The connections whose request arrived: they are being answered and close by themselves. */
        private final Set<Channel> answering = new HashSet<>();

        synchronized void opened(Channel ch) {
            open.add(ch);
            ch.closeFuture().addListener(f -> closed(ch));
            if (open.size() > MAX_CONNECTIONS) {
                Channel evicted = open.stream()
                        .filter(c -> !answering.contains(c))
                        .findFirst()
                        .orElse(ch);
                open.remove(evicted);
                evicted.close();
            }
        }

        /** {@code ch} sent its request: it is answered and closed, never evicted. */
        synchronized void answering(Channel ch) {
            answering.add(ch);
        }

        private synchronized void closed(Channel ch) {
            open.remove(ch);
            answering.remove(ch);
        }
    }

    /** Answers one request, then closes the connection. */
    private static final class Scrape extends SimpleChannelInboundHandler<FullHttpRequest> {
        private final Supplier<String> scrape;
        private final String contentType;
        private final Connections connections;

        Scrape(Supplier<String> scrape, String contentType, Connections connections) {
            this.scrape = scrape;
            this.contentType = contentType;
            this.connections = connections;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            connections.answering(ctx.channel());
            FullHttpResponse response;
            String uri = request.uri();
            int query = uri.indexOf('?');
            // The raw path, compared as sent: "/metrics/", "/metricsX" and "/%6detrics" are other paths.
            String path = query < 0 ? uri : uri.substring(0, query);
            boolean head = HttpMethod.HEAD.equals(request.method());
            if (!request.decoderResult().isSuccess()) {
                response = status(HttpResponseStatus.BAD_REQUEST);
            } else if (!PATH.equals(path)) {
                response = status(HttpResponseStatus.NOT_FOUND);
            } else if (!HttpMethod.GET.equals(request.method()) && !head) {
                response = status(HttpResponseStatus.METHOD_NOT_ALLOWED);
            } else {
                byte[] body = scrape.get().getBytes(StandardCharsets.UTF_8);
                response = new DefaultFullHttpResponse(
                        HttpVersion.HTTP_1_1,
                        HttpResponseStatus.OK,
                        head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(body));
                response.headers()
                        .set(HttpHeaderNames.CONTENT_TYPE, contentType)
                        .setInt(HttpHeaderNames.CONTENT_LENGTH, body.length);
            }
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        }

        private static FullHttpResponse status(HttpResponseStatus status) {
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status);
            response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
            return response;
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close(); // a broken request or connection: nothing to answer
        }
    }
}
