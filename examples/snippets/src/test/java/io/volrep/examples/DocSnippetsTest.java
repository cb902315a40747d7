package io.volrep.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps every Java snippet of README.md and docs/ equal to compiled source: a {@code ```java} block must follow
 * a {@code <!-- snippet: Class#region -->} line and hold exactly the lines between {@code // snippet:start region}
 * and {@code // snippet:end region} of {@code Class.java} in this package (several such pieces are joined with a
 * blank line; each is dedented). To change a snippet, change the source, then paste the region into the doc;
 * this test prints the expected text when they differ. Maven snippets must name the version being released.
 */
class DocSnippetsTest {
    static final Path ROOT = Path.of(System.getProperty("volrep.root", "../.."));
    static final Path SOURCES = ROOT.resolve("examples/snippets/src/test/java/io/volrep/examples");
    static final Pattern MARKER = Pattern.compile("<!-- snippet: (\\w+)#([\\w-]+) -->");
    static final Pattern VOLREP_VERSION = Pattern.compile(
            "<groupId>io\\.volrep</groupId>\\s*<artifactId>[\\w-]+</artifactId>\\s*<version>([^<]*)</version>");

    static List<Path> docs() throws IOException {
        List<Path> docs = new ArrayList<>();
        docs.add(ROOT.resolve("README.md"));
        try (Stream<Path> s = Files.list(ROOT.resolve("docs"))) {
            s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
        }
        return docs;
    }

    @Test
    void everyJavaSnippetIsACompiledRegion() throws IOException {
        List<String> problems = new ArrayList<>();
        int snippets = 0;
        for (Path doc : docs()) {
            List<String> lines = Files.readAllLines(doc);
            for (int i = 0; i < lines.size(); i++) {
                if (!lines.get(i).strip().equals("```java")) {
                    continue;
                }
                snippets++;
                String where = ROOT.relativize(doc) + ":" + (i + 1);
                int end = i + 1;
                while (end < lines.size() && !lines.get(end).strip().equals("```")) {
                    end++;
                }
                String block = String.join("\n", lines.subList(i + 1, end)).stripTrailing();
                Matcher marker = i > 0 ? MARKER.matcher(lines.get(i - 1).strip()) : MARKER.matcher("");
                if (!marker.matches()) {
                    problems.add(where + ": a ```java block without a <!-- snippet: Class#region --> line before it"
                            + " (put the code in examples/snippets and mark it)");
                    continue;
                }
                String expected;
                try {
                    expected = region(marker.group(1), marker.group(2));
                } catch (IllegalArgumentException e) {
                    problems.add(where + ": " + e.getMessage());
                    continue;
                }
                if (!block.equals(expected)) {
                    problems.add(where + ": differs from " + marker.group(1) + "#" + marker.group(2)
                            + "; the compiled source says:\n" + expected);
                }
                i = end;
            }
        }
        assertThat(problems).as("doc snippets").isEmpty();
        assertThat(snippets).as("Java snippets found").isGreaterThanOrEqualTo(16);
    }

    @Test
    void mavenSnippetsNameTheVersionBeingReleased() throws IOException {
        String release = System.getProperty("volrep.version", "0.1.0-SNAPSHOT").replace("-SNAPSHOT", "");
        List<String> problems = new ArrayList<>();
        for (Path doc : docs()) {
            Matcher m = VOLREP_VERSION.matcher(Files.readString(doc));
            while (m.find()) {
                if (!m.group(1).equals(release)) {
                    problems.add(ROOT.relativize(doc) + ": <version>" + m.group(1) + "</version>, expected "
                            + release);
                }
            }
        }
        assertThat(problems).isEmpty();
    }

    /** The region's pieces, each dedented, joined by a blank line. */
    static String region(String className, String region) throws IOException {
        Path source = SOURCES.resolve(className + ".java");
        if (!Files.isRegularFile(source)) {
            throw new IllegalArgumentException("no source " + ROOT.relativize(source));
        }
        List<String> pieces = new ArrayList<>();
        List<String> piece = null;
        for (String line : Files.readAllLines(source)) {
            String t = line.strip();
            if (t.equals("// snippet:start " + region)) {
                piece = new ArrayList<>();
            } else if (t.equals("// snippet:end " + region) && piece != null) {
                pieces.add(dedent(piece));
                piece = null;
            } else if (piece != null) {
                piece.add(line);
            }
        }
        if (pieces.isEmpty()) {
            throw new IllegalArgumentException("no region \"" + region + "\" in " + ROOT.relativize(source));
        }
        return String.join("\n\n", pieces);
    }

    private static String dedent(List<String> lines) {
        int indent = lines.stream().filter(l -> !l.isBlank())
                .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
        StringBuilder b = new StringBuilder();
        for (String l : lines) {
            b.append(l.isBlank() ? "" : l.substring(indent).stripTrailing()).append('\n');
        }
        return b.toString().stripTrailing();
    }
}
