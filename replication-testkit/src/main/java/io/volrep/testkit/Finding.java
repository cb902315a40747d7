package io.volrep.testkit;

import io.volrep.api.Rpc;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What the lifecycle exploration found for one named check: how many of its edges were taken, the failures seen on
 * them (each with the calls that show it, shortest found), whether its RPC answered 12 UNIMPLEMENTED where the table
 * allows it, why an edge could not be reached (and the checks whose failures made it so), and how long its edges'
 * calls took. Immutable: each walker builds its own and the exploration merges them ({@link #merge}).
 *
 * @param taken how many of the check's edges were taken and held
 * @param failures the failures seen, one per history at most per walker
 * @param notImplemented the RPC that answered 12 UNIMPLEMENTED where its table allows it, if one did
 * @param unreachable why the check's state could not be reached, if it could not
 * @param waited how long its edges' calls polled transient answers
 * @param ran how long its edges' calls took
 */
record Finding(
        int taken,
        List<Failure> failures,
        Optional<Rpc> notImplemented,
        Optional<Unreachable> unreachable,
        Duration waited,
        Duration ran) {

    /** Nothing found. */
    static final Finding NONE =
            new Finding(0, List.of(), Optional.empty(), Optional.empty(), Duration.ZERO, Duration.ZERO);

    Finding {
        failures = List.copyOf(failures);
    }

    /**
     * A failure of a named check's edge, with the calls that lead to it.
     *
     * @param message what was wrong
     * @param calls the calls that show it, from replication disabled (shrunk when a replay showed it again)
     * @param history the history by which the state was reached
     * @param tourCalls how many calls the tour had made since replication was disabled
     * @param reproduced true when a replay on the same fixture showed it again (false: seen once, never again alone)
     * @param causes the checks whose failure would explain this one (a broken answer rule that a named check judges);
     *               empty when it is a failure of its own
     */
    record Failure(
            String message,
            List<String> calls,
            String history,
            int tourCalls,
            boolean reproduced,
            List<String> causes) {
        Failure {
            calls = List.copyOf(calls);
            causes = List.copyOf(causes);
        }
    }

    /**
     * Why a state could not be reached to take an edge.
     *
     * @param message what happened on the way
     * @param causes the checks whose failures made the state unreachable (empty when none is known)
     */
    record Unreachable(String message, List<String> causes) {
        Unreachable {
            causes = List.copyOf(causes);
        }
    }

    /** One edge taken and held. */
    static Finding took() {
        return new Finding(1, List.of(), Optional.empty(), Optional.empty(), Duration.ZERO, Duration.ZERO);
    }

    /** One failure. */
    static Finding failed(Failure failure) {
        return new Finding(0, List.of(failure), Optional.empty(), Optional.empty(), Duration.ZERO, Duration.ZERO);
    }

    /** The RPC answered 12 UNIMPLEMENTED where its table allows it. */
    static Finding notImplemented(Rpc rpc) {
        return new Finding(0, List.of(), Optional.of(rpc), Optional.empty(), Duration.ZERO, Duration.ZERO);
    }

    /** The state of the check could not be reached. */
    static Finding unreachable(Unreachable why) {
        return new Finding(0, List.of(), Optional.empty(), Optional.of(why), Duration.ZERO, Duration.ZERO);
    }

    /** The time a call of the check's edge took, and polled. */
    static Finding timed(Duration ran, Duration waited) {
        return new Finding(0, List.of(), Optional.empty(), Optional.empty(), waited, ran);
    }

    /** This finding and {@code other} together: counts and times added, failures after each other, the first why. */
    Finding merge(Finding other) {
        List<Failure> all = new ArrayList<>(failures);
        all.addAll(other.failures);
        return new Finding(
                taken + other.taken,
                all,
                notImplemented.or(other::notImplemented),
                unreachable.or(other::unreachable),
                waited.plus(other.waited),
                ran.plus(other.ran));
    }
}
