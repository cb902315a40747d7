package io.volrep.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/**
 * The suite's check groups: the built-in {@code replication.Controller} groups, then every {@link CheckGroup}
 * registered with {@link ServiceLoader}.
 *
 * <pre>{@code
 * for (CheckGroup g : ConformanceChecks.all()) {
 *     System.out.println(g.name() + ": " + g.checks(config).size() + " checks");
 * }
 * }</pre>
 */
public final class ConformanceChecks {
    private ConformanceChecks() {
    }

    /**
     * The built-in groups: Fixtures, one per replication RPC, Lifecycle, Response validity, Request forms,
     * NodeHealer, Identity.
     */
    public static List<CheckGroup> builtIn() {
        List<CheckGroup> groups = new ArrayList<>(ControllerChecks.groups());
        // NodeHealer and Identity change no replication state: they run beside every other check.
        groups.add(holdingNoFixture(HealerChecks.group()));
        groups.add(holdingNoFixture(IdentityChecks.group()));
        return List.copyOf(groups);
    }

    private static CheckGroup holdingNoFixture(CheckGroup group) {
        return CheckGroup.of(group.name(), config -> group.checks(config).stream()
                .map(c -> c.withNeeds(Needs.none())).toList());
    }

    /** The built-in groups followed by those found with {@link ServiceLoader}. */
    public static List<CheckGroup> all() {
        List<CheckGroup> groups = new ArrayList<>(builtIn());
        ServiceLoader.load(CheckGroup.class, ConformanceChecks.class.getClassLoader()).forEach(groups::add);
        return List.copyOf(groups);
    }
}
