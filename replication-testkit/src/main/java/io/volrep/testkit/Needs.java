package io.volrep.testkit;

import io.volrep.api.ReplicationSource;
import io.volrep.api.internal.Arguments;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The fixtures a check holds while it runs. Fixtures are isolated from each other (the isolation checks prove it),
 * so checks holding distinct fixtures run at the same time ({@link ConformanceConfig#parallelism()}): the run takes
 * as long as its busiest fixture, not the sum. {@link ConformanceContext#volume()} and
 * {@link ConformanceContext#volumeGroup()} answer the fixtures the check holds. Immutable.
 *
 * <pre>{@code
 * Check.required("PromoteVolume: ...", ctx -> ...).withNeeds(Needs.volume());     // any one fixture volume
 * Check.required("Isolation: ...", ctx -> ...).withNeeds(Needs.volumes(1, 1));    // a volume and a group
 * Check.required("...", ctx -> ...).withNeeds(Needs.builder()
 *         .fixture(ReplicationSource.volume("pvc-1")).order(Needs.Order.LAST).build());
 * Check.required("my-group/global", ctx -> ...);                                // Needs.everyFixture(): alone
 * }</pre>
 */
public final class Needs {

    /** When a check runs relative to the others. */
    public enum Order {
        /** Before any other check touches the fixture: probing the fixtures' starting state. */
        FIRST,
        /** Whenever its fixtures are free. */
        ANY,
        /** After every other check: the fixtures' final state. */
        LAST
    }

    private final int volumes;
    private final int groups;
    private final List<ReplicationSource> fixtures;
    private final boolean every;
    private final Order order;
    private final boolean reports;
    private final int calls;

    private Needs(Builder b) {
        this.calls = b.calls;
        this.volumes = b.volumes;
        this.groups = b.groups;
        this.fixtures = List.copyOf(b.fixtures);
        this.every = b.every;
        this.order = b.order;
        this.reports = b.reports;
    }

    /** A new builder: no fixture, {@link Order#ANY}. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding these needs. */
    public Builder toBuilder() {
        Builder b = builder().volumes(volumes).groups(groups).order(order).calls(calls);
        fixtures.forEach(b::fixture);
        b.every = every;
        b.reports = reports;
        return b;
    }

    /** No fixture at all (sources that do not exist, malformed requests, Identity, NodeHealer). */
    public static Needs none() {
        return builder().build();
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
        return builder().volumes(volumes).groups(groups).build();
    }

    /** This fixture exactly: {@code Needs.fixture(ReplicationSource.volume("pvc-1"))}. */
    public static Needs fixture(ReplicationSource fixture) {
        return builder().fixture(fixture).build();
    }

    /** Every fixture: the check runs alone. */
    public static Needs everyFixture() {
        return builder().everyFixture().build();
    }

    /** No fixture, no call: the check reports what the lifecycle exploration found. */
    static Needs exploration() {
        Builder b = builder();
        b.reports = true;
        return b.build();
    }

    /** The same fixtures, for a check that makes about {@code n} calls one after the other. */
    public Needs calls(int n) {
        return toBuilder().calls(n).build();
    }

    /** The same fixtures, held at {@code when}. */
    public Needs at(Order when) {
        return toBuilder().order(when).build();
    }

    /** How many fixture volumes, any of them (fewer when fewer are configured). */
    public int volumes() {
        return volumes;
    }

    /** How many fixture volume groups, any of them (fewer when fewer are configured). */
    public int groups() {
        return groups;
    }

    /** These fixtures exactly. */
    public List<ReplicationSource> fixtures() {
        return fixtures;
    }

    /** True when the check holds every fixture: it runs alone. */
    public boolean every() {
        return every;
    }

    /** When, relative to the other checks of the run. */
    public Order order() {
        return order;
    }

    /** True for a check that makes no call: it reports what the lifecycle exploration found. */
    boolean reports() {
        return reports;
    }

    /** About how many calls the check makes, one after the other: the heaviest start first. */
    public int calls() {
        return calls;
    }

    @Override
    public String toString() {
        return every
                ? "every fixture"
                : volumes + " volumes, " + groups + " groups" + (fixtures.isEmpty() ? "" : ", " + fixtures) + ", "
                        + order;
    }

    /** Builds {@link Needs}. */
    public static final class Builder {
        private int volumes;
        private int groups;
        private final List<ReplicationSource> fixtures = new ArrayList<>();
        private boolean every;
        private Order order = Order.ANY;
        private boolean reports;
        private int calls = 10;

        private Builder() {}

        /** Any {@code n} fixture volumes. */
        public Builder volumes(int n) {
            this.volumes = Arguments.requireAtLeast("volumes", n, 0);
            return this;
        }

        /** Any {@code n} fixture volume groups. */
        public Builder groups(int n) {
            this.groups = Arguments.requireAtLeast("groups", n, 0);
            return this;
        }

        /** This fixture exactly (repeatable). */
        public Builder fixture(ReplicationSource fixture) {
            fixtures.add(Objects.requireNonNull(fixture, "fixture"));
            return this;
        }

        /** Every fixture: the check runs alone. */
        public Builder everyFixture() {
            this.every = true;
            return this;
        }

        /**
         * About how many calls the check makes one after the other (default 10): checks that make many start first,
         * so the run does not wait at its end for one long check on one fixture.
         */
        public Builder calls(int calls) {
            this.calls = Arguments.requireAtLeast("calls", calls, 1);
            return this;
        }

        /** When, relative to the other checks (default {@link Order#ANY}). */
        public Builder order(Order order) {
            this.order = Objects.requireNonNull(order, "order");
            return this;
        }

        /** The needs. */
        public Needs build() {
            return new Needs(this);
        }
    }
}
