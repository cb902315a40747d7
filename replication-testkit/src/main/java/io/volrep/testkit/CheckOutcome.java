package io.volrep.testkit;

/**
 * How one check ended.
 *
 * <pre>{@code
 * report.results().stream().filter(r -> r.outcome() == CheckOutcome.FAILED).forEach(System.out::println);
 * }</pre>
 */
public enum CheckOutcome {
    /** The plugin behaved as the spec demands. */
    PASSED("PASS"),
    /** The plugin did not. */
    FAILED("FAIL"),
    /** The plugin answered 12 UNIMPLEMENTED where the spec allows it (promote, demote, resync, info). Never a pass. */
    NOT_IMPLEMENTED("NOT IMPLEMENTED"),
    /** The check did not run: its fixtures are not configured (no volume groups, no secrets, ...). */
    SKIPPED("SKIPPED"),
    /**
     * The plugin did what the spec demands, but something clients rely on is off: an RPC served although Identity
     * does not advertise its capability, so an orchestrator that reads the capabilities never calls it. Shown in the
     * statement; neither a pass nor a failure, and it never breaks compliance.
     */
    WARNING("WARNING"),
    /**
     * The check did not run: it needs what this run does not have (a peer site), or another check's failure is the
     * cause of its own (one defect, one FAIL: the reason names that check). Never a failure, never a pass.
     */
    NOT_RUN("NOT RUN"),
    /**
     * The check does not apply: it judges a service the plugin's Identity does not advertise (a plugin serving only
     * volume groups is not judged on replication). Never a failure, never a pass.
     */
    NOT_APPLICABLE("NOT APPLICABLE");

    private final String label;

    CheckOutcome(String label) {
        this.label = label;
    }

    /** How the console report prints it: PASS, FAIL, NOT IMPLEMENTED, SKIPPED, WARNING, NOT RUN, NOT APPLICABLE. */
    public String label() {
        return label;
    }
}
