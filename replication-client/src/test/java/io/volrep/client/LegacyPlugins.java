package io.volrep.client;

import com.google.protobuf.Message;
import com.google.protobuf.Timestamp;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.volrep.proto.replication.v0_1_3.GetVolumeReplicationInfoRequest;
import io.volrep.proto.replication.v0_1_3.GetVolumeReplicationInfoResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Independent plugins of the legacy spec revisions, written directly on the generated legacy stubs (not on
 * volrep's SPI): a tiny in-memory state machine per volume_id and a record of every request as it was parsed.
 */
final class LegacyPlugins {
    private LegacyPlugins() {}

    /** Per volume_id: disabled -> enabled (primary) -> demoted -> resync (ready on the 3rd poll) -> ... */
    static final class VolumeStates {
        enum State {
            DISABLED,
            PRIMARY,
            SECONDARY
        }

        final Map<String, State> states = new ConcurrentHashMap<>();
        final Map<String, Integer> resyncPolls = new ConcurrentHashMap<>();
        final List<Message> requests = new CopyOnWriteArrayList<>();

        VolumeStates(String... volumes) {
            for (String v : volumes) {
                states.put(v, State.DISABLED);
            }
        }

        Status enable(String id) {
            return transition(id, null, State.PRIMARY);
        }

        Status disable(String id) {
            return transition(id, null, State.DISABLED);
        }

        Status promote(String id) {
            return transition(id, "replication is not enabled", State.PRIMARY);
        }

        Status demote(String id) {
            return transition(id, "replication is not enabled", State.SECONDARY);
        }

        /** ready after three polls of a demoted volume. */
        Status resync(String id, boolean[] ready) {
            State s = states.get(id);
            if (s == null) {
                return Status.NOT_FOUND.withDescription("no volume " + id);
            }
            if (s != State.SECONDARY) {
                return Status.FAILED_PRECONDITION.withDescription("volume " + id + " is not demoted");
            }
            ready[0] = resyncPolls.merge(id, 1, Integer::sum) >= 3;
            return Status.OK;
        }

        private Status transition(String id, String needsEnabled, State to) {
            State s = states.get(id);
            if (id.isEmpty()) {
                return Status.INVALID_ARGUMENT.withDescription("volume_id is REQUIRED");
            }
            if (s == null) {
                return Status.NOT_FOUND.withDescription("no volume " + id);
            }
            if (needsEnabled != null && s == State.DISABLED) {
                return Status.FAILED_PRECONDITION.withDescription(needsEnabled);
            }
            states.put(id, to);
            if (to != State.SECONDARY) {
                resyncPolls.remove(id);
            }
            return Status.OK;
        }

        static <T> void answer(StreamObserver<T> observer, Status status, T response) {
            if (status.isOk()) {
                observer.onNext(response);
                observer.onCompleted();
            } else {
                observer.onError(status.asRuntimeException());
            }
        }
    }

    /** A v0.1.3 plugin (seed 003): keys on volume_id, records the ReplicationSource as v0.1.3 numbers it. */
    static final class V013 extends io.volrep.proto.replication.v0_1_3.ControllerGrpc.ControllerImplBase {
        final VolumeStates volumes;

        V013(String... volumes) {
            this.volumes = new VolumeStates(volumes);
        }

        @Override
        public void enableVolumeReplication(
                io.volrep.proto.replication.v0_1_3.EnableVolumeReplicationRequest r,
                StreamObserver<io.volrep.proto.replication.v0_1_3.EnableVolumeReplicationResponse> o) {
            volumes.requests.add(r);
            VolumeStates.answer(
                    o,
                    volumes.enable(r.getVolumeId()),
                    io.volrep.proto.replication.v0_1_3.EnableVolumeReplicationResponse.getDefaultInstance());
        }

        @Override
        public void disableVolumeReplication(
                io.volrep.proto.replication.v0_1_3.DisableVolumeReplicationRequest r,
                StreamObserver<io.volrep.proto.replication.v0_1_3.DisableVolumeReplicationResponse> o) {
            volumes.requests.add(r);
            VolumeStates.answer(
                    o,
                    volumes.disable(r.getVolumeId()),
                    io.volrep.proto.replication.v0_1_3.DisableVolumeReplicationResponse.getDefaultInstance());
        }

        @Override
        public void promoteVolume(
                io.volrep.proto.replication.v0_1_3.PromoteVolumeRequest r,
                StreamObserver<io.volrep.proto.replication.v0_1_3.PromoteVolumeResponse> o) {
            volumes.requests.add(r);
            VolumeStates.answer(
                    o,
                    volumes.promote(r.getVolumeId()),
                    io.volrep.proto.replication.v0_1_3.PromoteVolumeResponse.getDefaultInstance());
        }

        @Override
        public void demoteVolume(
                io.volrep.proto.replication.v0_1_3.DemoteVolumeRequest r,
                StreamObserver<io.volrep.proto.replication.v0_1_3.DemoteVolumeResponse> o) {
            volumes.requests.add(r);
            VolumeStates.answer(
                    o,
                    volumes.demote(r.getVolumeId()),
                    io.volrep.proto.replication.v0_1_3.DemoteVolumeResponse.getDefaultInstance());
        }

        @Override
        public void resyncVolume(
                io.volrep.proto.replication.v0_1_3.ResyncVolumeRequest r,
                StreamObserver<io.volrep.proto.replication.v0_1_3.ResyncVolumeResponse> o) {
            volumes.requests.add(r);
            boolean[] ready = {false};
            Status s = volumes.resync(r.getVolumeId(), ready);
            VolumeStates.answer(
                    o,
                    s,
                    io.volrep.proto.replication.v0_1_3.ResyncVolumeResponse.newBuilder()
                            .setReady(ready[0])
                            .build());
        }

        @Override
        public void getVolumeReplicationInfo(
                GetVolumeReplicationInfoRequest r, StreamObserver<GetVolumeReplicationInfoResponse> o) {
            volumes.requests.add(r);
            VolumeStates.answer(
                    o,
                    volumes.states.containsKey(r.getVolumeId())
                            ? Status.OK
                            : Status.NOT_FOUND.withDescription("no volume " + r.getVolumeId()),
                    GetVolumeReplicationInfoResponse.newBuilder()
                            .setLastSyncTime(Timestamp.newBuilder().setSeconds(1_700_000_000L))
                            .build());
        }
    }

    /** A v0.1.0 plugin (seed 000): five RPCs, volume_id only. */
    static final class V010 extends io.volrep.proto.replication.v0_1_0.ControllerGrpc.ControllerImplBase {
        final VolumeStates volumes;

        V010(String... volumes) {
            this.volumes = new VolumeStates(volumes);
        }

        @Override
        public void enableVolumeReplication(
                io.volrep.proto.replication.v0_1_0.EnableVolumeReplicationRequest r,
                StreamObserver<io.volrep.proto.replication.v0_1_0.EnableVolumeReplicationResponse> o) {
            volumes.requests.add(r);
            VolumeStates.answer(
                    o,
                    volumes.enable(r.getVolumeId()),
                    io.volrep.proto.replication.v0_1_0.EnableVolumeReplicationResponse.getDefaultInstance());
        }

        @Override
        public void disableVolumeReplication(
                io.volrep.proto.replication.v0_1_0.DisableVolumeReplicationRequest r,
                StreamObserver<io.volrep.proto.replication.v0_1_0.DisableVolumeReplicationResponse> o) {
            volumes.requests.add(r);
            VolumeStates.answer(
                    o,
                    volumes.disable(r.getVolumeId()),
                    io.volrep.proto.replication.v0_1_0.DisableVolumeReplicationResponse.getDefaultInstance());
        }

        @Override
        public void promoteVolume(
                io.volrep.proto.replication.v0_1_0.PromoteVolumeRequest r,
                StreamObserver<io.volrep.proto.replication.v0_1_0.PromoteVolumeResponse> o) {
            volumes.requests.add(r);
            VolumeStates.answer(
                    o,
                    volumes.promote(r.getVolumeId()),
                    io.volrep.proto.replication.v0_1_0.PromoteVolumeResponse.getDefaultInstance());
        }

        @Override
        public void demoteVolume(
                io.volrep.proto.replication.v0_1_0.DemoteVolumeRequest r,
                StreamObserver<io.volrep.proto.replication.v0_1_0.DemoteVolumeResponse> o) {
            volumes.requests.add(r);
            VolumeStates.answer(
                    o,
                    volumes.demote(r.getVolumeId()),
                    io.volrep.proto.replication.v0_1_0.DemoteVolumeResponse.getDefaultInstance());
        }

        @Override
        public void resyncVolume(
                io.volrep.proto.replication.v0_1_0.ResyncVolumeRequest r,
                StreamObserver<io.volrep.proto.replication.v0_1_0.ResyncVolumeResponse> o) {
            volumes.requests.add(r);
            boolean[] ready = {false};
            Status s = volumes.resync(r.getVolumeId(), ready);
            VolumeStates.answer(
                    o,
                    s,
                    io.volrep.proto.replication.v0_1_0.ResyncVolumeResponse.newBuilder()
                            .setReady(ready[0])
                            .build());
        }
    }
}
