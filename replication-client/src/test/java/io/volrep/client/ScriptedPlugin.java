package io.volrep.client;

import com.google.protobuf.Message;
import com.google.protobuf.Timestamp;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.volrep.api.Rpc;
import io.volrep.proto.replication.ControllerGrpc;
import io.volrep.proto.replication.DemoteVolumeRequest;
import io.volrep.proto.replication.DemoteVolumeResponse;
import io.volrep.proto.replication.DisableVolumeReplicationRequest;
import io.volrep.proto.replication.DisableVolumeReplicationResponse;
import io.volrep.proto.replication.EnableVolumeReplicationRequest;
import io.volrep.proto.replication.EnableVolumeReplicationResponse;
import io.volrep.proto.replication.GetVolumeReplicationInfoRequest;
import io.volrep.proto.replication.GetVolumeReplicationInfoResponse;
import io.volrep.proto.replication.PromoteVolumeRequest;
import io.volrep.proto.replication.PromoteVolumeResponse;
import io.volrep.proto.replication.ReplicationSource;
import io.volrep.proto.replication.ResyncVolumeRequest;
import io.volrep.proto.replication.ResyncVolumeResponse;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A plugin that can break the protocol, for the client tests the public {@code FakePlugin} cannot serve: written on
 * the generated stub (not on volrep's SPI runtime, which refuses to send such answers), it answers any message
 * (out-of-range timestamps, missing fields), hangs until cancelled, sends any pushback text, and records each
 * request's secrets, replication id and per-source concurrency. Everything spec-correct belongs on
 * {@code FakePlugin} (see {@code RetryBehaviourTest}). Real gRPC, in-process.
 */
final class ScriptedPlugin implements AutoCloseable {

    /** What one call gets. */
    record Outcome(Status status, String pushback, long delayMillis, boolean hang, Message response) {
        static Outcome ok() {
            return new Outcome(Status.OK, null, 0, false, null);
        }

        static Outcome fail(Status.Code code) {
            return new Outcome(code.toStatus().withDescription("scripted " + code), null, 0, false, null);
        }

        static Outcome fail(Status.Code code, String description) {
            return new Outcome(code.toStatus().withDescription(description), null, 0, false, null);
        }

        static Outcome hangUntilCancelled() {
            return new Outcome(Status.OK, null, 0, true, null);
        }

        static Outcome respond(Message response) {
            return new Outcome(Status.OK, null, 0, false, response);
        }

        Outcome withPushback(String millis) {
            return new Outcome(status, millis, delayMillis, hang, response);
        }

        Outcome delayed(long millis) {
            return new Outcome(status, pushback, millis, hang, response);
        }
    }

    /** One call the plugin received. */
    record Call(Rpc rpc, String sourceId, String replicationId, Map<String, String> secrets, long nanoTime) {}

    private final Map<Rpc, Deque<Outcome>> scripts = new EnumMap<>(Rpc.class);
    private final Map<Rpc, Function<Message, Outcome>> defaults = new ConcurrentHashMap<>();
    final List<Call> calls = Collections.synchronizedList(new ArrayList<>());
    final AtomicInteger maxInFlightSameSource = new AtomicInteger();
    private final Map<String, AtomicInteger> perSource = new ConcurrentHashMap<>();
    final CountDownLatch cancelled = new CountDownLatch(1);

    private final ExecutorService serverExecutor = Executors.newFixedThreadPool(2);
    private final ScheduledExecutorService delays = Executors.newSingleThreadScheduledExecutor();
    private Server server;
    private String target;

    /** Starts in-process. */
    static ScriptedPlugin inProcess() throws Exception {
        ScriptedPlugin p = new ScriptedPlugin();
        String name = InProcessServerBuilder.generateName();
        p.server = InProcessServerBuilder.forName(name)
                .executor(p.serverExecutor)
                .addService(p.service())
                .build()
                .start();
        p.target = "inprocess:" + name;
        return p;
    }

    String target() {
        return target;
    }

    /** The next calls of {@code rpc} get these outcomes, in order; then the default. */
    synchronized ScriptedPlugin script(Rpc rpc, Outcome... outcomes) {
        Deque<Outcome> q = scripts.computeIfAbsent(rpc, r -> new ArrayDeque<>());
        Collections.addAll(q, outcomes);
        return this;
    }

    /** What calls of {@code rpc} get once the script is used up. */
    ScriptedPlugin byDefault(Rpc rpc, Function<Message, Outcome> outcome) {
        defaults.put(rpc, outcome);
        return this;
    }

    List<Call> calls(Rpc rpc) {
        synchronized (calls) {
            return calls.stream().filter(c -> c.rpc() == rpc).toList();
        }
    }

    private synchronized Outcome next(Rpc rpc, Message request) {
        Deque<Outcome> q = scripts.get(rpc);
        if (q != null && !q.isEmpty()) {
            return q.poll();
        }
        Function<Message, Outcome> d = defaults.get(rpc);
        return d == null ? Outcome.ok() : d.apply(request);
    }

    @SuppressWarnings("unchecked")
    private <T extends Message> void handle(
            Rpc rpc,
            Message request,
            String sourceId,
            String replicationId,
            Map<String, String> secrets,
            T okResponse,
            StreamObserver<T> observer) {
        calls.add(new Call(rpc, sourceId, replicationId, Map.copyOf(secrets), System.nanoTime()));
        AtomicInteger same = perSource.computeIfAbsent(sourceId, k -> new AtomicInteger());
        int concurrent = same.incrementAndGet();
        maxInFlightSameSource.accumulateAndGet(concurrent, Math::max);
        ServerCallStreamObserver<T> server = (ServerCallStreamObserver<T>) observer;
        AtomicInteger done = new AtomicInteger();
        Runnable finish = () -> {
            if (done.getAndIncrement() == 0) {
                same.decrementAndGet();
            }
        };
        server.setOnCancelHandler(() -> {
            cancelled.countDown();
            finish.run();
        });
        Outcome outcome = next(rpc, request);
        if (outcome.hang()) {
            return;
        }
        Runnable answer = () -> {
            if (server.isCancelled()) {
                return;
            }
            finish.run();
            if (outcome.status().isOk()) {
                observer.onNext(outcome.response() != null ? (T) outcome.response() : okResponse);
                observer.onCompleted();
            } else {
                Metadata trailers = new Metadata();
                if (outcome.pushback() != null) {
                    trailers.put(AttemptRunner.PUSHBACK_KEY, outcome.pushback());
                }
                observer.onError(outcome.status().asRuntimeException(trailers));
            }
        };
        if (outcome.delayMillis() > 0) {
            delays.schedule(answer, outcome.delayMillis(), TimeUnit.MILLISECONDS);
        } else {
            answer.run();
        }
    }

    private static String id(ReplicationSource s) {
        return switch (s.getTypeCase()) {
            case VOLUME -> s.getVolume().getVolumeId();
            case VOLUMEGROUP -> s.getVolumegroup().getVolumeGroupId();
            case VOLUMESNAPSHOT -> s.getVolumesnapshot().getVolumeSnapshotId();
            case TYPE_NOT_SET -> "";
        };
    }

    private ControllerGrpc.ControllerImplBase service() {
        return new ControllerGrpc.ControllerImplBase() {
            @Override
            public void enableVolumeReplication(
                    EnableVolumeReplicationRequest r, StreamObserver<EnableVolumeReplicationResponse> o) {
                handle(
                        Rpc.ENABLE_VOLUME_REPLICATION,
                        r,
                        id(r.getReplicationSource()),
                        r.getReplicationId(),
                        r.getSecretsMap(),
                        EnableVolumeReplicationResponse.getDefaultInstance(),
                        o);
            }

            @Override
            public void disableVolumeReplication(
                    DisableVolumeReplicationRequest r, StreamObserver<DisableVolumeReplicationResponse> o) {
                handle(
                        Rpc.DISABLE_VOLUME_REPLICATION,
                        r,
                        id(r.getReplicationSource()),
                        r.getReplicationId(),
                        r.getSecretsMap(),
                        DisableVolumeReplicationResponse.getDefaultInstance(),
                        o);
            }

            @Override
            public void promoteVolume(PromoteVolumeRequest r, StreamObserver<PromoteVolumeResponse> o) {
                handle(
                        Rpc.PROMOTE_VOLUME,
                        r,
                        id(r.getReplicationSource()),
                        r.getReplicationId(),
                        r.getSecretsMap(),
                        PromoteVolumeResponse.getDefaultInstance(),
                        o);
            }

            @Override
            public void demoteVolume(DemoteVolumeRequest r, StreamObserver<DemoteVolumeResponse> o) {
                handle(
                        Rpc.DEMOTE_VOLUME,
                        r,
                        id(r.getReplicationSource()),
                        r.getReplicationId(),
                        r.getSecretsMap(),
                        DemoteVolumeResponse.getDefaultInstance(),
                        o);
            }

            @Override
            public void resyncVolume(ResyncVolumeRequest r, StreamObserver<ResyncVolumeResponse> o) {
                handle(
                        Rpc.RESYNC_VOLUME,
                        r,
                        id(r.getReplicationSource()),
                        r.getReplicationId(),
                        r.getSecretsMap(),
                        ResyncVolumeResponse.newBuilder().setReady(true).build(),
                        o);
            }

            @Override
            public void getVolumeReplicationInfo(
                    GetVolumeReplicationInfoRequest r, StreamObserver<GetVolumeReplicationInfoResponse> o) {
                handle(
                        Rpc.GET_VOLUME_REPLICATION_INFO,
                        r,
                        id(r.getReplicationSource()),
                        r.getReplicationId(),
                        r.getSecretsMap(),
                        GetVolumeReplicationInfoResponse.newBuilder()
                                .setLastSyncTime(Timestamp.newBuilder().setSeconds(1_700_000_000))
                                .setLastSyncBytes(4096)
                                .build(),
                        o);
            }
        };
    }

    @Override
    public void close() throws Exception {
        server.shutdownNow();
        server.awaitTermination(5, TimeUnit.MINUTES);
        delays.shutdownNow();
        serverExecutor.shutdownNow();
    }
}
