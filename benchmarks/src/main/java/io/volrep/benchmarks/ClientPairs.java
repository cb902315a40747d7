package io.volrep.benchmarks;

import io.volrep.benchmarks.Harness.Kind;
import io.volrep.benchmarks.Harness.Pair;
import io.volrep.benchmarks.Harness.Suite;
import java.util.List;

/**
 * The client suite's pairs ({@link ClientBenchmark}): {@code ReplicationClient} against the strongest raw use of
 * grpc-java for the same call, each side built like for like (docs/benchmarks.md). Its targets must stay within
 * {@link Suite#CLIENT}'s ratio.
 *
 * <pre>{@code
 * java -cp benchmarks/target/benchmarks.jar io.volrep.benchmarks.Harness --only 'client-.*-unix'
 * }</pre>
 */
final class ClientPairs {
    private ClientPairs() {}

    /** The three comparisons over {@code transport}, of {@code kind} (targets over unix, costs in-process). */
    static List<Pair> comparisons(String transport, Kind kind) {
        List<String> none = List.of();
        return List.of(
                new Pair(
                        "client-blocking-" + transport,
                        kind,
                        Suite.CLIENT,
                        "rawBlocking",
                        "volrepBlocking",
                        transport,
                        false,
                        none,
                        none),
                // The default client hands each answer to its pool; so does the raw channel given a pool of that kind.
                new Pair(
                        "client-async64-" + transport,
                        kind,
                        Suite.CLIENT,
                        "rawExecutorAsync64",
                        "volrepAsync64",
                        transport,
                        true,
                        none,
                        none),
                // directExecutor(): a success completes on the transport thread, as the bare raw listener runs.
                new Pair(
                        "client-direct-async64-" + transport,
                        kind,
                        Suite.CLIENT,
                        "rawAsync64",
                        "volrepDirectAsync64",
                        transport,
                        true,
                        none,
                        none));
    }

    /** What the client's pairs leave out, measured apart. */
    static List<Pair> diagnostics() {
        List<String> none = List.of();
        return List.of(
                // What gRPC's retry layer (grpc-java's default, off on both sides of every pair) costs a raw call.
                new Pair(
                        "grpc-retry-layer-unix",
                        Kind.DIAGNOSTIC,
                        Suite.CLIENT,
                        "rawAsync64",
                        "rawGrpcRetryAsync64",
                        "unix",
                        true,
                        none,
                        none),
                // The Micrometer binding's cost per call: the bound client against the same client unbound.
                new Pair(
                        "micrometer-binding-inprocess",
                        Kind.DIAGNOSTIC,
                        Suite.CLIENT,
                        "volrepBlocking",
                        "meteredBlocking",
                        "inprocess",
                        false,
                        none,
                        none));
    }
}
