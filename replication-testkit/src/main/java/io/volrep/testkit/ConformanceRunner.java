package io.volrep.testkit;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TagFilter;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Runs the conformance suite on the JUnit Platform Launcher, outside any build tool: what
 * {@code volrep conformance} does. Selects the suite class directly (no classpath scanning), so it works
 * from a shaded jar.
 *
 * <pre>{@code
 * ComplianceReport report = ConformanceRunner.of(config)
 *         .progress(new PrintWriter(System.out, true))   // one line per check
 *         .reportsDir(Path.of("target/conformance"))       // JUnit XML
 *         .includeTags("required")
 *         .run();
 * }</pre>
 */
public final class ConformanceRunner {
    private final ConformanceConfig config;
    private PrintWriter progress;
    private Path reportsDir;
    private final List<String> includeTags = new ArrayList<>();

    private ConformanceRunner(ConformanceConfig config) {
        this.config = Objects.requireNonNull(config, "config");
    }

    /**
     * A runner for {@code config}, to set options on and {@link #run()}.
     *
     * <pre>{@code
     * ComplianceReport report = ConformanceRunner.of(config).includeTags("required").run();
     * }</pre>
     */
    public static ConformanceRunner of(ConformanceConfig config) {
        return new ConformanceRunner(config);
    }

    /** Print one line per check to {@code out}. */
    public ConformanceRunner progress(PrintWriter out) {
        this.progress = out;
        return this;
    }

    /**
     * Write JUnit XML (the Ant/Surefire format CI servers read) into {@code dir}: one file per check group, each
     * test case named after its check, its class after the group.
     */
    public ConformanceRunner reportsDir(Path dir) {
        this.reportsDir = dir;
        return this;
    }

    /** Run only the checks with these tags: {@code required}, {@code optional}. */
    public ConformanceRunner includeTags(String... tags) {
        return includeTags(List.of(tags));
    }

    /** Run only the checks with these tags. */
    public ConformanceRunner includeTags(List<String> tags) {
        this.includeTags.addAll(tags);
        return this;
    }

    /** Runs the suite and returns the report. */
    public ComplianceReport run() {
        boolean optionalToo = includeTags.isEmpty() || includeTags.contains(Requirement.OPTIONAL.tag());
        String key = ConfiguredConformanceSuite.register(config, optionalToo);
        long start = System.nanoTime();
        try {
            LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request()
                    .selectors(selectClass(ConfiguredConformanceSuite.class))
                    .configurationParameter(ConfiguredConformanceSuite.CONFIG_PARAMETER, key);
            if (!includeTags.isEmpty()) {
                request.filters(TagFilter.includeTags(includeTags));
            }
            LauncherDiscoveryRequest discovery = request.build();
            List<Check> checks = ConformanceChecks.all().stream()
                    .flatMap(g -> g.checks(config).stream())
                    .toList();
            ConformanceListener listener = new ConformanceListener(
                    progress, checks, config.secrets(), () -> ConfiguredConformanceSuite.times(key));
            Launcher launcher = LauncherFactory.create();
            launcher.execute(discovery, listener);
            ComplianceReport report = ComplianceReport.builder()
                    .target(config.targetDescription())
                    .results(listener.results())
                    .duration(Duration.ofNanos(System.nanoTime() - start))
                    .walk(ConfiguredConformanceSuite.explored(key))
                    .calls(ConfiguredConformanceSuite.calls(key))
                    .requireAll(config.requireAll())
                    .requiredLeftOut(
                            includeTags.isEmpty() || includeTags.contains(Requirement.REQUIRED.tag())
                                    ? 0
                                    : (int) checks.stream()
                                            .filter(c -> c.requirement() == Requirement.REQUIRED)
                                            .count(),
                            "--include-tag " + String.join(" --include-tag ", includeTags))
                    .build();
            if (reportsDir != null) {
                JUnitXmlReport.write(report, reportsDir);
            }
            return report;
        } finally {
            ConfiguredConformanceSuite.unregister(key);
        }
    }
}
