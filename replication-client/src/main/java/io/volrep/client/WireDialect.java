package io.volrep.client;

import com.google.protobuf.Message;
import io.grpc.MethodDescriptor;
import io.volrep.api.ProtocolViolationException;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.Secrets;
import io.volrep.api.SpecDialect;
import io.volrep.api.wire.WireMapping;
import java.util.Map;

/**
 * How one revision of the replication spec puts typed requests on the wire and reads its responses, always
 * through that revision's generated messages (never hand-encoded bytes). Chosen once when the client is
 * built; the call pipeline above it is the same for every revision.
 */
abstract class WireDialect {
    private final SpecDialect dialect;

    private WireDialect(SpecDialect dialect) {
        this.dialect = dialect;
    }

    /** The codec of {@code dialect}; {@code alsoSendDeprecatedVolumeId} matters only for {@link SpecDialect#CURRENT}. */
    static WireDialect of(SpecDialect dialect, boolean alsoSendDeprecatedVolumeId) {
        return switch (dialect) {
            case CURRENT -> new Current(alsoSendDeprecatedVolumeId);
            case V0_1_3 -> new V013();
            case V0_1_0 -> new V010();
        };
    }

    SpecDialect dialect() {
        return dialect;
    }

    /** @throws UnsupportedByDialectException when this revision has no way to say what {@code spec} asks */
    void requireExpressible(RequestSpec spec) {
        if (!dialect.supports(spec.rpc())) {
            throw new UnsupportedByDialectException("the RPC does not exist", spec.rpc(), dialect);
        }
        if (!dialect.supports(spec.source().kind())) {
            throw new UnsupportedByDialectException("a " + spec.source().kind().wireName() + " source", spec.rpc(),
                    dialect);
        }
    }

    abstract MethodDescriptor<Message, Message> method(Rpc rpc);

    abstract Message request(RequestSpec spec, Secrets secrets);

    abstract boolean resyncReady(Message response);

    abstract ReplicationInfo info(Message response, int attempts);

    @SuppressWarnings("unchecked")
    static MethodDescriptor<Message, Message> cast(MethodDescriptor<?, ?> m) {
        return (MethodDescriptor<Message, Message>) m;
    }

    static String replicationId(RequestSpec spec) {
        return spec.replicationId() == null ? "" : spec.replicationId();
    }

    static IllegalArgumentException notReplication(Rpc rpc) {
        return new IllegalArgumentException(rpc + " is not a replication call");
    }

    /** Seed 001. {@code volume_id} (deprecated field 1) is also set for volume sources when asked to. */
    private static final class Current extends WireDialect {
        private final boolean alsoSendDeprecatedVolumeId;

        Current(boolean alsoSendDeprecatedVolumeId) {
            super(SpecDialect.CURRENT);
            this.alsoSendDeprecatedVolumeId = alsoSendDeprecatedVolumeId;
        }

        @Override
        MethodDescriptor<Message, Message> method(Rpc rpc) {
            return cast(switch (rpc) {
                case ENABLE_VOLUME_REPLICATION -> io.volrep.proto.replication.ControllerGrpc.getEnableVolumeReplicationMethod();
                case DISABLE_VOLUME_REPLICATION -> io.volrep.proto.replication.ControllerGrpc.getDisableVolumeReplicationMethod();
                case PROMOTE_VOLUME -> io.volrep.proto.replication.ControllerGrpc.getPromoteVolumeMethod();
                case DEMOTE_VOLUME -> io.volrep.proto.replication.ControllerGrpc.getDemoteVolumeMethod();
                case RESYNC_VOLUME -> io.volrep.proto.replication.ControllerGrpc.getResyncVolumeMethod();
                case GET_VOLUME_REPLICATION_INFO -> io.volrep.proto.replication.ControllerGrpc.getGetVolumeReplicationInfoMethod();
                case NODE_HEALER -> throw notReplication(rpc);
            });
        }

        @Override
        Message request(RequestSpec spec, Secrets secrets) {
            var source = WireMapping.toProto(spec.source());
            // Field 1 only for volumes: the deprecated volume_id never named a group or a snapshot.
            String volumeId = alsoSendDeprecatedVolumeId && spec.source().kind() == ReplicationSource.Kind.VOLUME
                    ? spec.source().id() : "";
            String rid = replicationId(spec);
            Map<String, String> parameters = spec.parameters();
            Map<String, String> s = secrets.asMap();
            return switch (spec.rpc()) {
                case ENABLE_VOLUME_REPLICATION -> io.volrep.proto.replication.EnableVolumeReplicationRequest.newBuilder()
                        .setVolumeId(volumeId).setReplicationSource(source).putAllParameters(parameters)
                        .putAllSecrets(s).setReplicationId(rid).build();
                case DISABLE_VOLUME_REPLICATION -> io.volrep.proto.replication.DisableVolumeReplicationRequest.newBuilder()
                        .setVolumeId(volumeId).setReplicationSource(source).putAllParameters(parameters)
                        .putAllSecrets(s).setReplicationId(rid).build();
                case PROMOTE_VOLUME -> io.volrep.proto.replication.PromoteVolumeRequest.newBuilder()
                        .setVolumeId(volumeId).setReplicationSource(source).setForce(spec.force())
                        .putAllParameters(parameters).putAllSecrets(s).setReplicationId(rid).build();
                case DEMOTE_VOLUME -> io.volrep.proto.replication.DemoteVolumeRequest.newBuilder()
                        .setVolumeId(volumeId).setReplicationSource(source).setForce(spec.force())
                        .putAllParameters(parameters).putAllSecrets(s).setReplicationId(rid).build();
                case RESYNC_VOLUME -> io.volrep.proto.replication.ResyncVolumeRequest.newBuilder()
                        .setVolumeId(volumeId).setReplicationSource(source).setForce(spec.force())
                        .putAllParameters(parameters).putAllSecrets(s).setReplicationId(rid).build();
                case GET_VOLUME_REPLICATION_INFO -> io.volrep.proto.replication.GetVolumeReplicationInfoRequest.newBuilder()
                        .setVolumeId(volumeId).setReplicationSource(source).putAllSecrets(s).setReplicationId(rid)
                        .build();
                case NODE_HEALER -> throw notReplication(spec.rpc());
            };
        }

        @Override
        boolean resyncReady(Message response) {
            return ((io.volrep.proto.replication.ResyncVolumeResponse) response).getReady();
        }

        @Override
        ReplicationInfo info(Message response, int attempts) {
            return WireMapping.fromProto((io.volrep.proto.replication.GetVolumeReplicationInfoResponse) response,
                    attempts);
        }
    }

    /**
     * Seed 003: {@code volume_id} REQUIRED in every request, and {@code ReplicationSource} numbered
     * {@code volumegroup = 1, volume = 2}. For a group source, {@code volume_id} carries the group id: the field is
     * REQUIRED and must identify what the request is about, and {@code replication_source.volumegroup} tells the
     * plugin that the id names a group.
     */
    private static final class V013 extends WireDialect {
        V013() {
            super(SpecDialect.V0_1_3);
        }

        @Override
        MethodDescriptor<Message, Message> method(Rpc rpc) {
            return cast(switch (rpc) {
                case ENABLE_VOLUME_REPLICATION -> io.volrep.proto.replication.v0_1_3.ControllerGrpc.getEnableVolumeReplicationMethod();
                case DISABLE_VOLUME_REPLICATION -> io.volrep.proto.replication.v0_1_3.ControllerGrpc.getDisableVolumeReplicationMethod();
                case PROMOTE_VOLUME -> io.volrep.proto.replication.v0_1_3.ControllerGrpc.getPromoteVolumeMethod();
                case DEMOTE_VOLUME -> io.volrep.proto.replication.v0_1_3.ControllerGrpc.getDemoteVolumeMethod();
                case RESYNC_VOLUME -> io.volrep.proto.replication.v0_1_3.ControllerGrpc.getResyncVolumeMethod();
                case GET_VOLUME_REPLICATION_INFO -> io.volrep.proto.replication.v0_1_3.ControllerGrpc.getGetVolumeReplicationInfoMethod();
                case NODE_HEALER -> throw notReplication(rpc);
            });
        }

        static io.volrep.proto.replication.v0_1_3.ReplicationSource source(ReplicationSource source) {
            var b = io.volrep.proto.replication.v0_1_3.ReplicationSource.newBuilder();
            switch (source.kind()) {
                case VOLUME -> b.getVolumeBuilder().setVolumeId(source.id());
                case VOLUME_GROUP -> b.getVolumegroupBuilder().setVolumeGroupId(source.id());
                case VOLUME_SNAPSHOT -> throw new IllegalStateException("v0.1.3 has no snapshot sources");
            }
            return b.build();
        }

        @Override
        Message request(RequestSpec spec, Secrets secrets) {
            var source = source(spec.source());
            String volumeId = spec.source().id();
            String rid = replicationId(spec);
            Map<String, String> parameters = spec.parameters();
            Map<String, String> s = secrets.asMap();
            return switch (spec.rpc()) {
                case ENABLE_VOLUME_REPLICATION -> io.volrep.proto.replication.v0_1_3.EnableVolumeReplicationRequest.newBuilder()
                        .setVolumeId(volumeId).setReplicationSource(source).putAllParameters(parameters)
                        .putAllSecrets(s).setReplicationId(rid).build();
                case DISABLE_VOLUME_REPLICATION -> io.volrep.proto.replication.v0_1_3.DisableVolumeReplicationRequest.newBuilder()
                        .setVolumeId(volumeId).setReplicationSource(source).putAllParameters(parameters)
                        .putAllSecrets(s).setReplicationId(rid).build();
                case PROMOTE_VOLUME -> io.volrep.proto.replication.v0_1_3.PromoteVolumeRequest.newBuilder()
                        .setVolumeId(volumeId).setReplicationSource(source).setForce(spec.force())
                        .putAllParameters(parameters).putAllSecrets(s).setReplicationId(rid).build();
                case DEMOTE_VOLUME -> io.volrep.proto.replication.v0_1_3.DemoteVolumeRequest.newBuilder()
                        .setVolumeId(volumeId).setReplicationSource(source).setForce(spec.force())
                        .putAllParameters(parameters).putAllSecrets(s).setReplicationId(rid).build();
                case RESYNC_VOLUME -> io.volrep.proto.replication.v0_1_3.ResyncVolumeRequest.newBuilder()
                        .setVolumeId(volumeId).setReplicationSource(source).setForce(spec.force())
                        .putAllParameters(parameters).putAllSecrets(s).setReplicationId(rid).build();
                case GET_VOLUME_REPLICATION_INFO -> io.volrep.proto.replication.v0_1_3.GetVolumeReplicationInfoRequest.newBuilder()
                        .setVolumeId(volumeId).setReplicationSource(source).putAllSecrets(s).setReplicationId(rid)
                        .build();
                case NODE_HEALER -> throw notReplication(spec.rpc());
            };
        }

        @Override
        boolean resyncReady(Message response) {
            return ((io.volrep.proto.replication.v0_1_3.ResyncVolumeResponse) response).getReady();
        }

        /** v0.1.3 reports only {@code last_sync_time}; duration and bytes read as "not reported". */
        @Override
        ReplicationInfo info(Message response, int attempts) {
            var r = (io.volrep.proto.replication.v0_1_3.GetVolumeReplicationInfoResponse) response;
            if (!r.hasLastSyncTime()) {
                throw new ProtocolViolationException("last_sync_time is REQUIRED but the plugin did not set it",
                        Rpc.GET_VOLUME_REPLICATION_INFO, attempts);
            }
            return ReplicationInfo.of(WireMapping.instant(r.getLastSyncTime(), "last_sync_time",
                    Rpc.GET_VOLUME_REPLICATION_INFO, attempts));
        }
    }

    /** Seed 000: five RPCs, {@code volume_id} only (no source, no {@code replication_id}). */
    private static final class V010 extends WireDialect {
        V010() {
            super(SpecDialect.V0_1_0);
        }

        @Override
        void requireExpressible(RequestSpec spec) {
            super.requireExpressible(spec);
            if (spec.replicationId() != null && !spec.replicationId().isEmpty()) {
                throw new UnsupportedByDialectException("replication_id", spec.rpc(), SpecDialect.V0_1_0);
            }
        }

        @Override
        MethodDescriptor<Message, Message> method(Rpc rpc) {
            return cast(switch (rpc) {
                case ENABLE_VOLUME_REPLICATION -> io.volrep.proto.replication.v0_1_0.ControllerGrpc.getEnableVolumeReplicationMethod();
                case DISABLE_VOLUME_REPLICATION -> io.volrep.proto.replication.v0_1_0.ControllerGrpc.getDisableVolumeReplicationMethod();
                case PROMOTE_VOLUME -> io.volrep.proto.replication.v0_1_0.ControllerGrpc.getPromoteVolumeMethod();
                case DEMOTE_VOLUME -> io.volrep.proto.replication.v0_1_0.ControllerGrpc.getDemoteVolumeMethod();
                case RESYNC_VOLUME -> io.volrep.proto.replication.v0_1_0.ControllerGrpc.getResyncVolumeMethod();
                case GET_VOLUME_REPLICATION_INFO, NODE_HEALER -> throw new IllegalArgumentException(
                        rpc + " does not exist in v0.1.0");
            });
        }

        @Override
        Message request(RequestSpec spec, Secrets secrets) {
            String volumeId = spec.source().id();
            Map<String, String> parameters = spec.parameters();
            Map<String, String> s = secrets.asMap();
            return switch (spec.rpc()) {
                case ENABLE_VOLUME_REPLICATION -> io.volrep.proto.replication.v0_1_0.EnableVolumeReplicationRequest.newBuilder()
                        .setVolumeId(volumeId).putAllParameters(parameters).putAllSecrets(s).build();
                case DISABLE_VOLUME_REPLICATION -> io.volrep.proto.replication.v0_1_0.DisableVolumeReplicationRequest.newBuilder()
                        .setVolumeId(volumeId).putAllParameters(parameters).putAllSecrets(s).build();
                case PROMOTE_VOLUME -> io.volrep.proto.replication.v0_1_0.PromoteVolumeRequest.newBuilder()
                        .setVolumeId(volumeId).setForce(spec.force()).putAllParameters(parameters).putAllSecrets(s)
                        .build();
                case DEMOTE_VOLUME -> io.volrep.proto.replication.v0_1_0.DemoteVolumeRequest.newBuilder()
                        .setVolumeId(volumeId).setForce(spec.force()).putAllParameters(parameters).putAllSecrets(s)
                        .build();
                case RESYNC_VOLUME -> io.volrep.proto.replication.v0_1_0.ResyncVolumeRequest.newBuilder()
                        .setVolumeId(volumeId).setForce(spec.force()).putAllParameters(parameters).putAllSecrets(s)
                        .build();
                case GET_VOLUME_REPLICATION_INFO, NODE_HEALER -> throw new IllegalArgumentException(
                        spec.rpc() + " does not exist in v0.1.0");
            };
        }

        @Override
        boolean resyncReady(Message response) {
            return ((io.volrep.proto.replication.v0_1_0.ResyncVolumeResponse) response).getReady();
        }

        @Override
        ReplicationInfo info(Message response, int attempts) {
            throw new IllegalStateException("v0.1.0 has no GetVolumeReplicationInfo");
        }
    }
}
