package io.volrep.testkit.fake;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.MessageOrBuilder;
import io.volrep.api.InvalidArgumentException;
import io.volrep.api.ReplicationSource;

/** What the fault injector reads of a request to match it to a window: its source and its force flag. */
final class RequestReading {
    private RequestReading() {}

    /**
     * The source a request names, read by field name so that every spec revision's messages serve: its
     * {@code replication_source}, else its deprecated {@code volume_id}; null when it names none.
     */
    static ReplicationSource sourceOf(MessageOrBuilder request) {
        try {
            var type = request.getDescriptorForType();
            FieldDescriptor sourceField = type.findFieldByName("replication_source");
            if (sourceField != null && request.hasField(sourceField)) {
                var source = (MessageOrBuilder) request.getField(sourceField);
                for (var entry : source.getAllFields().entrySet()) {
                    if (entry.getValue() instanceof MessageOrBuilder inner) {
                        String id = inner.getAllFields().values().stream()
                                .filter(String.class::isInstance)
                                .map(String.class::cast)
                                .findFirst()
                                .orElse("");
                        return ReplicationSource.of(
                                ReplicationSource.Kind.fromWireName(
                                        entry.getKey().getName()),
                                id);
                    }
                }
            }
            FieldDescriptor volumeId = type.findFieldByName("volume_id");
            if (volumeId != null
                    && volumeId.getJavaType() == FieldDescriptor.JavaType.STRING
                    && !((String) request.getField(volumeId)).isEmpty()) {
                return ReplicationSource.volume((String) request.getField(volumeId));
            }
        } catch (IllegalArgumentException | InvalidArgumentException malformed) {
            // an empty, oversized or unknown source: no window covers it; the driver's runtime answers it
        }
        return null;
    }

    /** Whether a request carries {@code force = true}. */
    static boolean forced(MessageOrBuilder request) {
        FieldDescriptor force = request.getDescriptorForType().findFieldByName("force");
        return force != null
                && force.getJavaType() == FieldDescriptor.JavaType.BOOLEAN
                && (Boolean) request.getField(force);
    }
}
