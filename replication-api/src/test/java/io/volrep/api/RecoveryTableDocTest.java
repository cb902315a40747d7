package io.volrep.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/recovery-table.md is generated from the ErrorScheme; this fails the build when they differ. */
class RecoveryTableDocTest {
    static final Path DOC = Path.of("..", "docs", "recovery-table.md");

    @Test
    void docMatchesTheTable() throws IOException {
        String expected = ErrorScheme.spec().toMarkdown();
        if (Boolean.getBoolean("volrep.regenerateDocs")) {
            Files.writeString(DOC, expected, StandardCharsets.UTF_8);
        }
        assertThat(Files.exists(DOC))
                .as("%s exists (regenerate with -Dvolrep.regenerateDocs=true)", DOC)
                .isTrue();
        assertThat(Files.readString(DOC, StandardCharsets.UTF_8))
                .as("docs/recovery-table.md is stale: regenerate with "
                        + "./mvnw -pl replication-api test -Dtest=RecoveryTableDocTest -Dvolrep.regenerateDocs=true")
                .isEqualTo(expected);
        assertThat(expected).contains("| Missing required field | 3 INVALID_ARGUMENT | `FIX_REQUEST` |");
    }
}
