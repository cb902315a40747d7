package io.volrep.testkit;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import io.volrep.api.Rpc;
import io.volrep.proto.replication.GetVolumeReplicationInfoResponse;
import java.util.Optional;

/**
 * The spec's response-validity rules that a MUST or REQUIRED fixes, checked on every OK answer the lifecycle walk
 * sees (every source kind, every state) and by the named Response validity checks.
 */
final class ResponseRules {
    private ResponseRules() {
    }

    /** Fails the check when an OK response breaks a required rule. */
    static void requireValid(ConformanceContext ctx, Outcome outcome) {
        Optional<String> problem = outcome.rpc() == Rpc.GET_VOLUME_REPLICATION_INFO
                ? lastSyncTimeProblem(outcome.response()).or(() -> lastSyncBytesProblem(outcome.response()))
                : Optional.empty();
        problem.ifPresent(p -> ctx.fail(outcome.rpc().methodName() + ": " + p));
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
