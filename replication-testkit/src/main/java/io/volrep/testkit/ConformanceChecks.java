package io.volrep.testkit;

import io.volrep.api.ReplicationSource;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.function.Function;

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
    private ConformanceChecks() {}

    /**
     * The built-in groups: Fixtures, one per replication RPC, Lifecycle, Response validity, Request forms,
     * NodeHealer, Identity, Volume groups, Volume group lifecycle.
     */
    public static List<CheckGroup> builtIn() {
        List<CheckGroup> groups = new ArrayList<>(ControllerChecks.groups());
        // NodeHealer changes no replication state, but a plugin may take a heal and a replication call on the same
        // volume as operations on one source (the SPI runtime answers the second 10 ABORTED): the healer checks hold
        // the node volume. Identity's checks call the advertised RPCs on a volume: they hold one.
        groups.add(holding(HealerChecks.group(), ConformanceChecks::nodeVolumes));
        groups.add(holding(IdentityChecks.group(), config -> Needs.volume()));
        // The volume group checks make groups of the fixture volumes (and enable and fail them over): they hold
        // every fixture, so no other check changes a member under them.
        groups.add(holding(VolumeGroupChecks.group(), config -> Needs.everyFixture()));
        groups.add(holding(VolumeGroupLifecycleChecks.group(), config -> Needs.everyFixture()));
        return List.copyOf(groups);
    }

    /** The node volumes the NodeHealer checks name (mount and block), as fixtures to hold. */
    private static Needs nodeVolumes(ConformanceConfig config) {
        Set<String> ids = new LinkedHashSet<>(config.healerVolumes().keySet());
        ids.addAll(config.healerBlockVolumes().keySet());
        Needs.Builder needs = Needs.builder();
        ids.forEach(id -> needs.fixture(ReplicationSource.volume(id)));
        return needs.build();
    }

    private static CheckGroup holding(CheckGroup group, Function<ConformanceConfig, Needs> needs) {
        return CheckGroup.of(
                group.name(),
                config -> group.checks(config).stream()
                        .map(c -> c.withNeeds(needs.apply(config)))
                        .toList());
    }

    /** The built-in groups followed by those found with {@link ServiceLoader}. */
    public static List<CheckGroup> all() {
        List<CheckGroup> groups = new ArrayList<>(builtIn());
        ServiceLoader.load(CheckGroup.class, ConformanceChecks.class.getClassLoader())
                .forEach(groups::add);
        return List.copyOf(groups);
    }
}
