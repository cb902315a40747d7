package io.volrep.client;

import com.google.protobuf.Message;
import io.grpc.MethodDescriptor;
import io.volrep.api.ReplicationDestination;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.Secrets;
import io.volrep.api.SpecDialect;
import io.volrep.api.internal.wire.AnswerRules;
import io.volrep.api.internal.wire.NotExpressibleException;
import io.volrep.api.internal.wire.RequestFields;
import io.volrep.api.internal.wire.Transcoder;
import io.volrep.api.internal.wire.WireMapping;
import io.volrep.proto.healer.HealerNodeGrpc;
import io.volrep.proto.identity.IdentityGrpc;
import io.volrep.proto.replication.GetReplicationDestinationInfoResponse;
import io.volrep.proto.replication.GetVolumeReplicationInfoResponse;
import io.volrep.proto.replication.ResyncVolumeResponse;
import io.volrep.proto.volumegroup.ControllerGrpc;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * How the client puts typed requests on the wire of the spec revision it speaks and reads its responses: every
 * request is written once as the current revision's message and the {@link Transcoder} writes it in the plugin's
 * revision (responses the other way round), always through generated messages. Chosen once when the client is
 * built; the call pipeline above it is the same for every revision.
 */
final class WireDialect {
    private static final Map<String, MethodDescriptor<Message, Message>> SINGLE_REVISION_METHODS = Stream.of(
                    IdentityGrpc.getServiceDescriptor(),
                    ControllerGrpc.getServiceDescriptor(),
                    HealerNodeGrpc.getServiceDescriptor())
            .flatMap(service -> service.getMethods().stream())
            .collect(Collectors.toUnmodifiableMap(MethodDescriptor::getFullMethodName, WireDialect::cast));

    private final Transcoder transcoder;
    private final boolean alsoSendDeprecatedVolumeId;

    private WireDialect(Transcoder transcoder, boolean alsoSendDeprecatedVolumeId) {
        this.transcoder = transcoder;
        this.alsoSendDeprecatedVolumeId = alsoSendDeprecatedVolumeId;
    }

    /** The codec of {@code dialect}; {@code alsoSendDeprecatedVolumeId} matters only for {@link SpecDialect#CURRENT}. */
    static WireDialect of(SpecDialect dialect, boolean alsoSendDeprecatedVolumeId) {
        return new WireDialect(Transcoder.of(dialect), alsoSendDeprecatedVolumeId);
    }

    SpecDialect dialect() {
        return transcoder.dialect();
    }

    /** @throws UnsupportedByDialectException when this revision has no way to say what {@code spec} asks */
    void requireExpressible(RequestSpec spec) {
        if (dialect() != SpecDialect.CURRENT || !transcoder.defines(spec.rpc())) {
            request(spec, Secrets.empty());
        }
    }

    /**
     * The gRPC method of {@code rpc} in this revision. Only the replication service has revisions; the others
     * (Identity, volume groups, NodeHealer) have one, found by its full name in the generated descriptors.
     */
    MethodDescriptor<Message, Message> method(Rpc rpc) {
        if (!rpc.isReplication()) {
            return Optional.ofNullable(SINGLE_REVISION_METHODS.get(rpc.fullMethodName()))
                    .orElseThrow(() -> new IllegalStateException(rpc + " has no gRPC method"));
        }
        try {
            return transcoder.method(rpc);
        } catch (NotExpressibleException e) {
            throw new UnsupportedByDialectException(e);
        }
    }

    Message request(RequestSpec spec, Secrets secrets) {
        // Field 1 only for volumes: the deprecated volume_id never named a group or a snapshot.
        String volumeId = alsoSendDeprecatedVolumeId && spec.source().kind() == ReplicationSource.Kind.VOLUME
                ? spec.source().id()
                : "";
        try {
            return transcoder.requestToWire(
                    spec.rpc(),
                    new RequestFields(
                                    WireMapping.toProto(spec.source()),
                                    volumeId,
                                    spec.parameters(),
                                    secrets.asMap(),
                                    spec.replicationId(),
                                    spec.force())
                            .toRequest(spec.rpc()));
        } catch (NotExpressibleException e) {
            throw new UnsupportedByDialectException(e);
        }
    }

    boolean resyncReady(Message response, int attempts) {
        ResyncVolumeResponse resync = (ResyncVolumeResponse) transcoder.responseFromWire(Rpc.RESYNC_VOLUME, response);
        WireMapping.requireNoProblems(AnswerRules.resync(resync), Rpc.RESYNC_VOLUME, attempts);
        return resync.getReady();
    }

    /**
     * Revisions before the current one report less (v0.1.3: {@code last_sync_time} only): the rest reads as not
     * reported. Where the revision has {@code last_sync_bytes}, its 0 is a value ("0 B").
     */
    ReplicationInfo info(Message response, int attempts) {
        return WireMapping.fromProto(
                (GetVolumeReplicationInfoResponse)
                        transcoder.responseFromWire(Rpc.GET_VOLUME_REPLICATION_INFO, response),
                attempts,
                dialect());
    }

    /** The destination answered for a source of {@code sourceKind}, checked ({@link AnswerRules#destination}). */
    ReplicationDestination destination(Message response, ReplicationSource.Kind sourceKind, int attempts) {
        return WireMapping.fromProto(
                (GetReplicationDestinationInfoResponse)
                        transcoder.responseFromWire(Rpc.GET_REPLICATION_DESTINATION_INFO, response),
                sourceKind,
                attempts);
    }

    @SuppressWarnings("unchecked")
    static MethodDescriptor<Message, Message> cast(MethodDescriptor<?, ?> m) {
        return (MethodDescriptor<Message, Message>) m;
    }
}
