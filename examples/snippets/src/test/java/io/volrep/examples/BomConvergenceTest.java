package io.volrep.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The BOM pins the third-party versions volrep-parent converges on, so that a consumer's dependencyConvergence
 * holds too (the BOM has no parent: the two lists are kept equal here).
 */
class BomConvergenceTest {
    static final Pattern MANAGED = Pattern.compile("<groupId>(com\\.google[\\w.]*)</groupId>\\s*<artifactId>([\\w-]+)"
            + "</artifactId>\\s*<version>([^<$]+)</version>");

    static Map<String, String> managed(Path pom) throws IOException {
        Map<String, String> versions = new LinkedHashMap<>();
        Matcher m = MANAGED.matcher(Files.readString(pom));
        while (m.find()) {
            versions.put(m.group(1) + ":" + m.group(2), m.group(3));
        }
        return versions;
    }

    @Test
    void theBomPinsWhatTheParentConvergesOn() throws IOException {
        Map<String, String> parent = managed(DocSnippetsTest.ROOT.resolve("pom.xml"));
        Map<String, String> bom = managed(DocSnippetsTest.ROOT.resolve("replication-bom/pom.xml"));
        assertThat(parent).containsEntry("com.google.j2objc:j2objc-annotations", "3.1");
        assertThat(bom).isEqualTo(parent);
    }
}
