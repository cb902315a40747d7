package io.volrep.testkit;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.opentest4j.TestAbortedException;

/**
 * The CSI-Addons replication conformance suite as a JUnit 5 test class: extend it, say what to test and
 * with which fixtures, and run it with Surefire, Gradle or any JUnit Platform launcher.
 *
 * <pre>{@code
 * public class MyDriverConformanceTest extends ReplicationConformanceSuite {
 *     @Override
 *     protected ConformanceConfig config() {
 *         return ConformanceConfig.builder()
 *                 .driver(new MyDriver())                 // served in-process by the real SPI runtime
 *                 .volumes("vol-a", "vol-b")              // existing, replication disabled
 *                 .secrets(Map.of("user", "admin"))
 *                 .build();
 *     }
 * }
 * }</pre>
 *
 * <p>Every check is a dynamic test named after the spec row it verifies, inside a container per RPC (or
 * topic), under one of two factories tagged {@code required} and {@code optional}. A plugin answering
 * 12 UNIMPLEMENTED where the spec allows it gets aborted checks whose message starts with
 * {@value ConformanceContext#NOT_IMPLEMENTED_PREFIX}: "not implemented", never passed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
public abstract class ReplicationConformanceSuite {

    private ConformanceSession session;

    /** What to test and the fixtures to use. Called once, before any check. */
    protected abstract ConformanceConfig config();

    /** The check groups to run; by default {@link ConformanceChecks#all()}. */
    protected List<CheckGroup> checkGroups() {
        return ConformanceChecks.all();
    }

    @BeforeAll
    protected final void startConformanceTarget() {
        session = ConformanceSession.open(config());
        timesRecorded(session.times());
    }

    @AfterAll
    protected final void stopConformanceTarget() {
        if (session != null) {
            sessionClosing(session.calls(), session.explored());
            session.close();
        }
    }

    /** Called once before the session closes, with the number of calls the run sent and what it explored. */
    void sessionClosing(long calls, String explored) {}

    /** Called once the session is open with its live record of how long each check ran and polled. */
    void timesRecorded(CheckTimes times) {}

    /** The checks of what the spec says MUST, and of the codes its error tables fix. */
    @TestFactory
    @Tag("required")
    @Order(1)
    @DisplayName("required")
    public final Stream<DynamicNode> required() {
        return nodes(Requirement.REQUIRED);
    }

    /** The checks of what the spec says SHOULD or MAY. */
    @TestFactory
    @Tag("optional")
    @Order(2)
    @DisplayName("optional")
    public final Stream<DynamicNode> optional() {
        return nodes(Requirement.OPTIONAL);
    }

    /**
     * True when the optional checks run too in this launch, so that they are queued with the required ones and run
     * beside them; otherwise (a launcher filtering on tags) they are queued when their factory runs.
     */
    boolean optionalChecksRunToo() {
        return false;
    }

    private Stream<DynamicNode> nodes(Requirement requirement) {
        ConformanceConfig config = session.config();
        List<Check> all =
                checkGroups().stream().flatMap(g -> g.checks(config).stream()).toList();
        // Queue every check of this level at once: they run several at a time, each on fixtures of its own, while
        // the dynamic tests below report them in order.
        session.submit(all.stream()
                .filter(c -> c.requirement() == requirement
                        || (requirement == Requirement.REQUIRED && optionalChecksRunToo()))
                .toList());
        return checkGroups().stream().flatMap(group -> {
            List<DynamicNode> tests = group.checks(config).stream()
                    .filter(check -> check.requirement() == requirement)
                    .map(check -> (DynamicNode) DynamicTest.dynamicTest(check.name(), checkSource(check), () -> {
                        if (config.skipped(check)) {
                            throw new TestAbortedException(
                                    ConformanceContext.SKIPPED_PREFIX + ON_REQUEST + check.id() + ")");
                        }
                        session.run(check);
                    }))
                    .toList();
            // Sources for Surefire's report: the group container is a "class" named as it is displayed (one report
            // file per suite class, group and level), each check a URI source (neither class nor method), so
            // Surefire names the test case after the check and its class after the suite and the group instead of
            // "required()[2][9]". Surefire takes a check's class from its container's display name: both must
            // carry the suite class, or two suite classes' checks merge into one report ("Run 1: ... Run 2: PASS").
            String container = reportedClassName(getClass(), containerName(group.name(), requirement));
            return tests.isEmpty()
                    ? Stream.empty()
                    : Stream.of(DynamicContainer.dynamicContainer(container, uri("class", container), tests.stream()));
        });
    }

    /** What a runner without the JUnit Platform is told (see {@link #testRequiresTheJUnitPlatform()}). */
    static final String NO_JUNIT_PLATFORM = "volrep's conformance suite is a JUnit 5 (JUnit Platform) test class,"
            + " and this runner is not the JUnit Platform: no check ran. With Maven, use maven-surefire-plugin"
            + " 3.x (Maven 3 defaults to 2.12, which runs 0 tests of it and reports success); with Gradle,"
            + " useJUnitPlatform(). See docs/vendor-ci.md.";

    /**
     * Fails loudly where the suite would otherwise pass silently. The JUnit Platform never runs this method (it
     * has no {@code @Test}); Surefire 2.12's default provider, which knows nothing of JUnit 5, runs every public
     * {@code test*} method of a {@code *Test} class as a plain-Java test, so a vendor's
     * {@code AcmeConformanceTest} on Maven's default Surefire fails here instead of reporting 0 tests and
     * BUILD SUCCESS.
     */
    public final void testRequiresTheJUnitPlatform() {
        throw new AssertionError(NO_JUNIT_PLATFORM);
    }

    /** The reason prefix (after {@value ConformanceContext#SKIPPED_PREFIX}) of a check skipped on request. */
    static final String ON_REQUEST = "on request (--skip ";

    /** The suffix of an optional group's container: {@code "PromoteVolume (optional)"}. */
    static final String OPTIONAL_SUFFIX = " (optional)";

    /** The group's container (and reported class) name: the group's, marked when it holds optional checks. */
    static String containerName(String group, Requirement requirement) {
        return requirement == Requirement.OPTIONAL ? group + OPTIONAL_SUFFIX : group;
    }

    /**
     * The class a group's container is reported as: the suite class's name, a dot and the container's name, e.g.
     * {@code com.acme.AcmeConformanceTest.PromoteVolume}. With the suite class in it, two suite classes of one
     * module (a correct and a buggy driver) stay apart in Surefire's console, its report files and its counts.
     */
    static String reportedClassName(Class<?> suite, String container) {
        return suite.getName() + "." + container;
    }

    /**
     * The container name ({@link #containerName}) in a group container's display name: what follows the suite
     * class's name, found as the nearest enclosing class node of {@code container} in {@code plan}.
     */
    static String containerName(TestPlan plan, TestIdentifier container) {
        String display = container.getDisplayName();
        for (Optional<TestIdentifier> p = plan.getParent(container); p.isPresent(); p = plan.getParent(p.get())) {
            Optional<String> suite = p.get()
                    .getSource()
                    .filter(ClassSource.class::isInstance)
                    .map(source -> ((ClassSource) source).getClassName());
            if (suite.isPresent()) {
                String prefix = suite.get() + ".";
                return display.startsWith(prefix) ? display.substring(prefix.length()) : display;
            }
        }
        return display;
    }

    /** {@code volrep:check/<id>}: the check's test source. */
    static URI checkSource(Check check) {
        return uri("volrep", "check/" + check.id());
    }

    private static URI uri(String scheme, String part) {
        try {
            return new URI(scheme, part, null);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(scheme + ":" + part, e);
        }
    }
}
