package io.volrep.spi;

import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.ServerCredentials;
import io.grpc.TlsServerCredentials;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.Epoll;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * How a {@link ReplicationServer} listens: the gRPC server builder for its address (in-process, unix socket or
 * TCP, optionally TLS or mutual TLS) with the HTTP/2 limits every network listener gets, the unix socket file's
 * life cycle around {@code start()}, and what must be released after shutdown.
 *
 * <p>The HTTP/2 limits (a plugin is called by one orchestrator sidecar; a peer that needs more is misbehaving):
 * <ul>
 *   <li>{@value #MAX_RST_FRAMES} RST_STREAM frames per {@value #RST_WINDOW_SECONDS} s per connection, then GOAWAY
 *       and the connection is closed ("rapid reset", CVE-2023-44487: HEADERS then RST_STREAM at once costs the
 *       server a call each, and no concurrency limit sees it);</li>
 *   <li>{@value #MAX_CONCURRENT_CALLS} concurrent calls per connection (more are queued by the client);</li>
 *   <li>{@value #MAX_INBOUND_METADATA_BYTES} bytes of request headers (the runtime reads no metadata: secrets
 *       travel in the messages);</li>
 *   <li>keep-alive: clients may ping every {@value #PERMIT_KEEPALIVE_SECONDS} s, also between calls (more often
 *       is answered by GOAWAY); the server pings an idle connection after {@value #KEEPALIVE_SECONDS} s and closes
 *       it when the answer takes over {@value #KEEPALIVE_TIMEOUT_SECONDS} s, so a vanished peer is noticed.</li>
 * </ul>
 */
final class ServerTransport {
    static final int MAX_RST_FRAMES = 1000;
    static final int RST_WINDOW_SECONDS = 10;
    static final int MAX_CONCURRENT_CALLS = 1000;
    static final int MAX_INBOUND_METADATA_BYTES = 8 * 1024;
    static final int PERMIT_KEEPALIVE_SECONDS = 10;
    static final int KEEPALIVE_SECONDS = 60;
    static final int KEEPALIVE_TIMEOUT_SECONDS = 20;

    private final ListenAddress listen;
    private final UnixSocketFile socketFile;
    private final List<EventLoopGroup> eventLoops = new ArrayList<>();
    private final ServerBuilder<?> builder;

    /**
     * @param tls the server's certificate chain, private key and (for mutual TLS) trusted CA, or null for plaintext
     */
    ServerTransport(ListenAddress listen, TlsFiles tls) {
        this.listen = listen;
        this.socketFile = listen instanceof ListenAddress.Unix unix ? new UnixSocketFile(unix.path()) : null;
        this.builder = builder(tls);
    }

    /** The server's certificate chain and private key, and the CA client certificates must chain to (or null). */
    record TlsFiles(Path certChain, Path privateKey, Path trustCertificates) {}

    /** The gRPC server builder to add the services to. */
    ServerBuilder<?> builder() {
        return builder;
    }

    /** Binds and starts {@code server}, built from {@link #builder()}. */
    void start(Server server) throws IOException {
        if (socketFile != null) {
            socketFile.prepare();
        }
        server.start();
        if (socketFile != null) {
            socketFile.publish();
        }
    }

    /** A target a client can dial: {@code unix:///path}, {@code host:port} (the bound port), {@code inprocess:NAME}. */
    String address(Server server) {
        if (listen instanceof ListenAddress.Tcp tcp) {
            return new ListenAddress.Tcp(tcp.host(), port(server)).toString();
        }
        return listen.toString();
    }

    /** The TCP port bound, or -1 for unix sockets and in-process servers. */
    int port(Server server) {
        if (!(listen instanceof ListenAddress.Tcp)) {
            return -1;
        }
        for (SocketAddress a : server.getListenSockets()) {
            if (a instanceof InetSocketAddress inet) {
                return inet.getPort();
            }
        }
        return server.getPort();
    }

    @Override
    public String toString() {
        return listen.toString();
    }

    /** After the server has shut down: its event loops and its socket file. */
    void release() {
        for (EventLoopGroup group : eventLoops) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
        if (socketFile != null) {
            socketFile.delete();
        }
    }

    private ServerBuilder<?> builder(TlsFiles tls) {
        if (listen instanceof ListenAddress.InProcess inProcess) {
            if (tls != null) {
                throw new IllegalArgumentException("TLS does not apply to in-process servers");
            }
            return InProcessServerBuilder.forName(inProcess.name());
        }
        NettyServerBuilder netty;
        if (listen instanceof ListenAddress.Unix) {
            if (!Epoll.isAvailable()) {
                throw new IllegalStateException(
                        "unix sockets need netty's epoll transport (Linux): " + Epoll.unavailabilityCause());
            }
            SocketAddress socket = new DomainSocketAddress(socketFile.bindPath().toString());
            netty = tls == null
                    ? NettyServerBuilder.forAddress(socket)
                    : NettyServerBuilder.forAddress(socket, credentials(tls));
            EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
            EventLoopGroup workers = new MultiThreadIoEventLoopGroup(
                    Math.max(2, Runtime.getRuntime().availableProcessors()), EpollIoHandler.newFactory());
            eventLoops.add(boss);
            eventLoops.add(workers);
            netty.channelType(EpollServerDomainSocketChannel.class)
                    .bossEventLoopGroup(boss)
                    .workerEventLoopGroup(workers)
                    // TCP keep-alive means nothing on a unix socket; netty WARNs per connection otherwise.
                    .withChildOption(ChannelOption.SO_KEEPALIVE, null);
        } else {
            ListenAddress.Tcp tcp = (ListenAddress.Tcp) listen;
            InetSocketAddress socket = new InetSocketAddress(tcp.host(), tcp.port());
            netty = tls == null
                    ? NettyServerBuilder.forAddress(socket)
                    : NettyServerBuilder.forAddress(socket, credentials(tls));
        }
        return netty.maxRstFramesPerWindow(MAX_RST_FRAMES, RST_WINDOW_SECONDS)
                .maxConcurrentCallsPerConnection(MAX_CONCURRENT_CALLS)
                .maxInboundMetadataSize(MAX_INBOUND_METADATA_BYTES)
                .permitKeepAliveTime(PERMIT_KEEPALIVE_SECONDS, TimeUnit.SECONDS)
                .permitKeepAliveWithoutCalls(true)
                .keepAliveTime(KEEPALIVE_SECONDS, TimeUnit.SECONDS)
                .keepAliveTimeout(KEEPALIVE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }

    private static ServerCredentials credentials(TlsFiles tls) {
        try {
            TlsServerCredentials.Builder credentials = TlsServerCredentials.newBuilder()
                    .keyManager(tls.certChain().toFile(), tls.privateKey().toFile());
            if (tls.trustCertificates() != null) {
                credentials
                        .trustManager(tls.trustCertificates().toFile())
                        .clientAuth(TlsServerCredentials.ClientAuth.REQUIRE);
            }
            return credentials.build();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the TLS key material: " + e.getMessage(), e);
        }
    }
}
