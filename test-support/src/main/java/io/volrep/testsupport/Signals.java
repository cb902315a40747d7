package io.volrep.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What tests that signal a child process need to know about this one. A background job of a non-interactive shell
 * ({@code cmd &} in a script, {@code nohup ... &}) starts with SIGINT ignored, and so does every child it starts: a
 * child JVM can then install no INT handler and {@code kill -INT} does nothing to it, whatever the code under test
 * does. A test of SIGINT handling assumes it is not so:
 *
 * <pre>{@code
 * Assumptions.assumeFalse(Signals.sigintIgnored(), Signals.SIGINT_IGNORED);
 * }</pre>
 */
public final class Signals {
    /** Why a SIGINT test is skipped when {@link #sigintIgnored()}. */
    public static final String SIGINT_IGNORED =
            "SIGINT is ignored in this process (started as a background job), hence in its children";

    private Signals() {}

    /** Whether this process ignores SIGINT (bit 2 of {@code SigIgn} in {@code /proc/self/status}; false elsewhere). */
    public static boolean sigintIgnored() {
        Path status = Path.of("/proc/self/status");
        if (!Files.exists(status)) {
            return false;
        }
        try {
            return Files.readAllLines(status).stream()
                    .filter(l -> l.startsWith("SigIgn:"))
                    .findFirst()
                    .map(l -> (Long.parseUnsignedLong(l.substring(7).strip(), 16) & 0x2) != 0)
                    .orElse(false);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
