package io.volrep.spi.runtime;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import com.google.protobuf.UnknownFieldSet;
import io.grpc.MethodDescriptor;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * Turns bytes that do not parse as the request message into a marked request that the {@link CallRunner}
 * answers INVALID_ARGUMENT "malformed request: ...". Without it gRPC answers such bytes inconsistently per
 * transport (INTERNAL, or UNKNOWN "Application error processing RPC" with a SEVERE log), and the spec says a
 * caller must fix an invalid request, which INVALID_ARGUMENT tells it.
 *
 * <pre>{@code
 * builder.addService(MalformedRequests.lenient(new ControllerService(driver, runner).bindService()));
 * }</pre>
 */
public final class MalformedRequests {
    /** The largest field number protobuf allows: no spec message uses it. */
    private static final int MARKER_FIELD = 536_870_911;

    private MalformedRequests() {
    }

    /** The service with every protobuf request marshaller made lenient. */
    public static ServerServiceDefinition lenient(ServerServiceDefinition service) {
        ServerServiceDefinition.Builder builder = ServerServiceDefinition.builder(
                service.getServiceDescriptor().getName());
        for (ServerMethodDefinition<?, ?> method : service.getMethods()) {
            builder.addMethod(lenient(method));
        }
        return builder.build();
    }

    private static <Q, R> ServerMethodDefinition<Q, R> lenient(ServerMethodDefinition<Q, R> method) {
        MethodDescriptor<Q, R> descriptor = method.getMethodDescriptor();
        if (!(descriptor.getRequestMarshaller() instanceof MethodDescriptor.PrototypeMarshaller<Q> proto)
                || !(proto.getMessagePrototype() instanceof Message)) {
            return method;
        }
        return ServerMethodDefinition.create(
                descriptor.toBuilder().setRequestMarshaller(new Lenient<>(proto)).build(),
                method.getServerCallHandler());
    }

    /** The parse error, when {@code request} stands for bytes that did not parse; else null. */
    public static String parseError(Object request) {
        if (request instanceof Message message) {
            UnknownFieldSet unknown = message.getUnknownFields();
            if (unknown.hasField(MARKER_FIELD)) {
                var values = unknown.getField(MARKER_FIELD).getLengthDelimitedList();
                return values.isEmpty() ? "unparseable bytes" : values.get(0).toString(StandardCharsets.UTF_8);
            }
        }
        return null;
    }

    private static final class Lenient<Q> implements MethodDescriptor.PrototypeMarshaller<Q> {
        private final MethodDescriptor.PrototypeMarshaller<Q> delegate;

        Lenient(MethodDescriptor.PrototypeMarshaller<Q> delegate) {
            this.delegate = delegate;
        }

        @Override
        public Q getMessagePrototype() {
            return delegate.getMessagePrototype();
        }

        @Override
        public Class<Q> getMessageClass() {
            return delegate.getMessageClass();
        }

        @Override
        public InputStream stream(Q value) {
            return delegate.stream(value);
        }

        @Override
        @SuppressWarnings("unchecked")
        public Q parse(InputStream stream) {
            try {
                return delegate.parse(stream);
            } catch (RuntimeException e) {
                Message prototype = (Message) delegate.getMessagePrototype();
                String why = "not a valid " + prototype.getDescriptorForType().getFullName() + " message";
                UnknownFieldSet marker = UnknownFieldSet.newBuilder().addField(MARKER_FIELD,
                        UnknownFieldSet.Field.newBuilder().addLengthDelimited(ByteString.copyFromUtf8(why)).build())
                        .build();
                return (Q) prototype.toBuilder().setUnknownFields(marker).build();
            }
        }
    }
}
