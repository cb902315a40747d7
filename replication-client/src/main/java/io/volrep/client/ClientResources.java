package io.volrep.client;

import io.grpc.ChannelCredentials;
import io.grpc.ClientInterceptor;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.TlsChannelCredentials;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What a {@link ReplicationClient} opens for itself, and closes: its channel and, unless given its own, its threads. */
final class ClientResources {
    /** The documented logger of {@link #release} ({@code io.volrep.client.ReplicationClient}). */
    private static final Logger LOG = LoggerFactory.getLogger(ReplicationClient.class);

    private ClientResources() {}

    /**
     * A client's threads: the builder's, or ones the client creates and owns.
     *
     * @param ownedExecutor {@code executor} when the client created it, else null
     * @param ownedScheduler {@code scheduler} when the client created it, else null
     */
    record Threads(
            ExecutorService executor,
            ScheduledExecutorService scheduler,
            ExecutorService ownedExecutor,
            ScheduledExecutorService ownedScheduler) {
        /** The given executor and scheduler, each created (and owned) where null. */
        static Threads of(ExecutorService given, ScheduledExecutorService givenScheduler, int clientId) {
            ExecutorService owned = given == null ? ClientResources.executor(clientId) : null;
            ScheduledExecutorService ownedScheduler =
                    givenScheduler == null ? ClientResources.scheduler(clientId) : null;
            return new Threads(
                    given != null ? given : owned,
                    givenScheduler != null ? givenScheduler : ownedScheduler,
                    owned,
                    ownedScheduler);
        }
    }

    /**
     * Shuts {@code channel} (calls in flight are cancelled) and the threads the client created (those it owns of
     * {@code threads}).
     */
    static void release(ManagedChannel channel, String target, Threads threads) {
        ScheduledExecutorService ownedScheduler = threads.ownedScheduler();
        ExecutorService ownedExecutor = threads.ownedExecutor();
        channel.shutdownNow();
        try {
            if (!channel.awaitTermination(5, TimeUnit.SECONDS)) {
                LOG.warn("channel to {} did not terminate within 5 s", target);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (ownedScheduler != null) {
            ownedScheduler.shutdownNow();
        }
        if (ownedExecutor != null) {
            ownedExecutor.shutdown();
        }
    }

    /** The client's executor when the builder sets none: a small fixed pool of daemon threads. */
    static ExecutorService executor(int clientId) {
        return Executors.newFixedThreadPool(
                Math.max(2, Runtime.getRuntime().availableProcessors()),
                daemonThreads("volrep-client-" + clientId + "-"));
    }

    /** The client's scheduler when the builder sets none: one daemon thread. */
    static ScheduledExecutorService scheduler(int clientId) {
        ScheduledThreadPoolExecutor scheduler =
                new ScheduledThreadPoolExecutor(1, daemonThreads("volrep-client-" + clientId + "-backoff-"));
        // Cancelled retries must not linger in the queue until their delay expires.
        scheduler.setRemoveOnCancelPolicy(true);
        return scheduler;
    }

    private static ThreadFactory daemonThreads(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /** The channel to {@code target}; {@code authority} (or null) overrides the HTTP/2 {@code :authority}. */
    static ManagedChannel channel(
            String target,
            ChannelCredentials credentials,
            String authority,
            List<ClientInterceptor> interceptors,
            int maxInboundMessageSize,
            Executor executor) {
        ManagedChannelBuilder<?> mcb;
        if (target.startsWith("inprocess:")) {
            mcb = InProcessChannelBuilder.forName(target.substring("inprocess:".length()));
        } else {
            mcb = Grpc.newChannelBuilder(target, credentials);
            if (target.startsWith("unix:")) {
                // The socket path is no valid HTTP/2 :authority; some servers reject it.
                mcb.overrideAuthority("localhost");
                if (mcb instanceof NettyChannelBuilder nettyChannelBuilder) {
                    // gRPC sets TCP keep-alive on every transport; a unix socket has none, and netty WARNs
                    // "Unknown channel option 'SO_KEEPALIVE'" per connection (as the server, see ReplicationServer).
                    nettyChannelBuilder.withOption(ChannelOption.SO_KEEPALIVE, null);
                }
            }
        }
        if (authority != null) {
            mcb.overrideAuthority(authority);
        }
        if (!interceptors.isEmpty()) {
            mcb.intercept(interceptors);
        }
        // The client's retry loop is the only one: it decides every attempt by the spec's recovery table, reports
        // it and counts it. gRPC's own layer would resend a refused stream unseen, and costs every call a
        // RetriableStream (its buffer, its locks, a second tracer): about a tenth of a call (docs/benchmarks.md).
        mcb.disableRetry();
        return mcb.maxInboundMessageSize(maxInboundMessageSize)
                .executor(executor)
                .build();
    }

    /** Plaintext without a trusted CA; TLS trusting it; mutual TLS with a certificate chain and its key too. */
    static ChannelCredentials credentials(Path trustedCaPem, Path certChainPem, Path privateKeyPem) {
        if (trustedCaPem == null) {
            return InsecureChannelCredentials.create();
        }
        try {
            TlsChannelCredentials.Builder tls =
                    TlsChannelCredentials.newBuilder().trustManager(trustedCaPem.toFile());
            if (certChainPem != null) {
                tls.keyManager(certChainPem.toFile(), privateKeyPem.toFile());
            }
            return tls.build();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read TLS material: " + e.getMessage(), e);
        }
    }
}
