package io.volrep.client.reconcile;

import java.time.Duration;
import java.util.List;

/**
 * The outcome of a {@link Failover}: one entry per source, in the order they were given.
 *
 * <pre>{@code
 * FailoverReport report = failover.run();
 * if (!report.allPrimaryOnB()) { ... re-run once the cause is fixed: completed sources are left as they are ... }
 * }</pre>
 *
 * @param sources per source
 * @param took    how long the failover ran
 */
public record FailoverReport(List<SourceFailover> sources, Duration took) {

    public FailoverReport {
        sources = List.copyOf(sources);
    }

    /** Whether every source is primary on site B. */
    public boolean allPrimaryOnB() {
        return sources.stream().allMatch(SourceFailover::primaryOnB);
    }

    /** How many sources ended in {@code step}. */
    public long count(FailoverStep step) {
        return sources.stream().filter(s -> s.step() == step).count();
    }
}
