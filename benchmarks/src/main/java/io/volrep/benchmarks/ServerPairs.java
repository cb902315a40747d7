package io.volrep.benchmarks;

import io.volrep.benchmarks.Harness.Kind;
import io.volrep.benchmarks.Harness.Pair;
import io.volrep.benchmarks.Harness.Suite;
import java.util.List;

/**
 * The server suite's pairs ({@link ServerBenchmark}): {@code ReplicationServer} against a bare grpc-java handler
 * with the same in-memory behaviour, the per-call INFO line off on both sides (the raw handler logs nothing) and
 * measured apart. Its targets must stay within {@link Suite#SERVER}'s ratio.
 *
 * <pre>{@code
 * java -cp benchmarks/target/benchmarks.jar io.volrep.benchmarks.Harness --only 'server-.*'
 * }</pre>
 */
final class ServerPairs {
    private ServerPairs() {}

    /** The two comparisons over {@code transport}, of {@code kind} (targets over unix, costs in-process). */
    static List<Pair> comparisons(String transport, Kind kind) {
        List<String> logOff = List.of(Harness.CALL_LOG_OFF);
        return List.of(
                // Both on gRPC's default executor, the INFO line off (the raw handler logs nothing).
                new Pair(
                        "server-" + transport,
                        kind,
                        Suite.SERVER,
                        "rawDefaultExecutor",
                        "volrep",
                        transport,
                        false,
                        logOff,
                        logOff),
                // Both on the transport thread (the driver declared non-blocking), the INFO line off.
                new Pair(
                        "server-direct-" + transport,
                        kind,
                        Suite.SERVER,
                        "raw",
                        "volrepDirect",
                        transport,
                        false,
                        logOff,
                        logOff));
    }

    /**
     * The per-call INFO line's own cost, per binding: the direct in-process server with the line off ("raw" here)
     * against the same server with it on; one fork per side, since the level is JVM configuration.
     */
    static List<Pair> diagnostics() {
        return List.of(
                logLine("slf4j-simple", List.of(Harness.CALL_LOG_OFF), List.of()),
                logLine("logback", List.of(Harness.LOGBACK, Harness.LOGBACK_CALL_LOG_OFF), List.of(Harness.LOGBACK)));
    }

    /** The line's cost with {@code binding}: its JVM options with the line off ("raw") and on ("volrep"). */
    private static Pair logLine(String binding, List<String> lineOff, List<String> lineOn) {
        return new Pair(
                "log-line-" + binding + "-inprocess",
                Kind.DIAGNOSTIC,
                Suite.SERVER,
                "volrepDirect",
                "volrepDirect",
                "inprocess",
                false,
                lineOff,
                lineOn);
    }
}
