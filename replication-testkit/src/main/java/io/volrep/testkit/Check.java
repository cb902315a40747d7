package io.volrep.testkit;

import io.volrep.api.internal.Arguments;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * One conformance check: a stable id (what {@code --skip} and vendor CI refer to), a name (the spec row it verifies),
 * how strongly the spec demands it, a short hint ("if this fails, check ..."), and its body.
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
 * After the body the suite returns every source the body enabled to "replication disabled".
 * <pre>{@code
 * Check.required("PromoteVolume: Replication Source is not replicated -> 9 FAILED_PRECONDITION", ctx ->
 *         ctx.expect(ctx.call(Rpc.PROMOTE_VOLUME, ctx.volume()), StatusCode.FAILED_PRECONDITION))
 *      .withId("PromoteVolume/volume/disabled")
 *      .withHint("promote must check that replication is enabled");
 * }</pre>
 *
 * @param id the stable id, e.g. {@code "PromoteVolume/volume/disabled"}; by default derived from the name
 * @param name the check's name, e.g. {@code "PromoteVolume: Replication Source is not replicated -> 9 FAILED_PRECONDITION"}
 * @param requirement required (MUST) or optional (SHOULD/MAY)
 * @param hint what to look at when the check fails; may be empty
 * @param body what the check does
 * @param formerIds ids this check had in earlier releases, still accepted (exactly, not as patterns) by
 *                  {@link #selectedBy(String)}; besides these, the id that 0.1 derived from the name
 * @param needs the fixtures the check holds while it runs (checks holding distinct fixtures run at the same time);
 *              by default {@link Needs#everyFixture()}: alone
 */
public record Check(
        String id, String name, Requirement requirement, String hint, Body body, List<String> formerIds, Needs needs) {

    public Check {
        Arguments.requireNonNull(
                "id",
                id,
                "name",
                name,
                "requirement",
                requirement,
                "hint",
                hint,
                "body",
                body,
                "formerIds",
                formerIds,
                "needs",
                needs);
        formerIds = List.copyOf(formerIds);
    }

    /** A check without former ids, that runs alone ({@link Needs#everyFixture()}). */
    public Check(String id, String name, Requirement requirement, String hint, Body body) {
        this(id, name, requirement, hint, body, List.of(), Needs.everyFixture());
    }

    /** A check with former ids, that runs alone ({@link Needs#everyFixture()}). */
    public Check(String id, String name, Requirement requirement, String hint, Body body, List<String> formerIds) {
        this(id, name, requirement, hint, body, formerIds, Needs.everyFixture());
    }

    /** A check without former ids, holding {@code needs} while it runs. */
    public Check(String id, String name, Requirement requirement, String hint, Body body, Needs needs) {
        this(id, name, requirement, hint, body, List.of(), needs);
    }

    /** A check whose id is derived from its name, which has no hint and runs alone. */
    public Check(String name, Requirement requirement, Body body) {
        this(idOf(name), name, requirement, "", body);
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

    /** This check with another id. */
    public Check withId(String newId) {
        return new Check(newId, name, requirement, hint, body, formerIds, needs);
    }

    /** This check with a hint. */
    public Check withHint(String newHint) {
        return new Check(id, name, requirement, newHint, body, formerIds, needs);
    }

    /** This check, also selected by {@code ids} (ids it had in an earlier release). */
    public Check withFormerIds(String... ids) {
        List<String> all = new java.util.ArrayList<>(formerIds);
        all.addAll(List.of(ids));
        return new Check(id, name, requirement, hint, body, all, needs);
    }

    /**
     * This check holding only {@code newNeeds} while it runs, so that it runs beside checks holding other fixtures:
     * {@code Check.required(...).withNeeds(Needs.volume())}.
     */
    public Check withNeeds(Needs newNeeds) {
        return new Check(id, name, requirement, hint, body, formerIds, newNeeds);
    }

    /**
     * The id derived from a name: lower case, every run of other characters than letters and digits one dash,
     * e.g. {@code "Fixtures: volume vol-0 exists"} becomes {@code "fixtures-volume-vol-0-exists"}. What a check
     * built without {@link #withId} is known by, and what every check was known by in 0.1.
     */
    public static String idOf(String name) {
        return name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("^-|-$", "");
    }

    /**
     * True when {@code pattern} selects this check: its id, where {@code *} stands for any run of characters
     * ({@code "isolation/*"}, {@code "*}{@code /group/*"}). Former ids play no part: a pattern selects what its
     * words say of the current ids.
     */
    public boolean matches(String pattern) {
        return idMatches(pattern, id);
    }

    /** True when {@code pattern} ({@code *} for any run of characters) selects the check id {@code id}. */
    static boolean idMatches(String pattern, String id) {
        StringBuilder regex = new StringBuilder();
        for (String part : pattern.split("\\*", -1)) {
            regex.append(regex.isEmpty() ? "" : ".*").append(java.util.regex.Pattern.quote(part));
        }
        return id.matches(regex.toString());
    }

    /**
     * True when {@code id} is not this check's id but one it had before (listed in {@link #formerIds()}, or derived
     * from its name as 0.1 did): accepted for one release, so a vendor's {@code --skip} keeps working after an
     * upgrade. Only exact ids, never patterns.
     */
    public boolean formerlyKnownAs(String id) {
        Objects.requireNonNull(id, "id");
        return !id.equals(this.id) && !id.contains("*") && (formerIds.contains(id) || id.equals(idOf(name)));
    }

    /** True when {@code pattern} {@linkplain #matches matches} this check's id or is one of its former ids. */
    public boolean selectedBy(String pattern) {
        return matches(pattern) || formerlyKnownAs(pattern);
    }
}
