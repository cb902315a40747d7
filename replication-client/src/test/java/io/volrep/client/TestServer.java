package io.volrep.client;

import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Serves raw gRPC services (independent plugins written on the generated stubs) in-process or on a unix socket. */
final class TestServer implements AutoCloseable {
    private final Server server;
    private final EventLoopGroup eventLoop;
    private final String target;

    private TestServer(Server server, EventLoopGroup eventLoop, String target) {
        this.server = server;
        this.eventLoop = eventLoop;
        this.target = target;
    }

    static TestServer inProcess(BindableService... services) throws Exception {
        String name = InProcessServerBuilder.generateName();
        InProcessServerBuilder b = InProcessServerBuilder.forName(name).directExecutor();
        for (BindableService s : services) {
            b.addService(s);
        }
        return new TestServer(b.build().start(), null, "inprocess:" + name);
    }

    static TestServer unixSocket(Path socket, BindableService... services) throws Exception {
        EventLoopGroup loop = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        NettyServerBuilder b = NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                .channelType(EpollServerDomainSocketChannel.class)
                .bossEventLoopGroup(loop)
                .workerEventLoopGroup(loop);
        for (BindableService s : services) {
            b.addService(s);
        }
        return new TestServer(b.build().start(), loop, "unix://" + socket.toAbsolutePath());
    }

    String target() {
        return target;
    }

    @Override
    public void close() throws Exception {
        server.shutdownNow();
        server.awaitTermination(5, TimeUnit.MINUTES);
        if (eventLoop != null) {
            eventLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.MINUTES);
        }
    }
}
