package io.volrep.benchmarks;

import io.grpc.BindableService;
import io.grpc.CallOptions;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.volrep.proto.replication.EnableVolumeReplicationRequest;
import io.volrep.proto.replication.ReplicationSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/** Where the benchmarks' servers listen, and how raw channels dial them. */
final class Transports {
    /** How many distinct volumes the benchmarks cycle through (a power of two). */
    static final int VOLUMES = 1024;

    static final String[] VOLUME_IDS = new String[VOLUMES];
    /** The per-attempt deadline every client side sets on every call: {@code ReplicationClient}'s default. */
    static final long DEADLINE_MINUTES = 3;

    static {
        for (int i = 0; i < VOLUMES; i++) {
            VOLUME_IDS[i] = "vol-" + i;
        }
    }

    private Transports() {}

    /** The volumes a benchmark calls, {@code vol-0} to {@code vol-1023} and round again: one per call. */
    static final class VolumeCycle {
        private int next;

        String next() {
            return VOLUME_IDS[next++ & (VOLUMES - 1)];
        }
    }

    /** A fresh address for {@code transport} ("inprocess" or "unix"): {@code inprocess:NAME} or {@code unix:///path}. */
    static String address(String transport) {
        String unique = UUID.randomUUID().toString().substring(0, 8);
        switch (transport) {
            case "inprocess" -> {
                return "inprocess:bench-" + unique;
            }
            case "unix" -> {
                try {
                    Path dir = Files.createTempDirectory("volrep-bench");
                    dir.toFile().deleteOnExit();
                    return "unix://" + dir.resolve("s-" + unique + ".sock");
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            default -> throw new IllegalArgumentException("unknown transport " + transport);
        }
    }

    /**
     * The raw baseline's channel to {@code address}, as a careful hand-written client builds it: once, with a
     * direct executor, because its callbacks (count down a latch, record a time) never block, so handing them to
     * a thread pool would only add a thread hop per call. (The blocking stub ignores the channel's executor: it
     * runs callbacks on the calling thread.) Without gRPC's retry layer, as {@code ReplicationClient}'s channel
     * (whose own loop is its only retry layer): like for like, and the faster raw use (diagnostic
     * {@code grpc-retry-layer-unix}).
     */
    static ManagedChannel rawChannel(String address) {
        return rawChannel(address, null);
    }

    /**
     * A raw channel whose callbacks gRPC hands to {@code executor} (null: runs them on the transport thread), as
     * {@code ReplicationClient}'s channel does with its executor unless told {@code directExecutor()}.
     */
    static ManagedChannel rawChannel(String address, Executor executor) {
        return rawChannel(address, executor, false);
    }

    /** As {@link #rawChannel(String, Executor)}; {@code grpcRetry} keeps gRPC's retry layer, on by default. */
    static ManagedChannel rawChannel(String address, Executor executor, boolean grpcRetry) {
        ManagedChannelBuilder<?> builder = address.startsWith("inprocess:")
                ? InProcessChannelBuilder.forName(address.substring("inprocess:".length()))
                : Grpc.newChannelBuilder(address, InsecureChannelCredentials.create())
                        .overrideAuthority("localhost");
        if (!grpcRetry) {
            builder.disableRetry();
        }
        return (executor == null ? builder.directExecutor() : builder.executor(executor)).build();
    }

    /**
     * The raw baseline server on {@code address}, with the same netty set-up as {@code ReplicationServer} and a
     * direct executor: its in-memory service never blocks, so a careful hand-written server runs it on the
     * transport thread rather than hopping to a pool.
     */
    static RawServer startRaw(String address, BindableService service) {
        return startRaw(address, service, true);
    }

    /**
     * The raw server, on a direct executor or (for {@code direct} false) on gRPC's default executor, the one
     * {@code ReplicationServer} uses unless told {@code directExecutor()}: what a raw server pays for the
     * hand-over a blocking handler needs.
     */
    static RawServer startRaw(String address, BindableService service, boolean direct) {
        try {
            if (address.startsWith("inprocess:")) {
                InProcessServerBuilder builder =
                        InProcessServerBuilder.forName(address.substring("inprocess:".length()));
                if (direct) {
                    builder.directExecutor();
                }
                return new RawServer(builder.addService(service).build().start(), List.of());
            }
            String path = address.substring("unix://".length());
            EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
            EventLoopGroup workers = new MultiThreadIoEventLoopGroup(
                    Math.max(2, Runtime.getRuntime().availableProcessors()), EpollIoHandler.newFactory());
            NettyServerBuilder builder = NettyServerBuilder.forAddress(new DomainSocketAddress(path))
                    .channelType(EpollServerDomainSocketChannel.class)
                    .bossEventLoopGroup(boss)
                    .workerEventLoopGroup(workers)
                    .withChildOption(ChannelOption.SO_KEEPALIVE, null);
            if (direct) {
                builder.directExecutor();
            }
            return new RawServer(builder.addService(service).build().start(), List.of(boss, workers));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The request both sides send: enable volume {@code id}, with a replication source and nothing else. */
    static EnableVolumeReplicationRequest enableRequest(String id) {
        return EnableVolumeReplicationRequest.newBuilder()
                .setReplicationSource(ReplicationSource.newBuilder()
                        .setVolume(ReplicationSource.VolumeSource.newBuilder().setVolumeId(id)))
                .build();
    }

    /**
     * The call options of one raw call, the cheapest correct way to set its deadline: no stub object per call
     * (the generated stub's {@code withDeadlineAfter} allocates a new stub as well as these options); the
     * options themselves must be new per call, because a deadline is relative to the call's start.
     */
    static CallOptions deadlineFromNow() {
        return CallOptions.DEFAULT.withDeadlineAfter(DEADLINE_MINUTES, TimeUnit.MINUTES);
    }

    static void shutdown(ManagedChannel channel) throws InterruptedException {
        channel.shutdownNow();
        channel.awaitTermination(5, TimeUnit.SECONDS);
    }

    /**
     * The baseline side of a pair: a raw server with the in-memory behaviour ({@link InMemoryController}) at a fresh
     * address of the transport, and a raw channel to it ({@link #start}'s {@code direct}: the handler runs on the
     * transport thread, never blocking, else on gRPC's default executor).
     */
    record RawSide(String address, RawServer server, ManagedChannel channel) implements AutoCloseable {
        static RawSide start(String transport, boolean direct) {
            String address = Transports.address(transport);
            RawServer server = startRaw(address, new InMemoryController(), direct);
            return new RawSide(address, server, rawChannel(address));
        }

        @Override
        public void close() throws InterruptedException {
            shutdown(channel);
            server.close();
        }
    }

    record RawServer(Server server, List<EventLoopGroup> eventLoops) implements AutoCloseable {
        @Override
        public void close() throws InterruptedException {
            server.shutdownNow();
            server.awaitTermination(5, TimeUnit.SECONDS);
            for (EventLoopGroup group : eventLoops) {
                group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
            }
        }
    }
}
