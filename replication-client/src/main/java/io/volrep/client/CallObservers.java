package io.volrep.client;

import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Fans one call out to every registered {@link CallObserver}, isolating the client from their failures. */
final class CallObservers implements CallObserver {
    private static final Logger LOG = LoggerFactory.getLogger(CallObservers.class);
    /** No observer: no allocation per call. */
    static final CallObserver NONE = (rpc, source) -> CallObservation.NONE;

    private final CallObserver[] observers;

    private CallObservers(List<CallObserver> observers) {
        this.observers = observers.toArray(CallObserver[]::new);
    }

    static CallObserver of(List<CallObserver> observers) {
        if (observers.isEmpty()) {
            return NONE;
        }
        return new CallObservers(observers);
    }

    @Override
    public CallObservation onCall(Rpc rpc, Optional<ReplicationSource> source) {
        CallObservation[] calls = new CallObservation[observers.length];
        for (int i = 0; i < observers.length; i++) {
            CallObservation call = null;
            try {
                call = observers[i].onCall(rpc, source);
            } catch (RuntimeException e) {
                ignored("onCall", e);
            }
            calls[i] = call == null ? CallObservation.NONE : call;
        }
        return calls.length == 1 ? new Guarded(calls[0]) : new Fanout(calls);
    }

    /** Runs one observer callback; what it throws is logged and ignored. */
    private static void guarded(String what, Runnable callback) {
        try {
            callback.run();
        } catch (RuntimeException e) {
            ignored(what, e);
        }
    }

    private static void ignored(String what, RuntimeException e) {
        LOG.warn("CallObserver.{} threw {}; ignored", what, e.toString());
    }

    /** One observation whose exceptions are logged and ignored. */
    private record Guarded(CallObservation call) implements CallObservation {
        @Override
        public void onStarted(Duration waited) {
            guarded("onStarted", () -> call.onStarted(waited));
        }

        @Override
        public void onAttempt(AttemptEvent event) {
            guarded("onAttempt", () -> call.onAttempt(event));
        }

        @Override
        public Scope openScope() {
            try {
                Scope scope = call.openScope();
                return scope == null ? Scope.NOOP : () -> guarded("Scope.close", scope::close);
            } catch (RuntimeException e) {
                ignored("openScope", e);
                return Scope.NOOP;
            }
        }

        @Override
        public void onFinished(StatusCode code, int attempts) {
            guarded("onFinished", () -> call.onFinished(code, attempts));
        }
    }

    /** Several observations, in registration order (scopes closed in reverse). */
    private static final class Fanout implements CallObservation {
        private final Guarded[] calls;

        Fanout(CallObservation[] calls) {
            this.calls = new Guarded[calls.length];
            for (int i = 0; i < calls.length; i++) {
                this.calls[i] = new Guarded(calls[i]);
            }
        }

        @Override
        public void onStarted(Duration waited) {
            for (Guarded call : calls) {
                call.onStarted(waited);
            }
        }

        @Override
        public void onAttempt(AttemptEvent event) {
            for (Guarded call : calls) {
                call.onAttempt(event);
            }
        }

        @Override
        public Scope openScope() {
            Scope[] scopes = new Scope[calls.length];
            for (int i = 0; i < calls.length; i++) {
                scopes[i] = calls[i].openScope();
            }
            return () -> {
                for (int i = scopes.length - 1; i >= 0; i--) {
                    scopes[i].close();
                }
            };
        }

        @Override
        public void onFinished(StatusCode code, int attempts) {
            for (Guarded call : calls) {
                call.onFinished(code, attempts);
            }
        }
    }
}
