package io.volrep.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.volrep.testkit.twosuites.BuggyDriverConformance;
import io.volrep.testkit.twosuites.CorrectDriverConformance;
import io.volrep.testsupport.FileTrees;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two conformance suite classes in one module, a correct driver's and a buggy driver's, run by a real Surefire (the
 * build's own version, in a small Maven project of its own): each suite class's checks must stay its own in the
 * console and in the XML reports, with {@code tests=} counting what each report holds. Before, both suites'
 * "DemoteVolume" containers became one report class: "Run 1: PASS / Run 2: ..." (read as a flaky rerun) and a
 * {@code TEST-DemoteVolume.xml} with 32 test cases but {@code tests="16"}.
 */
class TwoSuitesSurefireIT {
    static final Path PROJECT = Path.of("target", "two-suites");
    static String console;
    static Path reports;

    @BeforeAll
    static void runSurefireOnTwoSuites() throws IOException, InterruptedException {
        String mavenHome = System.getProperty("volrep.maven.home", "");
        assumeTrue(
                !mavenHome.isBlank() && Files.isExecutable(Path.of(mavenHome, "bin", "mvn")),
                "no Maven home passed by the build (volrep.maven.home)");
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Files.createDirectories(PROJECT);
        reports = PROJECT.resolve("target/surefire-reports");
        FileTrees.delete(PROJECT.resolve("target"));
        Files.writeString(PROJECT.resolve("pom.xml"), pom(classpath));
        List<String> command = new ArrayList<>(List.of(
                Path.of(mavenHome, "bin", "mvn").toString(),
                "-B",
                "-f",
                PROJECT.resolve("pom.xml").toAbsolutePath().toString(),
                "-Dmaven.repo.local=" + System.getProperty("volrep.maven.repo.local"),
                "org.apache.maven.plugins:maven-surefire-plugin:" + System.getProperty("volrep.surefire.version")
                        + ":test"));
        if ("offline=true".equals(System.getProperty("volrep.maven.offline"))) { // as the build runs
            command.add(1, "-o");
        }
        Process maven = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(PROJECT.resolve("console.txt").toFile())
                .start();
        assertThat(maven.waitFor(5, TimeUnit.MINUTES))
                .as("Surefire finished within 5 minutes")
                .isTrue();
        console = Files.readString(PROJECT.resolve("console.txt"));
        assertThat(maven.exitValue()).as(console).isZero(); // testFailureIgnore: the buggy suite fails, the run not
    }

    @Test
    void theConsoleNamesTheSuiteClassOfEachGroupAndReportsNoRerun() {
        assertThat(console)
                .as(console)
                .contains("Running " + CorrectDriverConformance.class.getName())
                .contains("Running " + BuggyDriverConformance.class.getName())
                .doesNotContain("Run 1: ")
                .doesNotContain("Flakes:");
        // the failing checks are named with the suite class that failed
        assertThat(console.lines()
                        .filter(l -> l.contains("expected 9 FAILED_PRECONDITION"))
                        .toList())
                .isNotEmpty()
                .allSatisfy(l -> assertThat(l).doesNotContain(CorrectDriverConformance.class.getName()));
        assertThat(console)
                .containsPattern(Pattern.quote(BuggyDriverConformance.class.getName()) + "[^\\n]*DemoteVolume");
    }

    @Test
    void eachSuiteClassHasItsOwnReportWhoseCountsMatchItsTestCases() throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.list(reports)) {
            files = s.filter(p -> p.getFileName().toString().matches("TEST-.*\\.xml"))
                    .sorted()
                    .toList();
        }
        List<String> names = files.stream().map(p -> p.getFileName().toString()).toList();
        assertThat(names)
                .as("report files")
                .anySatisfy(n -> assertThat(n).contains(CorrectDriverConformance.class.getName()))
                .anySatisfy(n -> assertThat(n).contains(BuggyDriverConformance.class.getName()))
                .noneSatisfy(n -> assertThat(n).isEqualTo("TEST-DemoteVolume.xml"));
        int correctFailures = 0;
        int buggyFailures = 0;
        for (Path file : files) {
            String xml = Files.readString(file);
            Matcher suite = Pattern.compile("<testsuite [^>]*").matcher(xml);
            assertThat(suite.find()).isTrue();
            int tests = attribute(suite.group(), "tests");
            int failures = attribute(suite.group(), "failures");
            int cases = count(xml, "<testcase ");
            assertThat(tests).as(file + ": tests= counts its test cases").isEqualTo(cases);
            assertThat(count(xml, "<failure"))
                    .as(file + ": failures= counts its failures")
                    .isEqualTo(failures);
            if (cases == 0) {
                continue; // the suite class's own report: its checks are in its groups' reports
            }
            List<String> classnames = classnames(xml);
            String suiteClass = classnames.get(0).contains(BuggyDriverConformance.class.getName())
                    ? BuggyDriverConformance.class.getName()
                    : CorrectDriverConformance.class.getName();
            assertThat(classnames)
                    .as(file + ": every test case names its suite class")
                    .allSatisfy(c -> assertThat(c).contains(suiteClass));
            if (suiteClass.equals(BuggyDriverConformance.class.getName())) {
                buggyFailures += failures;
            } else {
                correctFailures += failures;
            }
        }
        assertThat(files)
                .as("a report per suite class and group: 2 x (class, DemoteVolume, DemoteVolume (optional))")
                .hasSize(6);
        assertThat(correctFailures).as("the correct driver's reports").isZero();
        assertThat(buggyFailures).as("the buggy driver's reports").isPositive();
    }

    private static List<String> classnames(String xml) {
        List<String> names = new ArrayList<>();
        Matcher m = Pattern.compile("<testcase [^>]*classname=\"([^\"]*)\"").matcher(xml);
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    private static int attribute(String element, String name) {
        Matcher m = Pattern.compile(" " + name + "=\"(\\d+)\"").matcher(element);
        assertThat(m.find()).as(name + " in " + element).isTrue();
        return Integer.parseInt(m.group(1));
    }

    private static int count(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }

    /** A project with no sources of its own: Surefire runs this module's compiled suite classes. */
    private static String pom(String classpath) {
        // JUnit comes from the project's own dependency (Surefire picks its provider from it); the suites from
        // testClassesDirectory
        String elements = Stream.of(classpath.split(File.pathSeparator))
                .filter(e -> !e.isBlank())
                .filter(e -> !e.contains("/org/junit/")
                        && !e.contains("/org/opentest4j/")
                        && !e.contains("/org/apiguardian/")
                        && !e.endsWith("test-classes"))
                .map(e -> "        <additionalClasspathElement>" + xml(e) + "</additionalClasspathElement>")
                .collect(Collectors.joining("\n"));
        return """
                <project xmlns="http://maven.apache.org/POM/4.0.0">
                  <modelVersion>4.0.0</modelVersion>
                  <groupId>io.volrep.it</groupId>
                  <artifactId>two-suites</artifactId>
                  <version>1</version>
                  <properties><project.build.sourceEncoding>UTF-8</project.build.sourceEncoding></properties>
                  <dependencies>
                    <dependency>
                      <groupId>org.junit.jupiter</groupId>
                      <artifactId>junit-jupiter-engine</artifactId>
                      <version>%s</version>
                      <scope>test</scope>
                    </dependency>
                  </dependencies>
                  <build>
                    <plugins>
                      <plugin>
                        <groupId>org.apache.maven.plugins</groupId>
                        <artifactId>maven-surefire-plugin</artifactId>
                        <version>%s</version>
                        <configuration>
                          <testClassesDirectory>%s</testClassesDirectory>
                          <includes>
                            <include>%s</include>
                            <include>%s</include>
                          </includes>
                          <testFailureIgnore>true</testFailureIgnore>
                          <redirectTestOutputToFile>true</redirectTestOutputToFile>
                          <trimStackTrace>true</trimStackTrace>
                          <additionalClasspathElements>
                %s
                          </additionalClasspathElements>
                        </configuration>
                      </plugin>
                    </plugins>
                  </build>
                </project>
                """.formatted(
                        System.getProperty("volrep.junit.version"),
                        System.getProperty("volrep.surefire.version"),
                        xml(Path.of("target", "test-classes").toAbsolutePath().toString()),
                        CorrectDriverConformance.class.getName().replace('.', '/') + ".java",
                        BuggyDriverConformance.class.getName().replace('.', '/') + ".java",
                        elements);
    }

    private static String xml(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;");
    }
}
