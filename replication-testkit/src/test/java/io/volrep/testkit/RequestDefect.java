package io.volrep.testkit;

import com.google.protobuf.Message;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.volrep.api.Rpc;

/**
 * A defect injected below the SPI runtime: sees each complete request before the runtime does and may
 * answer it itself (a status, or OK with an empty response), rewrite it, or pass it on.
 */
abstract class RequestDefect implements ServerInterceptor {

    /** What to do with a request. */
    record Decision(Status status, boolean answerOk, Message request) {
        static Decision pass(Message request) {
            return new Decision(null, false, request);
        }

        static Decision answer(Status status) {
            return new Decision(status, false, null);
        }

        static Decision ok() {
            return new Decision(null, true, null);
        }
    }

    abstract Decision decide(Rpc rpc, Message request);

    @Override
    public <Q, A> ServerCall.Listener<Q> interceptCall(
            ServerCall<Q, A> call, Metadata headers, ServerCallHandler<Q, A> next) {
        // Defects concern requests about a source: Identity calls pass untouched.
        Rpc rpc = Rpc.fromMethodName(call.getMethodDescriptor().getBareMethodName())
                .filter(r -> !r.isIdentity())
                .orElse(null);
        if (rpc == null) {
            return next.startCall(call, headers);
        }
        call.request(1);
        return new ServerCall.Listener<>() {
            private Q message;
            private ServerCall.Listener<Q> delegate;

            @Override
            public void onMessage(Q m) {
                message = m;
            }

            @Override
            @SuppressWarnings("unchecked")
            public void onHalfClose() {
                Decision d = decide(rpc, (Message) message);
                if (d.status() != null) {
                    call.close(d.status(), new Metadata());
                } else if (d.answerOk()) {
                    A response = ((MethodDescriptor.PrototypeMarshaller<A>)
                                    call.getMethodDescriptor().getResponseMarshaller())
                            .getMessagePrototype();
                    call.sendHeaders(new Metadata());
                    call.sendMessage(response);
                    call.close(Status.OK, new Metadata());
                } else {
                    delegate = next.startCall(call, headers);
                    delegate.onMessage((Q) d.request());
                    delegate.onHalfClose();
                    delegate.onReady();
                }
            }

            @Override
            public void onCancel() {
                if (delegate != null) {
                    delegate.onCancel();
                }
            }

            @Override
            public void onComplete() {
                if (delegate != null) {
                    delegate.onComplete();
                }
            }
        };
    }
}
