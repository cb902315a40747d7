package io.volrep.testkit;

import java.util.List;

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
}
