package io.volrep.benchmarks;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the two suites' benchmark classes ({@link ClientBenchmark}, {@link ServerBenchmark}) share: JMH's settings
 * for an ad-hoc {@code java -jar benchmarks.jar} run (time per call in microseconds, 5 + 5 iterations of 2 s, two
 * forks). The {@link Harness} sets its own for its rounds.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(2)
abstract class PairBenchmark {}
