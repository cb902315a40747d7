package io.volrep.testkit;

import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Opens plaintext gRPC channels to the endpoint forms volrep accepts: {@code unix:///path} (or
 * {@code unix:/path}), {@code inprocess:NAME}, {@code host:port} and any gRPC target such as
 * {@code dns:///host:port}.
 *
 * <pre>{@code
 * try (Endpoints.OpenChannel open = Endpoints.open("unix:///csi/csi-addons.sock")) {
 *     ControllerGrpc.newBlockingStub(open.channel()) ...
 * }
 * }</pre>
 */
public final class Endpoints {
    private Endpoints() {}

    /** A channel and whatever it needs closed with it. */
    public interface OpenChannel extends AutoCloseable {
        /** The channel. */
        ManagedChannel channel();

        /** Shuts the channel (and its event loop, for unix sockets) down and waits briefly. */
        @Override
        void close();
    }

    /** An {@link OpenChannel}; {@code eventLoop} is the unix socket channel's own, null for the other transports. */
    private record Opened(ManagedChannel channel, EventLoopGroup eventLoop) implements OpenChannel {
        @Override
        public void close() {
            try {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (eventLoop != null) {
                eventLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            }
        }
    }

    /** Opens a channel to {@code endpoint}. Unix sockets need Linux (epoll); the authority is {@code localhost}. */
    public static OpenChannel open(String endpoint) {
        Objects.requireNonNull(endpoint, "endpoint");
        if (endpoint.startsWith("inprocess:")) {
            return new Opened(
                    InProcessChannelBuilder.forName(endpoint.substring("inprocess:".length()))
                            .build(),
                    null);
        }
        if (endpoint.startsWith("unix:")) {
            String path = endpoint.substring("unix:".length());
            if (path.startsWith("//")) {
                path = path.substring(2);
            }
            if (path.isEmpty()) {
                throw new IllegalArgumentException("unix endpoint without a path: " + endpoint);
            }
            EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
            // Some servers reject a socket path as :authority; CSI sidecars use "localhost".
            ManagedChannel channel = NettyChannelBuilder.forAddress(new DomainSocketAddress(path))
                    .eventLoopGroup(group)
                    .channelType(EpollDomainSocketChannel.class)
                    // gRPC sets TCP keep-alive on every transport; a unix socket has none, and netty would WARN
                    // "Unknown channel option 'SO_KEEPALIVE'" per connection (as the client and the server do)
                    .withOption(ChannelOption.SO_KEEPALIVE, null)
                    .overrideAuthority("localhost")
                    .usePlaintext()
                    .build();
            return new Opened(channel, group);
        }
        return new Opened(NettyChannelBuilder.forTarget(endpoint).usePlaintext().build(), null);
    }
}
