package io.volrep.testsupport;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * What a piece of code writes to {@code System.err} (where slf4j-simple, the tests' binding, logs), for tests that
 * assert on log lines.
 *
 * <pre>{@code
 * String logs = CapturedStderr.during(() -> client.volume("vol-0").enable().call());
 * assertThat(logs).contains("EnableVolumeReplication volume vol-0 -> OK").doesNotContain("SO_KEEPALIVE");
 * }</pre>
 */
public final class CapturedStderr {
    private CapturedStderr() {}

    /** Code to run while stderr is captured. */
    @FunctionalInterface
    public interface Action {
        /** Runs the code; may throw. */
        void run() throws Exception;
    }

    /**
     * Runs {@code action} with {@code System.err} captured, restores it, and returns what was written, whether
     * or not the action threw (a throw is rethrown, with the capture lost).
     */
    public static String during(Action action) throws Exception {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            action.run();
        } finally {
            System.setErr(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
