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
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.proto.replication.ControllerGrpc;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Builds raw requests for any replication RPC by field name and sends them through the generated method
 * descriptors: the suite must be able to send what a polite client refuses to send.
 */
final class Wire {
    private static final Map<Rpc, MethodDescriptor<Message, Message>> METHODS = new EnumMap<>(Rpc.class);

    static {
        for (Object o : ControllerGrpc.getServiceDescriptor().getMethods()) {
            @SuppressWarnings("unchecked")
            MethodDescriptor<Message, Message> method = (MethodDescriptor<Message, Message>) o;
            Rpc.fromMethodName(method.getBareMethodName()).ifPresent(rpc -> METHODS.put(rpc, method));
        }
    }

    private Wire() {
    }

    static MethodDescriptor<Message, Message> method(Rpc rpc) {
        MethodDescriptor<Message, Message> method = METHODS.get(rpc);
        if (method == null) {
            throw new IllegalArgumentException("not a replication.Controller method: " + rpc);
        }
        return method;
    }

    /** The {@link Rpc} of a server-side method, if it is a replication method. */
    static Rpc rpcOf(ServerMethodDefinition<?, ?> definition) {
        return Rpc.fromMethodName(definition.getMethodDescriptor().getBareMethodName()).orElse(null);
    }

    /** A request for {@code rpc} addressing {@code target}, with {@code secrets} and, where the message has one, {@code force}. */
    static Message request(Rpc rpc, Addressing target, Map<String, String> secrets, Map<String, String> parameters,
                           boolean force) {
        Message prototype = ((MethodDescriptor.PrototypeMarshaller<Message>) method(rpc).getRequestMarshaller())
                .getMessagePrototype();
        Message.Builder b = prototype.newBuilderForType();
        var type = b.getDescriptorForType();
        if (!target.volumeId().isEmpty()) {
            b.setField(type.findFieldByName("volume_id"), target.volumeId());
        }
        if (target.source() != null) {
            b.setField(type.findFieldByName("replication_source"), target.source());
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
        try {
            Message response = ClientCalls.blockingUnaryCall(channel, method(rpc), options(timeout), request);
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
