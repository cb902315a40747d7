package io.volrep.testkit;

import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
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
    private Endpoints() {
    }

    /** A channel and whatever it needs closed with it. */
    public static final class OpenChannel implements AutoCloseable {
        private final ManagedChannel channel;
        private final EventLoopGroup group;

        OpenChannel(ManagedChannel channel, EventLoopGroup group) {
            this.channel = channel;
            this.group = group;
        }

        /** The channel. */
        public ManagedChannel channel() {
            return channel;
        }

        /** Shuts the channel (and its event loop, for unix sockets) down and waits briefly. */
        @Override
        public void close() {
            channel.shutdownNow();
            try {
                channel.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (group != null) {
                group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            }
        }
    }

    /** Opens a channel to {@code endpoint}. Unix sockets need Linux (epoll); the authority is {@code localhost}. */
    public static OpenChannel open(String endpoint) {
        Objects.requireNonNull(endpoint, "endpoint");
        if (endpoint.startsWith("inprocess:")) {
            return new OpenChannel(InProcessChannelBuilder.forName(endpoint.substring("inprocess:".length()))
                    .build(), null);
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
                    .overrideAuthority("localhost")
                    .usePlaintext()
                    .build();
            return new OpenChannel(channel, group);
        }
        return new OpenChannel(NettyChannelBuilder.forTarget(endpoint).usePlaintext().build(), null);
    }
}
