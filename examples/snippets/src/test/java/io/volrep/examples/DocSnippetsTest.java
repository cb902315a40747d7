package io.volrep.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps every Java snippet of README.md and docs/ equal to compiled source: a {@code ```java} block must follow
 * a {@code <!-- snippet: Class#region -->} line and hold exactly the imports the region uses, a blank line, and
 * the lines between {@code // snippet:start region} and {@code // snippet:end region} of {@code Class.java} in
 * this package (several such pieces are joined with a blank line; each is dedented). The imports are not marked:
 * they are the source file's imports whose names the region mentions, in the file's order, so a reader who
 * copies a snippet gets every import it needs and none it does not (the file must import single types, no
 * {@code *}). To change a snippet, change the source, then run this test with {@code -Dsnippets.write=true}
 * (it rewrites the docs' blocks) or paste what it prints. Maven snippets must name the build's version.
 */
class DocSnippetsTest {
    static final Path ROOT = Path.of(System.getProperty("volrep.root", "../.."));
    static final Path SOURCES = ROOT.resolve("examples/snippets/src/test/java/io/volrep/examples");
    static final Pattern MARKER = Pattern.compile("<!-- snippet: (\\w+)#([\\w-]+) -->");
    static final Pattern VOLREP_DEPENDENCY = Pattern.compile(
            "<groupId>io\\.volrep</groupId>\\s*<artifactId>([\\w-]+)</artifactId>\\s*(?:<version>([^<]*)</version>)?");
    static final Pattern IMPORT = Pattern.compile("^import\\s+(static\\s+)?([\\w.]+)\\s*;\\s*$");
    static final boolean WRITE = Boolean.getBoolean("snippets.write");

    static List<Path> docs() throws IOException {
        List<Path> docs = new ArrayList<>();
        docs.add(ROOT.resolve("README.md"));
        try (Stream<Path> s = Files.list(ROOT.resolve("docs"))) {
            s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
        }
        return docs;
    }

    @Test
    void everyJavaSnippetIsACompiledRegionWithItsImports() throws IOException {
        List<String> problems = new ArrayList<>();
        int snippets = 0;
        for (Path doc : docs()) {
            List<String> lines = new ArrayList<>(Files.readAllLines(doc));
            boolean rewritten = false;
            for (int i = 0; i < lines.size(); i++) {
                if (!lines.get(i).strip().startsWith("```java")) {
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
                if (!marker.matches() || !lines.get(i).strip().equals("```java")) {
                    problems.add(where + ": a ```java block without a <!-- snippet: Class#region --> line before it"
                            + " (put the code in examples/snippets and mark it)");
                    i = end;
                    continue;
                }
                String expected;
                try {
                    expected = snippet(marker.group(1), marker.group(2));
                } catch (IllegalArgumentException e) {
                    problems.add(where + ": " + e.getMessage());
                    i = end;
                    continue;
                }
                if (!block.equals(expected)) {
                    if (WRITE) {
                        List<String> replacement = expected.lines().toList();
                        lines.subList(i + 1, end).clear();
                        lines.addAll(i + 1, replacement);
                        end = i + 1 + replacement.size();
                        rewritten = true;
                    } else {
                        problems.add(where + ": differs from " + marker.group(1) + "#" + marker.group(2)
                                + "; the compiled source says:\n" + expected);
                    }
                }
                i = end;
            }
            if (rewritten) {
                Files.write(doc, lines);
            }
        }
        assertThat(problems).as("doc snippets").isEmpty();
        assertThat(snippets).as("Java snippets found").isGreaterThanOrEqualTo(16);
    }

    /** Java outside a marked ```java block (an unlabelled fence with Java in it) escapes the check above. */
    @Test
    void noJavaHidesInAnUnlabelledBlock() throws IOException {
        Pattern java = Pattern.compile("^\\s*(import [\\w.]+;|(public |final )*class \\w+|try \\(\\w+ \\w+ = )");
        List<String> problems = new ArrayList<>();
        for (Path doc : docs()) {
            List<String> lines = Files.readAllLines(doc);
            boolean inFence = false;
            String fence = "";
            for (int i = 0; i < lines.size(); i++) {
                String t = lines.get(i).strip();
                if (t.startsWith("```")) {
                    inFence = !inFence;
                    fence = t;
                } else if (inFence
                        && !fence.equals("```java")
                        && java.matcher(lines.get(i)).find()) {
                    problems.add(ROOT.relativize(doc) + ":" + (i + 1) + ": Java in a " + fence + " block");
                }
            }
        }
        assertThat(problems).isEmpty();
    }

    /**
     * Until the first release volrep is not on Maven Central: a user builds it and gets the version this build
     * makes (README.md "Using volrep from Maven"), so every {@code io.volrep} dependency in the docs names
     * exactly that version, or leaves it out in a doc that imports the BOM with it.
     */
    @Test
    void mavenSnippetsNameTheVersionTheBuildMakes() throws IOException {
        String version = System.getProperty("volrep.version");
        assertThat(version).as("volrep.version (set by the pom)").isNotBlank();
        List<String> problems = new ArrayList<>();
        for (Path doc : docs()) {
            String text = Files.readString(doc);
            Matcher m = VOLREP_DEPENDENCY.matcher(text);
            boolean bomImported = false;
            List<String> unversioned = new ArrayList<>();
            while (m.find()) {
                if (m.group(2) == null) {
                    unversioned.add(m.group(1));
                } else if (!m.group(2).equals(version)) {
                    problems.add(ROOT.relativize(doc) + ": " + m.group(1) + " <version>" + m.group(2)
                            + "</version>, but the build makes " + version);
                } else if (m.group(1).equals("replication-bom")) {
                    bomImported = true;
                }
            }
            if (!unversioned.isEmpty() && !bomImported) {
                problems.add(ROOT.relativize(doc) + ": " + unversioned + " without a version, and no replication-bom"
                        + " import with one in the same doc");
            }
        }
        assertThat(problems).isEmpty();
    }

    /** The one-download archive's name carries the version too: {@code volrep-VERSION-linux-x64.tar.gz}. */
    @Test
    void distArchiveNamesCarryTheVersionTheBuildMakes() throws IOException {
        String version = System.getProperty("volrep.version");
        Pattern archive = Pattern.compile("volrep-(\\d[\\w.-]*?)(-linux-x64|/bin/volrep)");
        List<String> problems = new ArrayList<>();
        for (Path doc : docs()) {
            Matcher m = archive.matcher(Files.readString(doc));
            while (m.find()) {
                if (!m.group(1).equals(version)) {
                    problems.add(ROOT.relativize(doc) + ": " + m.group() + ", but the build makes " + version);
                }
            }
        }
        assertThat(problems).isEmpty();
    }

    @Test
    void theReadmeSaysHowToGetTheVersionTheDocsName() throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"));
        String version = System.getProperty("volrep.version");
        if (version.endsWith("-SNAPSHOT")) {
            assertThat(readme).contains("<version>" + version + "</version>").contains("./mvnw -B -DskipTests install");
        }
    }

    /** The snippet a doc shows for {@code className#region}: the imports the region uses, then the region. */
    static String snippet(String className, String region) throws IOException {
        Path source = SOURCES.resolve(className + ".java");
        if (!Files.isRegularFile(source)) {
            throw new IllegalArgumentException("no source " + ROOT.relativize(source));
        }
        List<String> lines = Files.readAllLines(source);
        String body = region(lines, region);
        if (body.isEmpty()) {
            throw new IllegalArgumentException("no region \"" + region + "\" in " + ROOT.relativize(source));
        }
        Set<String> used = identifiers(body);
        List<String> imports = new ArrayList<>();
        for (Map.Entry<String, String> i : imports(lines, source).entrySet()) {
            if (used.contains(i.getKey())) {
                imports.add(i.getValue());
            }
        }
        return imports.isEmpty() ? body : String.join("\n", imports) + "\n\n" + body;
    }

    /** Simple name (or static member) to import line, in the file's order. */
    private static Map<String, String> imports(List<String> lines, Path source) {
        Map<String, String> imports = new LinkedHashMap<>();
        for (String line : lines) {
            Matcher m = IMPORT.matcher(line.strip());
            if (!m.matches()) {
                continue;
            }
            String name = m.group(2);
            if (name.endsWith("*")) {
                throw new IllegalArgumentException(ROOT.relativize(source) + ": \"" + line.strip()
                        + "\": import single types, so that each snippet can show what it uses");
            }
            imports.put(name.substring(name.lastIndexOf('.') + 1), line.strip());
        }
        return imports;
    }

    /** The names a piece of Java mentions outside its comments and literals. */
    static Set<String> identifiers(String java) {
        String code = java.replaceAll("\"(\\\\.|[^\"\\\\])*\"", "\"\"")
                .replaceAll("'(\\\\.|[^'\\\\])'", "''")
                .replaceAll("(?s)/\\*.*?\\*/", " ")
                .replaceAll("//[^\n]*", "");
        Set<String> names = new LinkedHashSet<>();
        Matcher m = Pattern.compile("[A-Za-z_$][\\w$]*").matcher(code);
        while (m.find()) {
            names.add(m.group());
        }
        return names;
    }

    /** The region's pieces, each dedented, joined by a blank line; "" when there is none. */
    static String region(List<String> lines, String region) {
        List<String> pieces = new ArrayList<>();
        List<String> piece = null;
        for (String line : lines) {
            String t = line.strip();
            if (t.equals("// snippet:start " + region)) {
                piece = new ArrayList<>();
            } else if (t.equals("// snippet:end " + region) && piece != null) {
                pieces.add(dedent(piece));
                piece = null;
            } else if (piece != null && !t.startsWith("// snippet:")) {
                piece.add(line);
            }
        }
        return String.join("\n\n", pieces);
    }

    private static String dedent(List<String> lines) {
        int indent = lines.stream()
                .filter(l -> !l.isBlank())
                .mapToInt(l -> l.length() - l.stripLeading().length())
                .min()
                .orElse(0);
        StringBuilder b = new StringBuilder();
        for (String l : lines) {
            b.append(l.isBlank() ? "" : l.substring(indent).stripTrailing()).append('\n');
        }
        return b.toString().stripTrailing();
    }
}
