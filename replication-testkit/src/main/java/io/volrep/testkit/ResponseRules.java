package io.volrep.testkit;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.wire.WireMapping;
import io.volrep.proto.replication.GetReplicationDestinationInfoResponse;
import io.volrep.proto.replication.GetVolumeReplicationInfoResponse;
import java.util.Optional;

/**
 * The spec's response-validity rules that a MUST or REQUIRED fixes, checked on every OK answer the lifecycle walk
 * sees (every source kind, every state) and by the named Response validity checks.
 */
final class ResponseRules {
    private ResponseRules() {
    }

    /** Fails the check when an OK response to a call on {@code target} breaks a required rule. */
    static void requireValid(ConformanceContext ctx, Outcome outcome, Addressing target) {
        Optional<String> problem = switch (outcome.rpc()) {
            case GET_VOLUME_REPLICATION_INFO -> lastSyncTimeProblem(outcome.response())
                    .or(() -> lastSyncBytesProblem(outcome.response()))
                    .or(() -> statusProblem(outcome.response()));
            case GET_REPLICATION_DESTINATION_INFO -> destinationProblem(outcome.response(), target.isGroup());
            default -> Optional.empty();
        };
        problem.ifPresent(p -> ctx.fail(outcome.rpc().methodName() + ": " + p));
    }

    /**
     * The health status (upstream 2026, REQUIRED) must be one of the enum's values; 0 UNKNOWN is a value ("the
     * plugin does not know"), a number outside the enum is a plugin bug a client cannot read.
     */
    static Optional<String> statusProblem(Message info) {
        if (info instanceof GetVolumeReplicationInfoResponse current
                && current.getStatus() == GetVolumeReplicationInfoResponse.Status.UNRECOGNIZED) {
            return Optional.of("GetVolumeReplicationInfo answered status " + current.getStatusValue()
                    + ", which is none of UNKNOWN (0), HEALTHY (1), DEGRADED (2), ERROR (3)");
        }
        return Optional.empty();
    }

    /**
     * The destination is REQUIRED, of the source's kind, with a non-empty id; a group's member map (optional) has no
     * empty source or destination id. The same rules the client and the SPI runtime apply
     * ({@link WireMapping#destinationProblem}), so the three never disagree.
     */
    static Optional<String> destinationProblem(Message response, boolean group) {
        if (!(response instanceof GetReplicationDestinationInfoResponse r)) {
            return Optional.empty();
        }
        return Optional.ofNullable(WireMapping.destinationResponseProblem(r,
                group ? ReplicationSource.Kind.VOLUME_GROUP : ReplicationSource.Kind.VOLUME));
    }

    /** last_sync_time is REQUIRED and must be a valid Timestamp. */
    static Optional<String> lastSyncTimeProblem(Message info) {
        FieldDescriptor field = info.getDescriptorForType().findFieldByName("last_sync_time");
        if (!info.hasField(field)) {
            return Optional.of("GetVolumeReplicationInfo answered without last_sync_time: " + info);
        }
        int nanos = ((com.google.protobuf.Timestamp) info.getField(field)).getNanos();
        return nanos < 0 || nanos > 999_999_999
                ? Optional.of("last_sync_time is not a valid Timestamp (nanos " + nanos + ")") : Optional.empty();
    }

    /** last_sync_bytes MUST NOT be negative (current revision only: the legacy ones lack the field). */
    static Optional<String> lastSyncBytesProblem(Message info) {
        if (info instanceof GetVolumeReplicationInfoResponse current && current.getLastSyncBytes() < 0) {
            return Optional.of("GetVolumeReplicationInfo answered last_sync_bytes = " + current.getLastSyncBytes());
        }
        return Optional.empty();
    }
}
