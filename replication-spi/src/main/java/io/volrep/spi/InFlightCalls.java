package io.volrep.spi;

import io.grpc.ForwardingServerCall;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.util.Iterator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Tracks the calls a server is running so that {@link ReplicationServer#close()} can end those still running when
 * the grace period expires with 14 UNAVAILABLE (retryable: the client tries again once the plugin is back) rather
 * than letting {@code shutdownNow()} reset their streams, which clients see as 1 CANCELLED and never retry.
 *
 * <p>It must be the outermost interceptor: it wraps the transport's own call, and serializes the handler's
 * {@code close} with the forced one ({@link ServerCall} is not thread-safe); whatever the handler sends after a
 * forced close is dropped.
 */
final class InFlightCalls implements ServerInterceptor {
    private final Set<ClosableCall<?, ?>> calls = ConcurrentHashMap.newKeySet();

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(
            ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        ClosableCall<Q, R> tracked = new ClosableCall<>(call);
        calls.add(tracked);
        ServerCall.Listener<Q> listener;
        try {
            listener = next.startCall(tracked, headers);
        } catch (RuntimeException | Error e) {
            calls.remove(tracked);
            throw e;
        }
        return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(listener) {
            @Override
            public void onCancel() {
                calls.remove(tracked);
                super.onCancel();
            }

            @Override
            public void onComplete() {
                calls.remove(tracked);
                super.onComplete();
            }
        };
    }

    /** How many calls have not been answered yet. */
    int size() {
        return calls.size();
    }

    /** Answers every call not answered yet with {@code status}; returns how many it answered. */
    int closeAll(Status status) {
        int closed = 0;
        for (Iterator<ClosableCall<?, ?>> each = calls.iterator(); each.hasNext(); ) {
            if (each.next().closeIfOpen(status)) {
                closed++;
            }
            each.remove();
        }
        return closed;
    }

    /** A call whose close may come from the handler or from the shutdown, whichever is first. */
    private final class ClosableCall<Q, R> extends ForwardingServerCall.SimpleForwardingServerCall<Q, R> {
        private boolean closed;

        ClosableCall(ServerCall<Q, R> delegate) {
            super(delegate);
        }

        @Override
        public synchronized void sendHeaders(Metadata headers) {
            if (!closed) {
                super.sendHeaders(headers);
            }
        }

        @Override
        public synchronized void sendMessage(R message) {
            if (!closed) {
                super.sendMessage(message);
            }
        }

        @Override
        public void close(Status status, Metadata trailers) {
            synchronized (this) {
                if (closed) {
                    return;
                }
                closed = true;
                super.close(status, trailers);
            }
            calls.remove(this);
        }

        synchronized boolean closeIfOpen(Status status) {
            if (closed) {
                return false;
            }
            closed = true;
            super.close(status, new Metadata());
            return true;
        }
    }
}
