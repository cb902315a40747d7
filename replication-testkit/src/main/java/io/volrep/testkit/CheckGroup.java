package io.volrep.testkit;

import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * A named set of checks: the suite's extension point. The built-in groups cover {@code replication.Controller};
 * more groups (the built-in NodeHealer and Identity groups are examples) are found with
 * {@link java.util.ServiceLoader} under {@code META-INF/services/io.volrep.testkit.CheckGroup}, or added to
 * {@link ConformanceChecks#builtIn()}.
 *
 * <pre>{@code
 * public final class NodeHealerChecks implements CheckGroup {
 *     public String name() { return "NodeHealer"; }
 *     public List<Check> checks(ConformanceConfig config) {
 *         return List.of(Check.required("NodeHealer: Volume does not exist -> 5 NOT_FOUND", ctx -> ...));
 *     }
 * }
 * }</pre>
 */
public interface CheckGroup {
    /** The group's name; reports show it as the container of its checks. */
    String name();

    /**
     * The group's checks for this configuration, in the order they run. A check whose fixtures are missing
     * should still be listed and call {@link ConformanceContext#skip(String)}, so reports say what did not run.
     */
    List<Check> checks(ConformanceConfig config);

    /**
     * A group named {@code name} whose checks {@code checks} lists for a configuration.
     *
     * <pre>{@code
     * CheckGroup healer = CheckGroup.of("NodeHealer", config -> List.of(
     *         Check.required("NodeHealer: Volume does not exist -> 5 NOT_FOUND", ctx -> ...)));
     * }</pre>
     */
    static CheckGroup of(String name, Function<ConformanceConfig, List<Check>> checks) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(checks, "checks");
        return new CheckGroup() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public List<Check> checks(ConformanceConfig config) {
                return checks.apply(config);
            }
        };
    }
}
