package io.volrep.benchmarks;

import java.util.function.Function;

/**
 * Both sides of a pair in one JMH fork: the fork's iterations (warm-up and measured) alternate between the raw and
 * the volrep side in the order raw, volrep, volrep, raw (ABBA), so that a load that rises or falls steadily over the
 * fork lands on both sides alike. The {@link Harness} reads each measured iteration's score as its side's and
 * turns a fork into one ratio (geometric mean of its volrep iterations over that of its raw ones).
 *
 * <p>A benchmark class names its sides by method ({@code "rawBlocking,volrepBlocking"}), resolves them once per
 * trial with {@link #of}, and calls {@link #next()} at every iteration's set-up; both sides go through the same
 * call site, so neither pays a dispatch the other does not.
 */
final class AlternatingSides {
    /** One side's call. */
    @FunctionalInterface
    interface Side {
        Object call() throws Exception;
    }

    private final Side raw;
    private final Side volrep;
    private int iteration;
    private Side current;

    private AlternatingSides(Side raw, Side volrep) {
        this.raw = raw;
        this.volrep = volrep;
        this.current = raw;
    }

    /**
     * The sides named by {@code pair} ({@code "RAW_METHOD,VOLREP_METHOD"}), each resolved by {@code resolve}.
     *
     * @throws IllegalArgumentException when {@code pair} is not two names
     */
    static AlternatingSides of(String pair, Function<String, Side> resolve) {
        String[] names = pair.split(",");
        if (names.length != 2) {
            throw new IllegalArgumentException("expected RAW_METHOD,VOLREP_METHOD, got " + pair);
        }
        return new AlternatingSides(resolve.apply(names[0].trim()), resolve.apply(names[1].trim()));
    }

    /** Whether iteration {@code i} (0-based, warm-up included) of a fork measures the volrep side: ABBA order. */
    static boolean volrepTurn(int i) {
        int phase = i & 3;
        return phase == 1 || phase == 2;
    }

    /** Called at each iteration's set-up: picks the side of the coming iteration. */
    void next() {
        current = volrepTurn(iteration++) ? volrep : raw;
    }

    Object call() throws Exception {
        return current.call();
    }
}
