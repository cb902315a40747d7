package io.volrep.testkit;

import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One conformance check: a stable id (what {@code --skip} and vendor CI refer to), a name (the spec row it verifies),
 * how strongly the spec demands it, a short hint ("if this fails, check ..."), the fixtures it holds while it runs,
 * and its body. Immutable; made with {@link #builder()}, or {@link #required}/{@link #optional} and the
 * {@code with...} methods.
 *
 * <p>The built-in checks' ids are structural, {@code <group>/<subject>/<condition>}, optionally followed by
 * {@code /<fixture>} for a check made per fixture: {@code PromoteVolume/volume/disabled},
 * {@code PromoteVolume/group/auth-wrong}, {@code isolation/volume/after-refusals}, {@code lifecycle/group/grp-0}. They
 * never derive from the name, so rewording a name or a row of the error table changes no id;
 * {@code docs/check-ids.md} lists them all.
 *
 * <p>A body passes by returning, fails by throwing an {@link AssertionError} (use
 * {@link ConformanceContext#fail(String)}), and reports "not implemented", "skipped" or a warning through
 * {@link ConformanceContext#notImplemented}, {@link ConformanceContext#skip} and {@link ConformanceContext#warn}.
 * After the body the suite returns every source the body enabled to "replication disabled" (or, for a passing check
 * of any free fixtures that left one enabled and primary, hands it to the next such check, which meets it disabled
 * unless its first call is the {@link ConformanceContext#step} enabling it: docs/vendor-ci.md).
 * <pre>{@code
 * Check check = Check.builder()
 *         .id("PromoteVolume/volume/disabled")
 *         .name("PromoteVolume: Replication Source is not replicated -> 9 FAILED_PRECONDITION")
 *         .requirement(Requirement.REQUIRED)
 *         .hint("promote must check that replication is enabled")
 *         .needs(Needs.volume())
 *         .body(ctx -> ctx.expect(ctx.call(Rpc.PROMOTE_VOLUME, ctx.volume()), StatusCode.FAILED_PRECONDITION))
 *         .build();
 * }</pre>
 */
public final class Check {
    private final String id;
    private final String name;
    private final Requirement requirement;
    private final String hint;
    private final Body body;
    private final Needs needs;

    private Check(Builder b) {
        this.name = Objects.requireNonNull(b.name, "name");
        this.id = b.id == null ? idOf(b.name) : b.id;
        this.requirement = Objects.requireNonNull(b.requirement, "requirement");
        this.hint = Objects.requireNonNull(b.hint, "hint");
        this.body = Objects.requireNonNull(b.body, "body");
        this.needs = Objects.requireNonNull(b.needs, "needs");
    }

    /** A check's body. */
    @FunctionalInterface
    public interface Body {
        /** Runs the check against the plugin behind {@code ctx}. */
        void run(ConformanceContext ctx) throws Exception;
    }

    /** A new builder: required, no hint, holding every fixture (alone), the id derived from the name unless set. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this check's values. */
    public Builder toBuilder() {
        Builder b = new Builder()
                .id(id)
                .name(name)
                .requirement(requirement)
                .hint(hint)
                .body(body);
        return b.needs(needs);
    }

    /** A check of something the spec says MUST, or a code an error table fixes; it runs alone until given needs. */
    public static Check required(String name, Body body) {
        return builder().name(name).requirement(Requirement.REQUIRED).body(body).build();
    }

    /** A check of something the spec says SHOULD or MAY. */
    public static Check optional(String name, Body body) {
        return builder().name(name).requirement(Requirement.OPTIONAL).body(body).build();
    }

    /** This check with another id. */
    public Check withId(String newId) {
        return toBuilder().id(newId).build();
    }

    /** This check with a hint. */
    public Check withHint(String newHint) {
        return toBuilder().hint(newHint).build();
    }

    /**
     * This check holding only {@code newNeeds} while it runs, so that it runs beside checks holding other fixtures:
     * {@code Check.required(...).withNeeds(Needs.volume())}.
     */
    public Check withNeeds(Needs newNeeds) {
        return toBuilder().needs(newNeeds).build();
    }

    /** The stable id, e.g. {@code "PromoteVolume/volume/disabled"}. */
    public String id() {
        return id;
    }

    /** The name, e.g. {@code "PromoteVolume: Replication Source is not replicated -> 9 FAILED_PRECONDITION"}. */
    public String name() {
        return name;
    }

    /** Required (MUST) or optional (SHOULD/MAY). */
    public Requirement requirement() {
        return requirement;
    }

    /** What to look at when the check fails; may be empty. */
    public String hint() {
        return hint;
    }

    /** What the check does. */
    public Body body() {
        return body;
    }

    /** The fixtures the check holds while it runs (checks holding distinct fixtures run at the same time). */
    public Needs needs() {
        return needs;
    }

    /**
     * The id derived from a name: lower case, every run of other characters than letters and digits one dash,
     * e.g. {@code "Fixtures: volume vol-0 exists"} becomes {@code "fixtures-volume-vol-0-exists"}: what a check built
     * without an id is known by. Give your checks ids: a reworded name changes a derived one.
     */
    public static String idOf(String name) {
        return name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("^-|-$", "");
    }

    /**
     * True when {@code pattern} selects this check: its id, where {@code *} stands for any run of characters
     * ({@code "isolation/*"}, {@code "*}{@code /group/*"}).
     */
    public boolean matches(String pattern) {
        return idMatches(pattern, id);
    }

    /** True when {@code pattern} ({@code *} for any run of characters) selects the check id {@code id}. */
    static boolean idMatches(String pattern, String id) {
        StringBuilder regex = new StringBuilder();
        for (String part : pattern.split("\\*", -1)) {
            regex.append(regex.isEmpty() ? "" : ".*").append(Pattern.quote(part));
        }
        return id.matches(regex.toString());
    }

    @Override
    public String toString() {
        return id + " (" + requirement.tag() + "): " + name;
    }

    /** Builds a {@link Check}. */
    public static final class Builder {
        private String id;
        private String name;
        private Requirement requirement = Requirement.REQUIRED;
        private String hint = "";
        private Body body;
        private Needs needs = Needs.everyFixture();

        private Builder() {}

        /** The stable id ({@code <group>/<subject>/<condition>}); by default derived from the name. */
        public Builder id(String id) {
            this.id = Objects.requireNonNull(id, "id");
            return this;
        }

        /** The name: the spec row it verifies, and the case in brackets. Required. */
        public Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /** Required (the default) or optional. */
        public Builder requirement(Requirement requirement) {
            this.requirement = Objects.requireNonNull(requirement, "requirement");
            return this;
        }

        /** What to look at when the check fails (default: none). */
        public Builder hint(String hint) {
            this.hint = Objects.requireNonNull(hint, "hint");
            return this;
        }

        /** What the check does. Required. */
        public Builder body(Body body) {
            this.body = Objects.requireNonNull(body, "body");
            return this;
        }

        /** The fixtures it holds while it runs (default {@link Needs#everyFixture()}: alone). */
        public Builder needs(Needs needs) {
            this.needs = Objects.requireNonNull(needs, "needs");
            return this;
        }

        /** The check; throws {@link NullPointerException} without a name or a body. */
        public Check build() {
            return new Check(this);
        }
    }
}
