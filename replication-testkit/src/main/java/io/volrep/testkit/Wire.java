package io.volrep.testkit;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.MethodDescriptor;
import io.grpc.ServerMethodDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.ServiceDescriptor;
import io.volrep.api.Rpc;
import io.volrep.api.SpecDialect;
import io.volrep.api.StatusCode;
import io.volrep.proto.replication.ControllerGrpc;
import io.volrep.proto.replication.ReplicationSource;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Builds raw requests for any replication RPC by field name and sends them through the generated method
 * descriptors of the plugin's spec revision: the suite must be able to send what a polite client refuses to send.
 * Checks name sources in the current revision's form ({@link Addressing}); this class re-encodes them in the
 * dialect's own messages (v0.1.3's {@code volumegroup = 1, volume = 2}; v0.1.0's {@code volume_id} only).
 */
final class Wire {
    private static final Map<SpecDialect, Map<Rpc, MethodDescriptor<Message, Message>>> METHODS =
            new EnumMap<>(SpecDialect.class);

    static {
        METHODS.put(SpecDialect.CURRENT, methods(ControllerGrpc.getServiceDescriptor()));
        METHODS.put(SpecDialect.V0_1_3,
                methods(io.volrep.proto.replication.v0_1_3.ControllerGrpc.getServiceDescriptor()));
        METHODS.put(SpecDialect.V0_1_0,
                methods(io.volrep.proto.replication.v0_1_0.ControllerGrpc.getServiceDescriptor()));
    }

    private static Map<Rpc, MethodDescriptor<Message, Message>> methods(ServiceDescriptor service) {
        Map<Rpc, MethodDescriptor<Message, Message>> methods = new EnumMap<>(Rpc.class);
        for (Object o : service.getMethods()) {
            @SuppressWarnings("unchecked")
            MethodDescriptor<Message, Message> method = (MethodDescriptor<Message, Message>) o;
            Rpc.fromMethodName(method.getBareMethodName()).ifPresent(rpc -> methods.put(rpc, method));
        }
        return methods;
    }

    private Wire() {
    }

    static MethodDescriptor<Message, Message> method(Rpc rpc) {
        return method(SpecDialect.CURRENT, rpc);
    }

    static MethodDescriptor<Message, Message> method(SpecDialect dialect, Rpc rpc) {
        MethodDescriptor<Message, Message> method = METHODS.get(dialect).get(rpc);
        if (method == null) {
            throw new IllegalArgumentException("not a replication.Controller method of spec " + dialect + ": " + rpc);
        }
        return method;
    }

    /**
     * The current-revision request for {@code target} as {@code dialect} names it. Legacy revisions require
     * {@code volume_id}: unless {@code exact}, it is filled from the source's id when the target has none
     * (a v0.1.3 group source carries the group's id there, as volrep's client sends it).
     */
    static Addressing inDialect(SpecDialect dialect, Addressing target, boolean exact) {
        if (exact || !dialect.volumeIdRequired() || !target.volumeId().isEmpty() || target.source() == null) {
            return target;
        }
        ReplicationSource source = target.source();
        String id = source.hasVolume() ? source.getVolume().getVolumeId()
                : source.hasVolumegroup() ? source.getVolumegroup().getVolumeGroupId() : "";
        return new Addressing(source, id, target.label());
    }

    static Message request(SpecDialect dialect, Rpc rpc, Addressing target, Map<String, String> secrets,
                           Map<String, String> parameters, boolean force) {
        Message.Builder b = method(dialect, rpc).getRequestMarshaller() instanceof
                MethodDescriptor.PrototypeMarshaller<Message> proto ? proto.getMessagePrototype().newBuilderForType()
                : null;
        if (b == null) {
            throw new IllegalStateException("no prototype for " + rpc);
        }
        var type = b.getDescriptorForType();
        if (!target.volumeId().isEmpty()) {
            b.setField(type.findFieldByName("volume_id"), target.volumeId());
        }
        FieldDescriptor sourceField = type.findFieldByName("replication_source");
        if (target.source() != null && sourceField != null) {
            b.setField(sourceField, reencode(target.source(), b.newBuilderForField(sourceField)));
        }
        putAll(b, type.findFieldByName("secrets"), secrets);
        FieldDescriptor params = type.findFieldByName("parameters");
        if (params != null) {
            putAll(b, params, parameters);
        }
        FieldDescriptor forceField = type.findFieldByName("force");
        if (forceField != null && force) {
            b.setField(forceField, true);
        }
        return b.build();
    }

    /** The current-revision source in another revision's message, field by field name (numbers differ). */
    private static Message reencode(ReplicationSource source, Message.Builder target) {
        if (target.getDescriptorForType().equals(ReplicationSource.getDescriptor())) {
            return source;
        }
        for (Map.Entry<FieldDescriptor, Object> e : source.getAllFields().entrySet()) {
            FieldDescriptor field = target.getDescriptorForType().findFieldByName(e.getKey().getName());
            if (field == null) {
                throw new IllegalArgumentException("replication_source." + e.getKey().getName()
                        + " does not exist in this spec revision");
            }
            Message.Builder inner = target.newBuilderForField(field);
            ((Message) e.getValue()).getAllFields().forEach((f, v) ->
                    inner.setField(inner.getDescriptorForType().findFieldByName(f.getName()), v));
            target.setField(field, inner.build());
        }
        return target.build();
    }

    /** The {@link Rpc} of a server-side method, if it is a replication method. */
    static Rpc rpcOf(ServerMethodDefinition<?, ?> definition) {
        return Rpc.fromMethodName(definition.getMethodDescriptor().getBareMethodName()).orElse(null);
    }

    /** A request for {@code rpc} addressing {@code target}, with {@code secrets} and, where the message has one, {@code force}. */
    static Message request(Rpc rpc, Addressing target, Map<String, String> secrets, Map<String, String> parameters,
                           boolean force) {
        return request(SpecDialect.CURRENT, rpc, target, secrets, parameters, force);
    }

    private static void putAll(Message.Builder b, FieldDescriptor mapField, Map<String, String> values) {
        for (Map.Entry<String, String> e : values.entrySet()) {
            Message.Builder entry = b.newBuilderForField(mapField);
            entry.setField(entry.getDescriptorForType().findFieldByName("key"), e.getKey());
            entry.setField(entry.getDescriptorForType().findFieldByName("value"), e.getValue());
            b.addRepeatedField(mapField, entry.build());
        }
    }

    static CallOptions options(Duration timeout) {
        return CallOptions.DEFAULT.withDeadlineAfter(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Sends one call and waits for its answer; never throws for a status. */
    static Outcome invoke(Channel channel, Rpc rpc, Message request, Duration timeout) {
        return invoke(channel, SpecDialect.CURRENT, rpc, request, timeout);
    }

    /** Sends one call of {@code dialect}'s service and waits for its answer; never throws for a status. */
    static Outcome invoke(Channel channel, SpecDialect dialect, Rpc rpc, Message request, Duration timeout) {
        try {
            Message response = ClientCalls.blockingUnaryCall(channel, method(dialect, rpc), options(timeout), request);
            return new Outcome(rpc, StatusCode.OK, "", response);
        } catch (StatusRuntimeException e) {
            return outcome(rpc, e.getStatus());
        }
    }

    static Outcome outcome(Rpc rpc, Status status) {
        String description = status.getDescription() == null ? "" : status.getDescription();
        return new Outcome(rpc, StatusCode.fromValue(status.getCode().value()), description, null);
    }
}
