package io.volrep.client;

import io.grpc.ClientInterceptor;
import io.grpc.ManagedChannel;
import io.volrep.api.ReplicationSource;
import io.volrep.api.SpecDialect;
import io.volrep.api.internal.Arguments;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A typed client for a CSI-Addons replication plugin, whose retries follow the spec's recovery table.
 *
 * <pre>{@code
 * try (ReplicationClient client = ReplicationClient.builder()
 *         .target("unix:///csi/csi-addons.sock")              // or "dns:///host:port", "host:port"
 *         .retry(RetryPolicy.spec().toBuilder().maxAttempts(8).build())
 *         .secrets(SecretsProvider.of(Map.of("user", "admin")))
 *         .build()) {
 *     client.volume("pvc-1").enable().parameter("mirroringMode", "snapshot").call();
 *     client.volume("pvc-1").promote().force().call();
 *     ReplicationInfo info = client.volume("pvc-1").info();
 *     client.volumeGroup("vg-7").demote().callAsync()
 *           .thenCompose(v -> client.volumeGroup("vg-7").resync().awaitReady(Duration.ofMinutes(5)));
 *     VolumeGroup db = client.volumeGroups().create("db").volumes("pvc-1", "pvc-2").call();  // volumegroup.Controller
 * }
 * // a plugin built on spec revision v0.1.3; a node plugin's healer; the CSI-Addons Identity service
 * ReplicationClient legacy = ReplicationClient.builder().target(sock).dialect(SpecDialect.V0_1_3).build();
 * HealReport report = nodeClient.node().heal("vol-3", Path.of("/mnt/vol-3")).call();
 * PluginIdentity id = client.identity();
 * }</pre>
 *
 * <p>The client is thread-safe; share one per plugin. At most one call per source is in flight at a time
 * (later calls for the same source wait their turn, see {@link Builder#maxQueuedPerSource}). Back-offs are
 * scheduled, never slept. {@link #close()} shuts the channel and the executors the client created.
 */
public final class ReplicationClient implements AutoCloseable {
    /** Where CSI-Addons plugins conventionally listen. */
    public static final String DEFAULT_TARGET = "unix:///csi/csi-addons.sock";
    /** The default of {@link Builder#maxInboundMessageSize}: 4 MiB, gRPC's. */
    public static final int DEFAULT_MAX_INBOUND_MESSAGE_SIZE = 4 << 20;

    private static final AtomicInteger CLIENTS = new AtomicInteger();

    private final String target;
    private final ManagedChannel channel;
    private final CallEngine engine;
    private final ClientResources.Threads threads;
    private final SpecDialect dialect;

    private ReplicationClient(Builder b) {
        this.target = b.target;
        this.threads = ClientResources.Threads.of(b.executor, b.scheduler, CLIENTS.incrementAndGet());
        this.channel = ClientResources.channel(
                b.target,
                ClientResources.credentials(b.trustedCaPem, b.certChainPem, b.privateKeyPem),
                b.authority,
                b.interceptors,
                b.maxInboundMessageSize,
                threads.executor());
        this.dialect = b.dialect;
        this.engine = new CallEngine(channel, new CallSettings(b, threads.executor(), threads.scheduler()));
    }

    /** A builder with the defaults: {@value #DEFAULT_TARGET}, plaintext, {@link RetryPolicy#spec()}. */
    public static Builder builder() {
        return new Builder();
    }

    /** Operations on a volume. */
    public SourceClient volume(String volumeId) {
        return source(ReplicationSource.volume(volumeId));
    }

    /** Operations on a volume group. */
    public SourceClient volumeGroup(String volumeGroupId) {
        return source(ReplicationSource.volumeGroup(volumeGroupId));
    }

    /** Operations on a volume snapshot. */
    public SourceClient volumeSnapshot(String volumeSnapshotId) {
        return source(ReplicationSource.volumeSnapshot(volumeSnapshotId));
    }

    /** Operations on any source. */
    public SourceClient source(ReplicationSource source) {
        return new SourceClient(engine, source);
    }

    /**
     * The volume group operations ({@code volumegroup.Controller}): create, modify, delete, get and list the groups
     * that {@link #volumeGroup} replicates. Each is offered only when the plugin advertises its capability.
     *
     * <pre>{@code
     * VolumeGroup g = client.volumeGroups().create("db-1").volumes("pvc-1", "pvc-2").call();
     * client.volumeGroup(g.id()).enable().call();
     * }</pre>
     */
    public VolumeGroupsClient volumeGroups() {
        return new VolumeGroupsClient(engine);
    }

    /**
     * The node-plugin operations (NodeHealer). They go to this client's target, which must then be the node
     * plugin's endpoint.
     */
    public NodeClient node() {
        return new NodeClient(engine);
    }

    /**
     * {@code identity.Identity/GetIdentity}: the plugin's name, version and manifest. Sent like every call: seen by
     * the {@link Builder#listener listener} and {@link Builder#observer observers}, waiting for a plugin that is not
     * up yet unless the policy {@link RetryPolicy#failFast() fails fast}, and retried with back-off after transport
     * failures (14 UNAVAILABLE, 4 DEADLINE_EXCEEDED, 8 RESOURCE_EXHAUSTED), all within the retry policy's timeouts.
     * The spec has no error table for Identity: any other code is surfaced at once.
     *
     * <pre>{@code
     * PluginIdentity id = client.identity();
     * log.info("{} {}", id.name(), id.vendorVersion());
     * }</pre>
     *
     * @throws io.volrep.api.UnimplementedException when the plugin does not serve the CSI-Addons Identity service
     * @throws io.volrep.api.ReplicationException (the code's subclass) for any other failure
     */
    public PluginIdentity identity() {
        return IdentityCall.identity(engine).call();
    }

    /**
     * {@link #identity()} without blocking: the future completes with the identity or the
     * {@link io.volrep.api.ReplicationException}; cancelling it cancels the call and its retries.
     *
     * <pre>{@code
     * client.identityAsync().thenAccept(id -> log.info("plugin {} {}", id.name(), id.vendorVersion()));
     * }</pre>
     */
    public CompletableFuture<PluginIdentity> identityAsync() {
        return IdentityCall.identity(engine).callAsync();
    }

    /**
     * {@code identity.Identity/GetCapabilities}, typed; sent and retried as {@link #identity()}.
     *
     * <pre>{@code
     * if (client.capabilities().destinationInfo()) { ... }
     * }</pre>
     *
     * @throws io.volrep.api.UnimplementedException when the plugin does not serve the CSI-Addons Identity service
     */
    public PluginCapabilities capabilities() {
        return IdentityCall.capabilities(engine).call();
    }

    /**
     * {@link #capabilities()} without blocking.
     *
     * <pre>{@code
     * client.capabilitiesAsync().thenAccept(caps -> useDestinations(caps.destinationInfo()));
     * }</pre>
     */
    public CompletableFuture<PluginCapabilities> capabilitiesAsync() {
        return IdentityCall.capabilities(engine).callAsync();
    }

    /**
     * {@code identity.Identity/Probe}; an unset {@code ready} means ready. Sent and retried as {@link #identity()}:
     * a plugin that is still starting is waited for (within the policy's total timeout), not reported as down.
     *
     * <pre>{@code
     * ProbeResult probe = client.probe();
     * if (!probe.ready()) { retryLater(); }
     * }</pre>
     *
     * @throws io.volrep.api.UnimplementedException when the plugin does not serve the CSI-Addons Identity service
     */
    public ProbeResult probe() {
        return IdentityCall.probe(engine).call();
    }

    /**
     * {@link #probe()} without blocking.
     *
     * <pre>{@code
     * client.probeAsync().orTimeout(30, TimeUnit.SECONDS)
     *       .thenAccept(p -> health.set(p.ready()));
     * }</pre>
     */
    public CompletableFuture<ProbeResult> probeAsync() {
        return IdentityCall.probe(engine).callAsync();
    }

    /** The spec revision this client speaks on the replication service. */
    public SpecDialect dialect() {
        return dialect;
    }

    /** The target this client dials. */
    public String target() {
        return target;
    }

    /** The client's default retry policy. */
    public RetryPolicy retryPolicy() {
        return engine.settings().defaultPolicy();
    }

    /** How many sources have a call in flight or waiting right now. */
    public int activeSources() {
        return engine.activeSources();
    }

    /**
     * Why nothing answers at {@code target}, found by looking (no such socket file, permission denied, connection
     * refused, unknown host, ...), as the client's connection warnings and the exception of a call that never
     * reached its plugin say it. Empty when a connection can be made or the form cannot be checked
     * ({@code inprocess:}, resolvers other than {@code dns:///}); may block for a 2 s TCP connect.
     *
     * <pre>{@code
     * ReplicationClient.whyUnreachable("unix:///csi/csi-addons.sock").ifPresent(why -> log.warn("plugin: {}", why));
     * }</pre>
     */
    public static Optional<String> whyUnreachable(String target) {
        return Reachability.whyUnreachable(Objects.requireNonNull(target, "target"));
    }

    /**
     * Shuts the channel (calls in flight are cancelled) and the executors this client created; executors passed
     * to the builder are left running.
     */
    @Override
    public void close() {
        ClientResources.release(channel, target, threads);
    }

    @Override
    public String toString() {
        return "ReplicationClient[" + target + "]";
    }

    /**
     * Configures a {@link ReplicationClient}.
     *
     * <pre>{@code
     * ReplicationClient client = ReplicationClient.builder()
     *         .target("dns:///replication.storage.svc:9090")
     *         .mutualTls(Path.of("ca.pem"), Path.of("client.pem"), Path.of("client-key.pem"))
     *         .deadline(Duration.ofMinutes(1))
     *         .sourceVerifier(SourceVerifier.of(source -> inventory.contains(source.id())))
     *         .listener(event -> log.debug("{}", event.describe()))
     *         .build();
     * }</pre>
     */
    public static final class Builder {
        // Package-private: CallSettings reads them by name.
        String target = DEFAULT_TARGET;
        String authority;
        Path trustedCaPem;
        Path certChainPem;
        Path privateKeyPem;
        Duration deadline;
        RetryPolicy retry = RetryPolicy.spec();
        SecretsProvider secrets = SecretsProvider.none();
        SourceVerifier sourceVerifier;
        AttemptListener listener;
        ConnectionListener connectionListener;
        final List<CallObserver> observers = new ArrayList<>();
        final List<ClientInterceptor> interceptors = new ArrayList<>();
        ExecutorService executor;
        ScheduledExecutorService scheduler;
        int maxQueuedPerSource = 64;
        int maxInboundMessageSize = DEFAULT_MAX_INBOUND_MESSAGE_SIZE;
        SpecDialect dialect = SpecDialect.CURRENT;
        boolean alsoSendDeprecatedVolumeId = true;
        boolean directExecutor;
        CallSettings.ConnectionWarnings connectionWarnings = CallSettings.ConnectionWarnings.DEFAULT;

        private Builder() {}

        /** When waits for a connection are logged (tests shorten the intervals). */
        Builder connectionWarnings(Duration first, Duration every) {
            this.connectionWarnings = new CallSettings.ConnectionWarnings(first, every);
            return this;
        }

        /**
         * The revision of the replication spec the plugin speaks; {@link SpecDialect#CURRENT} by default. The typed
         * API stays the same; the client encodes requests and reads responses with that revision's messages, and
         * what the revision cannot express fails before sending with {@link UnsupportedByDialectException}:
         * <ul>
         *   <li>{@link SpecDialect#V0_1_3}: sends {@code volume_id} (REQUIRED there; for a group, the group id) and
         *       {@code replication_source} numbered {@code volumegroup = 1, volume = 2}; info carries only the last
         *       sync time; snapshot sources are unsupported;</li>
         *   <li>{@link SpecDialect#V0_1_0}: sends only {@code volume_id}; volumes only, no info, no
         *       {@code replication_id}.</li>
         * </ul>
         * Choosing the wrong revision is dangerous, not just failing: see docs/compatibility.md.
         *
         * <pre>{@code
         * ReplicationClient legacy = ReplicationClient.builder().target(sock).dialect(SpecDialect.V0_1_3).build();
         * }</pre>
         */
        public Builder dialect(SpecDialect dialect) {
            this.dialect = Objects.requireNonNull(dialect, "dialect");
            return this;
        }

        /**
         * Under {@link SpecDialect#CURRENT}, also set the deprecated {@code volume_id} (field 1) for volume sources,
         * for plugins that still read only that field. On by default; groups and snapshots never set it. Ignored by
         * the legacy dialects, which always send it.
         */
        public Builder alsoSendDeprecatedVolumeId(boolean send) {
            this.alsoSendDeprecatedVolumeId = send;
            return this;
        }

        /**
         * Where the plugin listens: {@code unix:///path/to.sock}, {@code dns:///host:port}, {@code host:port}, or
         * {@code inprocess:NAME} (gRPC's in-process transport, for tests). Default {@value #DEFAULT_TARGET}.
         */
        public Builder target(String target) {
            Objects.requireNonNull(target, "target");
            if (target.isBlank()) {
                throw new IllegalArgumentException("target must not be blank");
            }
            this.target = target;
            return this;
        }

        /** Overrides the HTTP/2 {@code :authority} (unix targets default to {@code localhost}). */
        public Builder authority(String authority) {
            this.authority = Objects.requireNonNull(authority, "authority");
            return this;
        }

        /** TLS, trusting the CA certificate(s) in {@code trustedCaPem} (PEM). */
        public Builder tls(Path trustedCaPem) {
            this.trustedCaPem = Objects.requireNonNull(trustedCaPem, "trustedCaPem");
            this.certChainPem = null;
            this.privateKeyPem = null;
            return this;
        }

        /** Mutual TLS: trust {@code trustedCaPem}, present {@code certChainPem} with {@code privateKeyPem} (PKCS#8 PEM). */
        public Builder mutualTls(Path trustedCaPem, Path certChainPem, Path privateKeyPem) {
            this.trustedCaPem = Objects.requireNonNull(trustedCaPem, "trustedCaPem");
            this.certChainPem = Objects.requireNonNull(certChainPem, "certChainPem");
            this.privateKeyPem = Objects.requireNonNull(privateKeyPem, "privateKeyPem");
            return this;
        }

        /**
         * The gRPC deadline of each call to the plugin; default 3 minutes. Shorthand for the retry policy's
         * {@link RetryPolicy.Builder#perAttemptTimeout}, applied over whatever {@link #retry} sets.
         */
        public Builder deadline(Duration deadline) {
            this.deadline = Arguments.requirePositive("deadline", deadline);
            return this;
        }

        /** The default retry policy of every call; {@link RetryPolicy#spec()} unless set. */
        public Builder retry(RetryPolicy policy) {
            this.retry = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /** Where request secrets come from; none by default. */
        public Builder secrets(SecretsProvider secrets) {
            this.secrets = Objects.requireNonNull(secrets, "secrets");
            return this;
        }

        /** Enables retrying NOT_FOUND, for the sources this verifier approves. */
        public Builder sourceVerifier(SourceVerifier verifier) {
            this.sourceVerifier = Objects.requireNonNull(verifier, "verifier");
            return this;
        }

        /** Sees every attempt (code, chosen delay). */
        public Builder listener(AttemptListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * Hears when calls wait for a plugin that cannot be reached (5 s into the wait, then every 10 s, with the
         * reason: no such socket file, connection refused, ...) and when the connection is back: what the client's
         * {@code ConnectionWatch} logs, for a program that wants it without a logging binding, or in its own words.
         *
         * <pre>{@code
         * ReplicationClient.builder()
         *         .connectionListener((target, waited, why) -> readiness.notConnected(target, why)) // yours
         *         .build();
         * }</pre>
         */
        public Builder connectionListener(ConnectionListener listener) {
            this.connectionListener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * Adds an observer of whole calls (accepted, started, each attempt, finished): what metrics and tracing bind
         * to, e.g. {@code replication-micrometer}'s {@code VolrepClientMetrics}. Observers are called in the order
         * they were added.
         *
         * <pre>{@code
         * ReplicationClient.builder().observer((rpc, source) -> (code, attempts) -> calls.increment()).build();
         * }</pre>
         */
        public Builder observer(CallObserver observer) {
            observers.add(Objects.requireNonNull(observer, "observer"));
            return this;
        }

        /**
         * Adds a gRPC interceptor to the channel: it sees every attempt (a tracing interceptor propagates its
         * context in the attempt's metadata; the call's observation is current while an attempt starts, see
         * {@link CallObservation#openScope()}). As with {@code ManagedChannelBuilder.intercept}, the last added
         * runs first. An escape hatch: interceptors see the wire messages, secrets
         * included, and must not log them. An interceptor that changes a call's final status passes on the trailers
         * object it was given: the client tells the plugin's own status from one its gRPC made up by that object.
         */
        public Builder interceptor(ClientInterceptor interceptor) {
            interceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
            return this;
        }

        /**
         * Runs gRPC callbacks and queued calls; not shut down by {@link ReplicationClient#close()}. Default: a
         * small fixed pool the client owns.
         */
        public Builder executor(ExecutorService executor) {
            this.executor = Objects.requireNonNull(executor, "executor");
            return this;
        }

        /**
         * Completes a successful asynchronous call on gRPC's transport thread (netty's event loop; in-process, the
         * server's thread) instead of handing the answer to the {@link #executor} first, as gRPC's
         * {@code ManagedChannelBuilder.directExecutor()} does for its callbacks: it saves a thread hand-over per
         * call (in volrep's benchmarks, 64 calls in flight in-process took about half the time per call). The price:
         * whatever is chained to a call's future without an executor runs on that thread, and a blocking
         * continuation there stalls every call of its connection, its own answer included. That covers the
         * caller's {@code thenApply}/{@code thenCompose}, the {@link AttemptListener} and {@link CallObserver}s of
         * a successful attempt, a resync's poll listener, and what volrep itself chains on a success (the next step
         * of a reconciliation or failover, with the {@link SecretsProvider} and destination resolver it asks).
         * Only for continuations that return at once, or that name their own executor
         * ({@code thenApplyAsync(fn, executor)}).
         *
         * <p>What stays off the transport thread: every failed attempt (so the {@link SourceVerifier}, the
         * secrets' renewal, the retry decision and a failed call's continuations run on the {@link #executor});
         * queued calls of a source, which start on the {@link #executor}; and blocking calls ({@code call()}),
         * whose callbacks already run on the waiting caller's thread.
         *
         * <pre>{@code
         * ReplicationClient client = ReplicationClient.builder().target(sock).directExecutor().build();
         * client.volume("pvc-1").enable().callAsync().thenAccept(done -> enabled.countDown());
         * }</pre>
         */
        public Builder directExecutor() {
            this.directExecutor = true;
            return this;
        }

        /**
         * Schedules back-offs and readiness polls; not shut down by {@link ReplicationClient#close()}. Default: one
         * thread the client owns.
         */
        public Builder scheduler(ScheduledExecutorService scheduler) {
            this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            return this;
        }

        /**
         * How many calls for one source may wait while one is in flight; more fail at once with
         * {@link CallQueueFullException}. Default 64.
         */
        public Builder maxQueuedPerSource(int max) {
            this.maxQueuedPerSource = Arguments.requireAtLeast("maxQueuedPerSource", max, 0);
            return this;
        }

        /**
         * The largest response the client accepts, in bytes; default {@value #DEFAULT_MAX_INBOUND_MESSAGE_SIZE}
         * (4 MiB, gRPC's). A larger response fails the call at once with
         * {@link io.volrep.api.ResourceExhaustedException} naming this limit; it is not retried, since the same
         * response would be refused again.
         *
         * <pre>{@code
         * ReplicationClient.builder().maxInboundMessageSize(16 << 20).build();
         * }</pre>
         */
        public Builder maxInboundMessageSize(int bytes) {
            this.maxInboundMessageSize = Arguments.requireAtLeast("maxInboundMessageSize", bytes, 1);
            return this;
        }

        /** The client; opens no connection until the first call. */
        public ReplicationClient build() {
            return new ReplicationClient(this);
        }
    }
}
