package io.volrep.spi;

import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.volrep.api.Rpc;
import io.volrep.api.SpecDialect;
import io.volrep.api.internal.Arguments;
import io.volrep.spi.internal.runtime.CallRunner;
import io.volrep.spi.internal.runtime.ControllerService;
import io.volrep.spi.internal.runtime.HealerService;
import io.volrep.spi.internal.runtime.IdentityService;
import io.volrep.spi.internal.runtime.MalformedRequests;
import io.volrep.spi.internal.runtime.SourceGuard;
import io.volrep.spi.internal.runtime.VolumeGroupService;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.logging.Level;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves a {@link ReplicationDriver} as a spec-correct {@code replication.Controller} gRPC plugin, a
 * {@link VolumeGroupDriver} as {@code volumegroup.Controller}, a {@link HealerDriver} as {@code healer.HealerNode},
 * or any of them together, on a unix socket, TCP (optionally TLS or mutual TLS) or gRPC's in-process transport; and,
 * unless turned off, CSI-Addons {@code identity.Identity} derived from what it serves. {@link Builder#dialect} serves
 * a legacy revision of the replication spec instead of the current one, with the same typed requests for the driver.
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
 * is not (start fails); the socket appears with mode 0660 from its first instant (whatever the umask) and is
 * deleted on {@link #close()}.
 *
 * <p>{@link #close()} is a graceful shutdown: new calls are refused, calls in flight may finish within the
 * grace period, then the remaining ones are answered 14 UNAVAILABLE (retryable).
 */
public final class ReplicationServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicationServer.class);

    /**
     * The loggers that write whole HTTP/2 frames, payloads and so the requests' secrets included, as hex at DEBUG
     * (JUL: FINE): gRPC's Netty handlers (shaded and plain), through Netty's frame logger. Keep them at INFO or
     * above in production; {@link #start()} warns when one is on, and the {@code volrep} jar never turns them on.
     *
     * <pre>{@code
     * // logback.xml: <logger name="io.grpc.netty.shaded.io.grpc.netty.NettyServerHandler" level="INFO"/>
     * ReplicationServer.RAW_FRAME_LOGGERS.forEach(name -> java.util.logging.Logger.getLogger(name).setLevel(Level.INFO));
     * }</pre>
     */
    public static final List<String> RAW_FRAME_LOGGERS = List.of(
            "io.grpc.netty.shaded.io.grpc.netty.NettyServerHandler",
            "io.grpc.netty.shaded.io.grpc.netty.NettyClientHandler",
            "io.grpc.netty.NettyServerHandler",
            "io.grpc.netty.NettyClientHandler");
    /** How long closing waits for the answers of calls ended at the grace period's expiry to be sent. */
    private static final Duration FLUSH_TIMEOUT = Duration.ofSeconds(2);

    private final ServerTransport transport;
    private final Duration gracePeriod;
    private final Server server;
    private final SourceGuard guard;
    private final InFlightCalls calls;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closing = new AtomicBoolean();
    private final CountDownLatch terminated = new CountDownLatch(1);
    private volatile String address;

    private ReplicationServer(
            ServerTransport transport, Duration gracePeriod, Server server, SourceGuard guard, InFlightCalls calls) {
        this.transport = transport;
        this.gracePeriod = gracePeriod;
        this.server = server;
        this.guard = guard;
        this.calls = calls;
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
            transport.start(server);
        } catch (IOException e) {
            releaseResources();
            throw new UncheckedIOException("cannot listen on " + transport + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            releaseResources();
            throw e;
        }
        address = transport.address(server);
        LOG.info("replication server listening on {}", address);
        List<String> frameDumps = rawFrameLoggersOn();
        if (!frameDumps.isEmpty()) {
            LOG.warn(
                    "{} log at DEBUG: they write every HTTP/2 frame, secrets included, as hex; set them to INFO"
                            + " (see the guide's logging section)",
                    frameDumps);
        }
        return this;
    }

    /**
     * The {@link #RAW_FRAME_LOGGERS} that are on, through SLF4J (when Netty finds a binding it logs there) or
     * java.util.logging (its fallback).
     */
    static List<String> rawFrameLoggersOn() {
        List<String> on = new ArrayList<>();
        for (String name : RAW_FRAME_LOGGERS) {
            if (LoggerFactory.getLogger(name).isDebugEnabled()
                    || java.util.logging.Logger.getLogger(name).isLoggable(Level.FINE)) {
                on.add(name);
            }
        }
        return on;
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
        return transport.port(server);
    }

    /** How many sources (replication sources, healer volumes) have a guarded call in flight: 0 when idle. */
    public int busySources() {
        return guard.busyKeys();
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
     * Graceful shutdown: refuses new calls, lets calls in flight finish within the grace period, answers those
     * still running then with 14 UNAVAILABLE "plugin shutting down" (retryable, so clients try again once the
     * plugin is back), releases the socket (deleting a unix socket file). Idempotent; a concurrent caller waits.
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
                LOG.info(
                        "replication server on {} shutting down ({} call(s) in flight, grace period {})",
                        address,
                        calls.size(),
                        gracePeriod);
                server.shutdown();
                try {
                    if (!server.awaitTermination(gracePeriod.toNanos(), TimeUnit.NANOSECONDS)) {
                        endCallsStillRunning();
                    }
                } catch (InterruptedException e) {
                    server.shutdownNow();
                    Thread.currentThread().interrupt();
                }
            }
            releaseResources();
            LOG.info("replication server on {} stopped", address == null ? transport : address);
        } finally {
            terminated.countDown();
        }
    }

    /**
     * The grace period is over: answers the calls still running with UNAVAILABLE, gives those answers a moment
     * to reach the clients, then stops the transport. {@code shutdownNow()} alone would reset the streams, which
     * clients see as CANCELLED, a code they do not retry.
     */
    private void endCallsStillRunning() throws InterruptedException {
        int ended = calls.closeAll(Status.UNAVAILABLE.withDescription("plugin shutting down: the call did not "
                + "finish within the grace period of " + gracePeriod + "; retry"));
        LOG.warn(
                "{} call(s) still in flight after the grace period of {}: answered 14 UNAVAILABLE", ended, gracePeriod);
        if (!server.awaitTermination(FLUSH_TIMEOUT.toNanos(), TimeUnit.NANOSECONDS)) {
            server.shutdownNow();
            server.awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    private void releaseResources() {
        server.shutdownNow();
        transport.release();
    }

    /**
     * Configures a {@link ReplicationServer}. {@link #listen} and at least one of {@link #driver},
     * {@link #volumeGroups} and {@link #healer} are required.
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
        private VolumeGroupDriver volumeGroups;
        private HealerDriver healer;
        private SpecDialect dialect = SpecDialect.CURRENT;
        private boolean serveIdentity = true;
        private String pluginName = DEFAULT_PLUGIN_NAME;
        private String pluginVersion = defaultVersion();
        private BooleanSupplier readiness = () -> true;
        private String listen;
        private final List<ServerInterceptor> interceptors = new ArrayList<>();
        private final List<ServerObserver> observers = new ArrayList<>();
        private Duration gracePeriod = Duration.ofSeconds(10);
        private Duration driverTimeout;
        private Path certChain;
        private Path privateKey;
        private Path trustCertificates;
        private boolean directExecutor;

        private Builder() {}

        /**
         * The driver that serves {@code replication.Controller}: the RPCs it {@linkplain ReplicationDriver#servedRpcs()
         * declares}, for the source kinds it {@linkplain ReplicationDriver#supportedSourceKinds() supports}.
         *
         * @throws IllegalArgumentException when its declaration names an RPC of another service
         */
        public Builder driver(ReplicationDriver driver) {
            ControllerService.served(Objects.requireNonNull(driver, "driver"));
            this.driver = driver;
            return this;
        }

        /**
         * The driver that serves {@code volumegroup.Controller}: the groups {@link #driver}'s replication replicates.
         * Identity then advertises {@code CONTROLLER_SERVICE} and one {@code VolumeGroup} capability per type the
         * driver {@linkplain VolumeGroupDriver#served() serves} or {@linkplain VolumeGroupDriver#behaviours() has}.
         *
         * <pre>{@code
         * ReplicationServer.builder().driver(replication).volumeGroups(groups).listen("unix:///csi/csi-addons.sock")
         *         .build().start();
         * }</pre>
         *
         * @throws IllegalArgumentException when the driver's capabilities are not what {@link VolumeGroupDriver} allows
         */
        public Builder volumeGroups(VolumeGroupDriver volumeGroups) {
            Objects.requireNonNull(volumeGroups, "volumeGroups");
            VolumeGroupService.advertised(volumeGroups);
            this.volumeGroups = volumeGroups;
            return this;
        }

        /**
         * The driver that serves {@code healer.HealerNode} (NodeHealer). A server serves replication, volume groups,
         * the healer, or several of them: at least one of {@link #driver}, {@link #volumeGroups} and this.
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
         * What GetIdentity answers: the plugin's name (the spec's domain-name notation: at most 63 characters,
         * alphanumeric at both ends, dashes, dots and alphanumerics between, e.g. {@code "rbd.example.com"}) and vendor
         * version (REQUIRED, not empty). Defaults: {@value #DEFAULT_PLUGIN_NAME} and the version of this jar. Set
         * them: orchestrators use the name to tell plugins apart.
         *
         * @throws IllegalArgumentException naming the field when the spec does not allow the answer
         */
        public Builder identity(String name, String vendorVersion) {
            IdentityService.requireValidIdentity(name, vendorVersion);
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
         * Adds an observer of every served call (RPC, code, duration, why): what metrics bind to, e.g.
         * {@code replication-micrometer}'s {@code VolrepServerMetrics}. Called in the order added.
         *
         * <pre>{@code
         * ReplicationServer.builder().driver(driver).observer(event -> calls.increment()).listen(uri).build();
         * }</pre>
         */
        public Builder observer(ServerObserver observer) {
            observers.add(Objects.requireNonNull(observer, "observer"));
            return this;
        }

        /**
         * An escape hatch: a gRPC interceptor around every service (fault injection, metrics, auth). Called
         * before the runtime's validation; the last one added runs first. As with plain gRPC, a request whose bytes do
         * not parse never reaches it (the runtime answers it INVALID_ARGUMENT "malformed request").
         */
        public Builder interceptor(ServerInterceptor interceptor) {
            interceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
            return this;
        }

        /**
         * Runs calls on gRPC's transport thread (netty's event loop; in-process, the caller's thread) instead of
         * handing them to gRPC's default executor (a cached pool), as gRPC's {@code ServerBuilder.directExecutor()}
         * does: it saves thread hand-overs per call, but only a driver whose every method returns at once, without
         * I/O, sleeps or contended locks (an in-memory driver, a driver that only queues work), and interceptors
         * and a readiness check that do not block either, may be served so. A blocking call there stalls every
         * call of its connection. Never for the exec bridge ({@code ExecDriver} waits for processes).
         *
         * <pre>{@code
         * ReplicationServer.builder().driver(new InMemoryDriver()).directExecutor().listen(uri).build();
         * }</pre>
         */
        public Builder directExecutor() {
            this.directExecutor = true;
            return this;
        }

        /**
         * The most time a driver is given for one call: every request's {@link DriverRequest#deadline()} is at most this
         * long after the call arrived, and sooner when the caller's gRPC deadline is (less a margin for the answer to
         * travel). Default: no limit of the server's own, only the caller's. The runtime does not stop a driver at its
         * deadline; the driver bounds its own waits with it.
         *
         * <pre>{@code
         * ReplicationServer.builder().driver(driver).driverTimeout(Duration.ofSeconds(30)).listen(uri).build();
         * }</pre>
         */
        public Builder driverTimeout(Duration timeout) {
            this.driverTimeout = Arguments.requirePositive("driverTimeout", timeout);
            return this;
        }

        /** How long {@link ReplicationServer#close()} lets calls in flight finish (default 10 s). */
        public Builder gracePeriod(Duration gracePeriod) {
            this.gracePeriod = Arguments.requireNotNegative("gracePeriod", gracePeriod);
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
            if (driver == null && volumeGroups == null && healer == null) {
                throw new IllegalStateException("driver(...), volumeGroups(...) or healer(...) is required");
            }
            SourceGuard guard = new SourceGuard();
            CallRunner runner =
                    new CallRunner(guard, dialect.errorScheme(), ServerObservers.of(observers), driverTimeout);
            List<ServerServiceDefinition> services = services(runner);
            ServerTransport transport = new ServerTransport(
                    address,
                    certChain == null ? null : new ServerTransport.TlsFiles(certChain, privateKey, trustCertificates));
            ServerBuilder<?> builder = transport.builder();
            if (directExecutor) {
                builder.directExecutor();
            }
            // The caller's interceptors wrap each service inside the malformed-request path: like plain gRPC, they
            // never see a request that did not parse (it is answered INVALID_ARGUMENT before them).
            services.forEach(service -> builder.addService(
                    MalformedRequests.lenient(ServerInterceptors.intercept(service, interceptors), runner)));
            InFlightCalls calls = new InFlightCalls();
            builder.intercept(calls); // added last, so it runs first: it must see the transport's own call
            return new ReplicationServer(transport, gracePeriod, builder.build(), guard, calls);
        }

        /** The services to serve, sharing one runner (and so one guard and one error scheme). */
        private List<ServerServiceDefinition> services(CallRunner runner) {
            List<ServerServiceDefinition> services = new ArrayList<>();
            if (driver != null) {
                services.add(new ControllerService(driver, runner, dialect).bindService());
            }
            if (volumeGroups != null) {
                services.add(new VolumeGroupService(volumeGroups, runner).bindService());
            }
            if (healer != null) {
                services.add(new HealerService(healer, runner).bindService());
            }
            if (serveIdentity) {
                services.add(new IdentityService(
                                pluginName,
                                pluginVersion,
                                driver != null,
                                driver != null
                                        && dialect.supports(Rpc.GET_REPLICATION_DESTINATION_INFO)
                                        && ControllerService.served(driver)
                                                .contains(Rpc.GET_REPLICATION_DESTINATION_INFO),
                                volumeGroups == null ? Set.of() : VolumeGroupService.advertised(volumeGroups),
                                healer != null,
                                readiness)
                        .bindService());
            }
            return services;
        }

        private static String defaultVersion() {
            String version = ReplicationServer.class.getPackage().getImplementationVersion();
            return version == null ? "unknown" : version;
        }
    }
}
