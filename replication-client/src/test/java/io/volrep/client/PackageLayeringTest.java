package io.volrep.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The reconcile package builds on the client, never the other way round: a class of {@code io.volrep.client} that
 * named {@code io.volrep.client.reconcile} would make the two packages one tangle (a change to either would be a
 * change to both).
 */
class PackageLayeringTest {
    private static final Path CLIENT_SOURCES = Path.of("src/main/java/io/volrep/client");

    @Test
    void theClientPackageDoesNotKnowTheReconcilePackage() throws IOException {
        assertThat(CLIENT_SOURCES).isDirectory();
        List<String> offenders;
        try (Stream<Path> files = Files.list(CLIENT_SOURCES)) {
            offenders = files.filter(f -> f.toString().endsWith(".java"))
                    .filter(f -> read(f).contains("io.volrep.client.reconcile"))
                    .map(f -> f.getFileName().toString())
                    .sorted()
                    .toList();
        }
        assertThat(offenders)
                .as("classes of io.volrep.client that name io.volrep.client.reconcile")
                .isEmpty();
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
