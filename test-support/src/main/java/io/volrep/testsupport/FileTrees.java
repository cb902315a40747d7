package io.volrep.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Directories that tests empty before they run, when the path is fixed by what they test (a report directory a
 * snippet names, a generated project's {@code target}) and a {@code @TempDir} cannot stand in for it:
 *
 * <pre>{@code
 * FileTrees.delete(Path.of("target/conformance")); // an earlier build's reports must not pass for this run's
 * }</pre>
 */
public final class FileTrees {
    private FileTrees() {}

    /** Deletes {@code root} and everything below it; nothing when it does not exist. A file that cannot go throws. */
    public static void delete(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> files = Files.walk(root)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
