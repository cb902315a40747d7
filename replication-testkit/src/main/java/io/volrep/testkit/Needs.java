package io.volrep.testkit;

import java.util.List;
import java.util.Objects;

/**
 * The fixtures a check holds while it runs. Fixtures are isolated from each other (the isolation checks prove it),
 * so checks holding distinct fixtures run at the same time ({@link ConformanceConfig#parallelism()}): the run takes
 * as long as its busiest fixture, not the sum. {@link ConformanceContext#volume()} and
 * {@link ConformanceContext#volumeGroup()} answer the fixtures the check holds.
 *
 * <pre>{@code
 * Check.required("PromoteVolume: ...", ctx -> ...).withNeeds(Needs.volume());     // any one fixture volume
 * Check.required("Isolation: ...", ctx -> ...).withNeeds(Needs.volumes(1, 1));    // a volume and a group
 * Check.required("my-group/global", ctx -> ...);                                // Needs.everyFixture(): alone
 * }</pre>
 *
 * @param volumes how many fixture volumes (any of them; fewer when fewer are configured)
 * @param groups how many fixture volume groups (any of them; fewer when fewer are configured)
 * @param fixtures these fixtures exactly ({@code "volume/ID"}, {@code "group/ID"})
 * @param every every fixture: the check runs alone
 * @param order when, relative to the other checks of the run
 * @param reports the check makes no call: it reports what the lifecycle exploration found
 */
public record Needs(int volumes, int groups, List<String> fixtures, boolean every, Order order, boolean reports) {

    /** When a check runs relative to the others. */
    public enum Order {
        /** Before any other check touches the fixture: probing the fixtures' starting state. */
        FIRST,
        /** Whenever its fixtures are free. */
        ANY,
        /** After every other check: the fixtures' final state. */
        LAST
    }

    public Needs {
        fixtures = List.copyOf(fixtures);
        Objects.requireNonNull(order, "order");
    }

    /** No fixture at all (sources that do not exist, malformed requests, Identity, NodeHealer). */
    public static Needs none() {
        return new Needs(0, 0, List.of(), false, Order.ANY, false);
    }

    /** Any one fixture volume. */
    public static Needs volume() {
        return volumes(1, 0);
    }

    /** Any one fixture volume group. */
    public static Needs group() {
        return volumes(0, 1);
    }

    /** Any {@code volumes} fixture volumes and {@code groups} fixture groups. */
    public static Needs volumes(int volumes, int groups) {
        return new Needs(volumes, groups, List.of(), false, Order.ANY, false);
    }

    /** This fixture exactly: {@code "volume/ID"} or {@code "group/ID"}. */
    public static Needs fixture(String key) {
        return new Needs(0, 0, List.of(key), false, Order.ANY, false);
    }

    /** Every fixture: the check runs alone. */
    public static Needs everyFixture() {
        return new Needs(0, 0, List.of(), true, Order.ANY, false);
    }

    /** No fixture, no call: the check reports what the lifecycle exploration found. */
    static Needs exploration() {
        return new Needs(0, 0, List.of(), false, Order.ANY, true);
    }

    /** The same fixtures, held at {@code when}. */
    public Needs at(Order when) {
        return new Needs(volumes, groups, fixtures, every, when, reports);
    }
}
