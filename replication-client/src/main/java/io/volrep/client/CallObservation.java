package io.volrep.client;

import io.volrep.api.StatusCode;
import java.time.Duration;

/**
 * One call as a {@link CallObserver} follows it. The client calls {@link #onStarted} once when the call leaves
 * its source's single-flight queue (at once, with a zero wait, for a call without a source), {@link #onAttempt}
 * after every attempt, {@link #openScope()} around the start of every attempt (so that a tracer's gRPC
 * interceptor sees the call as the attempt's parent), and {@link #onFinished} exactly once, also for calls that
 * never started (rejected before sending, queue full, cancelled while waiting).
 *
 * <pre>{@code
 * CallObservation observation = (code, attempts) -> finishedCalls.increment();
 * }</pre>
 */
@FunctionalInterface
public interface CallObservation {
    /** Ignores everything. */
    CallObservation NONE = (code, attempts) -> {};

    /** The call got its single-flight slot after waiting {@code waited} behind earlier calls on its source. */
    default void onStarted(Duration waited) {}

    /** One attempt's outcome and the retry decision (the same event {@link AttemptListener}s see). */
    default void onAttempt(AttemptEvent event) {}

    /**
     * Makes this call current on the calling thread while an attempt is started; closed right after.
     * The default does nothing.
     */
    default Scope openScope() {
        return Scope.NOOP;
    }

    /**
     * The call's final outcome: {@link StatusCode#OK}, the plugin's final code, or the code of the client's own
     * refusal (e.g. {@link StatusCode#INVALID_ARGUMENT} before sending); {@code attempts} is 0 when nothing was
     * sent.
     */
    void onFinished(StatusCode code, int attempts);

    /** What {@link #openScope()} returns: closing it cannot fail. */
    @FunctionalInterface
    interface Scope extends AutoCloseable {
        /** Does nothing. */
        Scope NOOP = () -> {};

        @Override
        void close();
    }
}
