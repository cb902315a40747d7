package io.volrep.testkit;

import io.volrep.api.ErrorScheme;
import io.volrep.api.StatusCode;

/** What the error tables say about an answer a check did not expect, appended to the check's failure message. */
final class TableNotes {
    private TableNotes() {}

    /**
     * Why an unexpected code is wrong beyond "not the expected one": outside the table, 14 that never settled, or
     * 10 ABORTED with nothing pending from the suite ({@code sequential}: the check sends one call at a time). Empty
     * when there is nothing more to say.
     */
    static String note(ErrorScheme scheme, Outcome outcome, boolean sequential) {
        if (outcome.code() == StatusCode.UNIMPLEMENTED && !scheme.lists(outcome.rpc(), StatusCode.UNIMPLEMENTED)) {
            return " (the spec does not allow " + outcome.rpc().methodName() + " to be unimplemented)";
        }
        if (outcome.code() != StatusCode.OK
                && !scheme.lists(outcome.rpc(), outcome.code())
                && !ErrorScheme.TRANSPORT_BACKOFF_CODES.contains(outcome.code())) {
            return " (" + outcome.code().display() + " is not a row of "
                    + outcome.rpc().methodName() + "'s table)";
        }
        if (outcome.code() == StatusCode.UNAVAILABLE && scheme.lists(outcome.rpc(), StatusCode.UNAVAILABLE)) {
            return " (14 UNAVAILABLE says the answer is not known yet, which is transient: the plugin must answer once"
                    + " it knows, and it kept answering 14 for the whole settle timeout)";
        }
        if (outcome.code() == StatusCode.ABORTED && sequential) {
            return " (10 ABORTED means an operation is pending, but the previous call on it had been answered and"
                    + " the plugin kept answering 10 for the whole settle timeout: nothing was pending from the suite)";
        }
        return "";
    }
}
