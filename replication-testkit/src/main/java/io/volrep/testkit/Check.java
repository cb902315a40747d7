package io.volrep.testkit;

import java.util.Objects;

/**
 * One conformance check: a name (the spec row it verifies), how strongly the spec demands it, and its body.
 *
 * <p>A body passes by returning, fails by throwing an {@link AssertionError} (use
 * {@link ConformanceContext#fail(String)}), and reports "not implemented" or "skipped" through
 * {@link ConformanceContext#notImplemented} and {@link ConformanceContext#skip}. After the body the suite
 * returns every source the body enabled to "replication disabled".
 * <pre>{@code
 * Check.required("PromoteVolume: Replication Source is not replicated -> 9 FAILED_PRECONDITION", ctx ->
 *         ctx.expect(ctx.call(Rpc.PROMOTE_VOLUME, ctx.volume()), StatusCode.FAILED_PRECONDITION));
 * }</pre>
 *
 * @param name the check's name, e.g. {@code "PromoteVolume: Replication Source is not replicated -> 9 FAILED_PRECONDITION"}
 * @param requirement required (MUST) or optional (SHOULD/MAY)
 * @param body what the check does
 */
public record Check(String name, Requirement requirement, Body body) {

    public Check {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(requirement, "requirement");
        Objects.requireNonNull(body, "body");
    }

    /** A check's body. */
    @FunctionalInterface
    public interface Body {
        /** Runs the check against the plugin behind {@code ctx}. */
        void run(ConformanceContext ctx) throws Exception;
    }

    /** A check of something the spec says MUST, or a code an error table fixes. */
    public static Check required(String name, Body body) {
        return new Check(name, Requirement.REQUIRED, body);
    }

    /** A check of something the spec says SHOULD or MAY. */
    public static Check optional(String name, Body body) {
        return new Check(name, Requirement.OPTIONAL, body);
    }
}
