package io.volrep.testkit;

import java.util.Locale;

/**
 * How strongly the spec demands what a check verifies. Each level is also a JUnit tag, so a run can be
 * narrowed with {@code --include-tag required} (CLI) or {@code <groups>required</groups>} (Surefire).
 *
 * <pre>{@code
 * Check.required("PromoteVolume: ...", ctx -> ...);   // the spec says MUST, or the error table names the code
 * Check.optional("...: simultaneous calls", ctx -> ...); // SHOULD / MAY
 * }</pre>
 */
public enum Requirement {
    /** The spec says MUST, or an error table fixes the code: a failure means the plugin is not compliant. */
    REQUIRED,
    /** The spec says SHOULD or MAY: a failure is reported but does not break compliance. */
    OPTIONAL;

    /** The JUnit tag of the level: {@code required} or {@code optional}. */
    public String tag() {
        return name().toLowerCase(Locale.ROOT);
    }
}
