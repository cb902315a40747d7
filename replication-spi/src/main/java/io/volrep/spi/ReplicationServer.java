package io.volrep.spi;

import io.grpc.Server;
import io.grpc.ServerCredentials;
import io.grpc.ServerInterceptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.TlsServerCredentials;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.Epoll;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.volrep.api.Rpc;
import io.volrep.api.SpecDialect;
import io.volrep.spi.runtime.CallRunner;
import io.volrep.spi.runtime.ControllerService;
import io.volrep.spi.runtime.HealerService;
import io.volrep.spi.runtime.IdentityService;
import io.volrep.spi.runtime.MalformedRequests;
import io.volrep.spi.runtime.SourceGuard;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves a {@link ReplicationDriver} as a spec-correct {@code replication.Controller} gRPC plugin, a
 * {@link HealerDriver} as {@code healer.HealerNode}, or both, on a unix socket, TCP (optionally TLS or mutual
 * TLS) or gRPC's in-process transport; and, unless turned off, CSI-Addons {@code identity.Identity} derived from
 * what it serves. {@link Builder#dialect} serves a legacy revision of the replication spec instead of the current
 * one, with the same typed requests for the driver.
 *
 * <pre>{@code
 * try (ReplicationServer server = ReplicationServer.builder()
 *         .driver(new MyDriver())
 *         .listen("unix:///csi/csi-addons.sock")        // or "0.0.0.0:9070", "127.0.0.1:0", "inprocess:test"
 *         .gracePeriod(Duration.ofSeconds(10))
 *         .build()
 *         .start()) {
 *     log.info("listening on {}", server.address());
 *     server.awaitTermination();
 * }
 * }</pre>
 *
 * <p>Unix sockets: a stale socket file left by a crashed plugin is removed; a socket a live server answers on
 * is not (start fails); the socket is made mode 0660 and deleted on {@link #close()}.
 *
 * <p>{@link #close()} is a graceful shutdown: new calls are refused, calls in flight may finish within the
 * grace period, then the remaining ones are cancelled.
 */
public final class ReplicationServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicationServer.class);

    private final ListenAddress listen;
    private final Duration gracePeriod;
    private final Server server;
    private final SourceGuard guard;
    private final List<EventLoopGroup> eventLoops;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closing = new AtomicBoolean();
    private final CountDownLatch terminated = new CountDownLatch(1);
    private volatile String address;
    /** True once this server created its unix socket file: only then may it delete it. */
    private volatile boolean ownsSocketFile;

    private ReplicationServer(ListenAddress listen, Duration gracePeriod, Server server, SourceGuard guard,
                              List<EventLoopGroup> eventLoops) {
        this.listen = listen;
        this.gracePeriod = gracePeriod;
        this.server = server;
        this.guard = guard;
        this.eventLoops = eventLoops;
    }

    /** A new builder. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Binds and starts serving.
     *
     * @return this server
     * @throws IllegalStateException when started twice, or a live server holds the unix socket
     * @throws UncheckedIOException when the address cannot be bound
     */
    public ReplicationServer start() {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("already started");
        }
        try {
            if (listen instanceof ListenAddress.Unix unix) {
                prepareSocketPath(unix.path());
            }
            server.start();
            if (listen instanceof ListenAddress.Unix unix) {
                ownsSocketFile = true;
                Files.setPosixFilePermissions(unix.path(), PosixFilePermissions.fromString("rw-rw----"));
            }
        } catch (IOException e) {
            releaseResources();
            throw new UncheckedIOException("cannot listen on " + listen + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            releaseResources();
            throw e;
        }
        address = resolveAddress();
        LOG.info("replication server listening on {}", address);
        return this;
    }

    /** A target a client can dial: {@code unix:///path}, {@code host:port} (the bound port), {@code inprocess:NAME}. */
    public String address() {
        if (address == null) {
            throw new IllegalStateException("not started");
        }
        return address;
    }

    /** The TCP port bound, or -1 for unix sockets and in-process servers. */
    public int port() {
        return listen instanceof ListenAddress.Tcp ? server.getPort() : -1;
    }

    /** How many sources have a call in flight right now (0 when idle: the guard keeps no idle entries). */
    public int callsInFlight() {
        return guard.inFlight();
    }

    /** Blocks until the server has shut down and released its socket. */
    public void awaitTermination() throws InterruptedException {
        terminated.await();
    }

    /** Blocks until the server has shut down, at most {@code timeout}; true when it has. */
    public boolean awaitTermination(Duration timeout) throws InterruptedException {
        return terminated.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** True once {@link #close()} has completed. */
    public boolean isTerminated() {
        return terminated.getCount() == 0;
    }

    /**
     * Graceful shutdown: refuses new calls, lets calls in flight finish within the grace period, cancels what
     * remains, releases the socket (deleting a unix socket file). Idempotent; a concurrent caller waits.
     */
    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            try {
                terminated.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return;
        }
        try {
            if (started.get()) {
                LOG.info("replication server on {} shutting down ({} call(s) in flight, grace period {})",
                        address, guard.inFlight(), gracePeriod);
                server.shutdown();
                try {
                    if (!server.awaitTermination(gracePeriod.toNanos(), TimeUnit.NANOSECONDS)) {
                        LOG.warn("calls still in flight after the grace period of {}: cancelling them", gracePeriod);
                        server.shutdownNow();
                        server.awaitTermination(5, TimeUnit.SECONDS);
                    }
                } catch (InterruptedException e) {
                    server.shutdownNow();
                    Thread.currentThread().interrupt();
                }
            }
            releaseResources();
            LOG.info("replication server on {} stopped", address == null ? listen : address);
        } finally {
            terminated.countDown();
        }
    }

    private void releaseResources() {
        server.shutdownNow();
        for (EventLoopGroup group : eventLoops) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
        if (listen instanceof ListenAddress.Unix unix && ownsSocketFile) {
            try {
                Files.deleteIfExists(unix.path());
            } catch (IOException e) {
                LOG.warn("could not delete the socket file {}: {}", unix.path(), e.toString());
            }
        }
    }

    private String resolveAddress() {
        if (listen instanceof ListenAddress.Tcp tcp) {
            int port = server.getPort();
            for (SocketAddress a : server.getListenSockets()) {
                if (a instanceof InetSocketAddress inet) {
                    port = inet.getPort();
                    break;
                }
            }
            return new ListenAddress.Tcp(tcp.host(), port).toString();
        }
        return listen.toString();
    }

    /**
     * Removes a stale socket file (nobody answers on it) and refuses a live one or anything that is not a
     * socket: removing a regular file by mistake would be worse than failing to start.
     */
    private static void prepareSocketPath(Path path) throws IOException {
        Path parent = path.getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        if (!isSocket(path)) {
            throw new IllegalStateException("cannot listen on unix://" + path + ": the path exists and is not a socket");
        }
        try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            probe.connect(UnixDomainSocketAddress.of(path));
            throw new IllegalStateException("cannot listen on unix://" + path
                    + ": another server is listening on it (stop it first)");
        } catch (ConnectException stale) {
            LOG.info("removing the stale socket file {}", path);
            Files.delete(path);
        }
    }

    private static boolean isSocket(Path path) {
        try {
            int mode = (Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            return (mode & 0170000) == 0140000;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return !Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)
                    && !Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS);
        }
    }

    /**
     * Configures a {@link ReplicationServer}. {@link #listen} and at least one of {@link #driver} and {@link #healer}
     * are required.
     *
     * <pre>{@code
     * ReplicationServer.builder().driver(driver).listen("127.0.0.1:0")
     *         .mutualTls(Path.of("server.pem"), Path.of("server.key"), Path.of("ca.pem"))
     *         .build().start();
     * }</pre>
     */
    public static final class Builder {
        /** The plugin name GetIdentity answers when {@link #identity} is not called. */
        public static final String DEFAULT_PLUGIN_NAME = "unnamed.volrep.io";

        private ReplicationDriver driver;
        private HealerDriver healer;
        private SpecDialect dialect = SpecDialect.CURRENT;
        private boolean serveIdentity = true;
        private String pluginName = DEFAULT_PLUGIN_NAME;
        private String pluginVersion = defaultVersion();
        private BooleanSupplier readiness = () -> true;
        private String listen;
        private final List<ServerInterceptor> interceptors = new ArrayList<>();
        private Duration gracePeriod = Duration.ofSeconds(10);
        private Path certChain;
        private Path privateKey;
        private Path trustCertificates;

        private Builder() {
        }

        /** The driver that serves {@code replication.Controller}. */
        public Builder driver(ReplicationDriver driver) {
            this.driver = Objects.requireNonNull(driver, "driver");
            return this;
        }

        /**
         * The driver that serves {@code healer.HealerNode} (NodeHealer). A server serves replication, the healer,
         * or both: at least one of {@link #driver} and this.
         *
         * <pre>{@code
         * ReplicationServer.builder().healer(new MyHealer()).listen("unix:///csi/csi-addons.sock").build().start();
         * }</pre>
         */
        public Builder healer(HealerDriver healer) {
            this.healer = Objects.requireNonNull(healer, "healer");
            return this;
        }

        /**
         * The revision of the replication spec to serve (default {@link SpecDialect#CURRENT}). All share the gRPC
         * service name {@code replication.Controller}, so a server speaks exactly one. Under {@code V0_1_3},
         * {@code volume_id} is REQUIRED and {@code replication_source} is numbered {@code volumegroup = 1,
         * volume = 2}; under {@code V0_1_0}, requests carry {@code volume_id} only and GetVolumeReplicationInfo
         * does not exist (12 UNIMPLEMENTED). The driver sees the same typed requests in every dialect; answers
         * are checked against the revision's own error tables. The healer does not depend on the dialect.
         *
         * <pre>{@code
         * ReplicationServer.builder().driver(driver).dialect(SpecDialect.V0_1_3).listen("127.0.0.1:0").build();
         * }</pre>
         */
        public Builder dialect(SpecDialect dialect) {
            this.dialect = Objects.requireNonNull(dialect, "dialect");
            return this;
        }

        /**
         * What GetIdentity answers: the plugin's name (CSI's domain-name notation, e.g.
         * {@code "rbd.example.com"}) and vendor version. Defaults: {@value #DEFAULT_PLUGIN_NAME} and the version of
         * this jar. Set them: orchestrators use the name to tell plugins apart.
         */
        public Builder identity(String name, String vendorVersion) {
            if (Objects.requireNonNull(name, "name").isBlank()) {
                throw new IllegalArgumentException("the plugin name must not be blank");
            }
            this.pluginName = name;
            this.pluginVersion = Objects.requireNonNull(vendorVersion, "vendorVersion");
            return this;
        }

        /**
         * What Probe answers, asked on every probe (default: always ready once started). A check that throws
         * answers {@code ready = false}. Must be quick and thread-safe.
         *
         * <pre>{@code
         * builder.readiness(() -> backend.isConnected());
         * }</pre>
         */
        public Builder readiness(BooleanSupplier readiness) {
            this.readiness = Objects.requireNonNull(readiness, "readiness");
            return this;
        }

        /**
         * Whether to serve {@code identity.Identity} (default true). Turn it off to serve exactly the replication
         * or healer service, e.g. to test how a client copes with a plugin without Identity.
         */
        public Builder serveIdentity(boolean serve) {
            this.serveIdentity = serve;
            return this;
        }

        /**
         * Where to listen: {@code unix:///path}, {@code host:port} ({@code 127.0.0.1:0} picks a free port),
         * or {@code inprocess:NAME} (gRPC's in-process transport, for tests).
         */
        public Builder listen(String uri) {
            this.listen = Objects.requireNonNull(uri, "uri");
            return this;
        }

        /**
         * An escape hatch: a gRPC interceptor around every service (fault injection, metrics, auth). Called
         * before the runtime's validation; the last one added runs first.
         */
        public Builder interceptor(ServerInterceptor interceptor) {
            interceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
            return this;
        }

        /** How long {@link ReplicationServer#close()} lets calls in flight finish (default 10 s). */
        public Builder gracePeriod(Duration gracePeriod) {
            if (gracePeriod.isNegative()) {
                throw new IllegalArgumentException("gracePeriod must not be negative");
            }
            this.gracePeriod = gracePeriod;
            return this;
        }

        /** TLS with the server's certificate chain and private key (PEM files). */
        public Builder tls(Path certChainPem, Path privateKeyPem) {
            this.certChain = Objects.requireNonNull(certChainPem, "certChainPem");
            this.privateKey = Objects.requireNonNull(privateKeyPem, "privateKeyPem");
            this.trustCertificates = null;
            return this;
        }

        /** Mutual TLS: as {@link #tls}, and clients must present a certificate signed by {@code trustPem}. */
        public Builder mutualTls(Path certChainPem, Path privateKeyPem, Path trustPem) {
            tls(certChainPem, privateKeyPem);
            this.trustCertificates = Objects.requireNonNull(trustPem, "trustPem");
            return this;
        }

        /**
         * A server ready to {@link ReplicationServer#start()}.
         *
         * @throws IllegalStateException when the driver or the address is missing
         * @throws IllegalArgumentException when the address cannot be parsed or TLS is asked of an in-process server
         */
        public ReplicationServer build() {
            if (listen == null) {
                throw new IllegalStateException("listen(uri) is required");
            }
            ListenAddress address = ListenAddress.parse(listen);
            if (driver == null && healer == null) {
                throw new IllegalStateException("driver(...) or healer(...) is required");
            }
            SourceGuard guard = new SourceGuard();
            List<ServerServiceDefinition> services = services(new CallRunner(guard, dialect.errorScheme()));
            List<EventLoopGroup> eventLoops = new ArrayList<>();
            io.grpc.ServerBuilder<?> builder = transport(address, eventLoops);
            services.forEach(service -> builder.addService(MalformedRequests.lenient(service)));
            interceptors.forEach(builder::intercept);
            return new ReplicationServer(address, gracePeriod, builder.build(), guard, List.copyOf(eventLoops));
        }

        /** The services to serve, sharing one runner (and so one guard and one error scheme). */
        private List<ServerServiceDefinition> services(CallRunner runner) {
            List<ServerServiceDefinition> services = new ArrayList<>();
            if (driver != null) {
                services.add(new ControllerService(driver, runner, dialect).bindService());
            }
            if (healer != null) {
                services.add(new HealerService(healer, runner).bindService());
            }
            if (serveIdentity) {
                services.add(new IdentityService(pluginName, pluginVersion, driver != null,
                        driver != null && dialect.supports(Rpc.GET_REPLICATION_DESTINATION_INFO)
                                && ControllerService.servesDestinations(driver), healer != null, readiness)
                        .bindService());
            }
            return services;
        }

        private static String defaultVersion() {
            String version = ReplicationServer.class.getPackage().getImplementationVersion();
            return version == null ? "unknown" : version;
        }

        private io.grpc.ServerBuilder<?> transport(ListenAddress address, List<EventLoopGroup> eventLoops) {
            if (address instanceof ListenAddress.InProcess inProcess) {
                if (certChain != null) {
                    throw new IllegalArgumentException("TLS does not apply to in-process servers");
                }
                return InProcessServerBuilder.forName(inProcess.name());
            }
            NettyServerBuilder netty;
            if (address instanceof ListenAddress.Unix unix) {
                if (!Epoll.isAvailable()) {
                    throw new IllegalStateException("unix sockets need netty's epoll transport (Linux): "
                            + Epoll.unavailabilityCause());
                }
                SocketAddress socket = new DomainSocketAddress(unix.path().toString());
                netty = certChain == null ? NettyServerBuilder.forAddress(socket)
                        : NettyServerBuilder.forAddress(socket, credentials());
                EpollEventLoopGroup boss = new EpollEventLoopGroup(1);
                EpollEventLoopGroup workers = new EpollEventLoopGroup(Math.max(2, Runtime.getRuntime()
                        .availableProcessors()));
                eventLoops.add(boss);
                eventLoops.add(workers);
                netty.channelType(EpollServerDomainSocketChannel.class).bossEventLoopGroup(boss)
                        .workerEventLoopGroup(workers)
                        // TCP keep-alive means nothing on a unix socket; netty WARNs per connection otherwise.
                        .withChildOption(ChannelOption.SO_KEEPALIVE, null);
            } else {
                ListenAddress.Tcp tcp = (ListenAddress.Tcp) address;
                InetSocketAddress socket = new InetSocketAddress(tcp.host(), tcp.port());
                netty = certChain == null ? NettyServerBuilder.forAddress(socket)
                        : NettyServerBuilder.forAddress(socket, credentials());
            }
            return netty;
        }

        private ServerCredentials credentials() {
            try {
                TlsServerCredentials.Builder tls = TlsServerCredentials.newBuilder()
                        .keyManager(certChain.toFile(), privateKey.toFile());
                if (trustCertificates != null) {
                    tls.trustManager(trustCertificates.toFile())
                            .clientAuth(TlsServerCredentials.ClientAuth.REQUIRE);
                }
                return tls.build();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the TLS key material: " + e.getMessage(), e);
            }
        }
    }
}
