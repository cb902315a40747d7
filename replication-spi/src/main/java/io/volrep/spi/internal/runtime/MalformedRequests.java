package io.volrep.spi.internal.runtime;

import com.google.protobuf.Message;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.volrep.api.Rpc;
import java.io.InputStream;
import java.util.Optional;

/**
 * Gives bytes that do not parse as the request message a path of their own, at the handler: each method's request
 * marshaller turns a parse failure into a {@link Malformed} value instead of an exception, and the method's handler
 * answers that value INVALID_ARGUMENT "malformed request: ..." through {@link CallRunner#rejectMalformed} (logged and
 * observed like any request the runtime rejects) and passes nothing on: the service's own handler, and whatever
 * interceptors the service was wrapped in before, only ever see parsed messages, as with plain gRPC. Without it gRPC
 * answers such bytes inconsistently per transport (INTERNAL, or UNKNOWN "Application error processing RPC" with a
 * SEVERE log), and the spec says a caller must fix an invalid request, which INVALID_ARGUMENT tells it.
 *
 * <pre>{@code
 * builder.addService(MalformedRequests.lenient(new ControllerService(driver, runner).bindService(), runner));
 * }</pre>
 */
public final class MalformedRequests {
    private MalformedRequests() {}

    /** A request whose bytes did not parse, and why: what the lenient marshaller hands the handler. */
    private record Malformed(String why) {}

    /**
     * The service with the request of every method that is an {@link Rpc} (and has a protobuf request) read leniently,
     * its parse failures answered by {@code runner}; other methods are left as they are.
     */
    public static ServerServiceDefinition lenient(ServerServiceDefinition service, CallRunner runner) {
        ServerServiceDefinition.Builder builder =
                ServerServiceDefinition.builder(service.getServiceDescriptor().getName());
        for (ServerMethodDefinition<?, ?> method : service.getMethods()) {
            builder.addMethod(lenient(method, runner));
        }
        return builder.build();
    }

    private static <Q, R> ServerMethodDefinition<?, R> lenient(ServerMethodDefinition<Q, R> method, CallRunner runner) {
        MethodDescriptor<Q, R> descriptor = method.getMethodDescriptor();
        Optional<Rpc> rpc = Rpc.fromMethodName(descriptor.getBareMethodName())
                .filter(r -> r.service().equals(descriptor.getServiceName()));
        if (rpc.isEmpty()
                || !(descriptor.getRequestMarshaller() instanceof MethodDescriptor.PrototypeMarshaller<Q> proto)
                || !(proto.getMessagePrototype() instanceof Message)) {
            return method;
        }
        return ServerMethodDefinition.create(
                descriptor.toBuilder(new Lenient<>(proto), descriptor.getResponseMarshaller())
                        .build(),
                new Handler<>(rpc.get(), method.getServerCallHandler(), runner));
    }

    /** Reads the request, or says why it cannot be read: never throws for bad bytes. */
    private static final class Lenient<Q> implements MethodDescriptor.Marshaller<Object> {
        private final MethodDescriptor.PrototypeMarshaller<Q> delegate;

        Lenient(MethodDescriptor.PrototypeMarshaller<Q> delegate) {
            this.delegate = delegate;
        }

        @Override
        @SuppressWarnings("unchecked")
        public InputStream stream(Object value) {
            return delegate.stream((Q) value);
        }

        @Override
        public Object parse(InputStream stream) {
            try {
                return delegate.parse(stream);
            } catch (RuntimeException e) {
                return new Malformed("not a valid "
                        + ((Message) delegate.getMessagePrototype())
                                .getDescriptorForType()
                                .getFullName() + " message");
            }
        }
    }

    /** Starts the service's handler, and answers a {@link Malformed} request instead of passing it on. */
    private static final class Handler<Q, R> implements ServerCallHandler<Object, R> {
        private final Rpc rpc;
        private final ServerCallHandler<Q, R> next;
        private final CallRunner runner;

        Handler(Rpc rpc, ServerCallHandler<Q, R> next, CallRunner runner) {
            this.rpc = rpc;
            this.next = next;
            this.runner = runner;
        }

        @Override
        @SuppressWarnings("unchecked")
        public ServerCall.Listener<Object> startCall(ServerCall<Object, R> call, Metadata headers) {
            // The call's request type is erased: the service's handler reads only the parsed messages passed on below.
            ServerCall.Listener<Q> listener = next.startCall((ServerCall<Q, R>) (ServerCall<?, R>) call, headers);
            return new ServerCall.Listener<>() {
                private boolean rejected;

                @Override
                public void onMessage(Object message) {
                    if (message instanceof Malformed malformed) {
                        rejected = true;
                        call.close(runner.rejectMalformed(rpc, malformed.why()), new Metadata());
                    } else if (!rejected) {
                        listener.onMessage((Q) message);
                    }
                }

                @Override
                public void onHalfClose() {
                    if (!rejected) {
                        listener.onHalfClose();
                    }
                }

                @Override
                public void onCancel() {
                    listener.onCancel();
                }

                @Override
                public void onComplete() {
                    listener.onComplete();
                }

                @Override
                public void onReady() {
                    if (!rejected) {
                        listener.onReady();
                    }
                }
            };
        }
    }
}
