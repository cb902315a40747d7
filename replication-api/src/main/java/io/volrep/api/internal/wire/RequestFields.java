package io.volrep.api.internal.wire;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import io.grpc.MethodDescriptor;
import io.volrep.api.Rpc;
import io.volrep.api.SpecDialect;
import io.volrep.proto.replication.ReplicationSource;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The fields a current-revision replication request may carry, read and written by name through the protobuf
 * descriptors, so that one piece of code serves every RPC: the client writes them, the SPI reads them (and
 * validates them once), the testkit writes malformed ones. A field the RPC's message does not have is left out
 * when writing and reads as empty (GetVolumeReplicationInfo has no {@code parameters} and no {@code force}).
 *
 * <pre>{@code
 * Message request = new RequestFields(WireMapping.toProto(ReplicationSource.volume("pvc-1")), "", Map.of(),
 *         Map.of("user", "admin"), "", true).toRequest(Rpc.PROMOTE_VOLUME);
 * RequestFields read = RequestFields.of(request);
 * }</pre>
 *
 * @param source {@code replication_source}, or null when not set
 * @param volumeId the deprecated {@code volume_id}, "" when not set
 * @param parameters {@code parameters}
 * @param secrets {@code secrets}
 * @param replicationId the alpha {@code replication_id}, "" when not set
 * @param force {@code force}
 */
public record RequestFields(
        ReplicationSource source,
        String volumeId,
        Map<String, String> parameters,
        Map<String, String> secrets,
        String replicationId,
        boolean force) {
    private static final Map<Descriptor, Shape> SHAPES = new ConcurrentHashMap<>();

    public RequestFields {
        volumeId = volumeId == null ? "" : volumeId;
        replicationId = replicationId == null ? "" : replicationId;
        Objects.requireNonNull(parameters, "parameters");
        Objects.requireNonNull(secrets, "secrets");
    }

    /** Where each field sits in one request type; null when the type does not have it. */
    private record Shape(
            FieldDescriptor source,
            FieldDescriptor volumeId,
            FieldDescriptor parameters,
            FieldDescriptor secrets,
            FieldDescriptor replicationId,
            FieldDescriptor force) {
        static Shape of(Descriptor type) {
            return new Shape(
                    type.findFieldByName("replication_source"),
                    type.findFieldByName("volume_id"),
                    type.findFieldByName("parameters"),
                    type.findFieldByName("secrets"),
                    type.findFieldByName("replication_id"),
                    type.findFieldByName("force"));
        }
    }

    private static Shape shape(Descriptor type) {
        return SHAPES.computeIfAbsent(type, Shape::of);
    }

    /** The fields of a current-revision request. */
    public static RequestFields of(Message request) {
        Shape shape = shape(request.getDescriptorForType());
        return new RequestFields(
                shape.source() != null && request.hasField(shape.source())
                        ? (ReplicationSource) request.getField(shape.source())
                        : null,
                shape.volumeId() == null ? "" : (String) request.getField(shape.volumeId()),
                map(request, shape.parameters()),
                map(request, shape.secrets()),
                shape.replicationId() == null ? "" : (String) request.getField(shape.replicationId()),
                shape.force() != null && (Boolean) request.getField(shape.force()));
    }

    /** The current revision's request of {@code rpc} with these fields (those its message has). */
    public Message toRequest(Rpc rpc) {
        MethodDescriptor<Message, Message> method =
                Transcoder.of(SpecDialect.CURRENT).method(rpc);
        Message.Builder b = ((MethodDescriptor.PrototypeMarshaller<Message>) method.getRequestMarshaller())
                .getMessagePrototype()
                .newBuilderForType();
        Shape shape = shape(b.getDescriptorForType());
        if (source != null && shape.source() != null) {
            b.setField(shape.source(), source);
        }
        if (!volumeId.isEmpty() && shape.volumeId() != null) {
            b.setField(shape.volumeId(), volumeId);
        }
        putAll(b, shape.parameters(), parameters);
        putAll(b, shape.secrets(), secrets);
        if (!replicationId.isEmpty() && shape.replicationId() != null) {
            b.setField(shape.replicationId(), replicationId);
        }
        if (force && shape.force() != null) {
            b.setField(shape.force(), true);
        }
        return b.build();
    }

    private static Map<String, String> map(Message request, FieldDescriptor field) {
        if (field == null) {
            return Map.of();
        }
        List<?> entries = (List<?>) request.getField(field);
        if (entries.isEmpty()) {
            return Map.of();
        }
        Map<String, String> map = new LinkedHashMap<>();
        for (Object o : entries) {
            Message entry = (Message) o;
            var fields = entry.getDescriptorForType().getFields();
            map.put((String) entry.getField(fields.get(0)), (String) entry.getField(fields.get(1)));
        }
        return map;
    }

    private static void putAll(Message.Builder b, FieldDescriptor field, Map<String, String> values) {
        if (field == null || values.isEmpty()) {
            return;
        }
        for (Map.Entry<String, String> e : values.entrySet()) {
            Message.Builder entry = b.newBuilderForField(field);
            var fields = entry.getDescriptorForType().getFields();
            entry.setField(fields.get(0), e.getKey());
            entry.setField(fields.get(1), e.getValue());
            b.addRepeatedField(field, entry.build());
        }
    }
}
