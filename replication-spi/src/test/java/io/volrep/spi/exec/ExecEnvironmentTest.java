package io.volrep.spi.exec;

import static io.volrep.spi.exec.ExecHarness.driverScript;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.grpc.Status;
import io.volrep.testsupport.GrpcCleanup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A driver gets only the environment it needs: the minimal set ({@link ExecDriver#DEFAULT_PASSED_ENVIRONMENT}),
 * the names passed on purpose ({@code passEnvironment}, {@code --pass-env}) and the values configured
 * ({@code environment}, {@code --env}); nothing else of the server's environment (credentials a server was started
 * with, say).
 */
class ExecEnvironmentTest {
    @RegisterExtension
    final GrpcCleanup grpc = new GrpcCleanup();

    /** What a shell sets by itself, whatever it was given. */
    static final Set<String> SHELL_OWN = Set.of("PWD", "OLDPWD", "SHLVL", "_");

    @TempDir
    Path dir;

    private Map<String, String> driversEnvironment(ExecDriver.Builder builder) throws Exception {
        Path out = dir.resolve("env-" + System.nanoTime());
        Path driver = driverScript(dir, "env > '" + out + "'; echo '{\"status\":\"Success\"}'");
        ExecHarness h =
                grpc.register(ExecHarness.inProcess(builder.executable(driver).build()));
        assertThat(h.enable("vol-0").getCode()).isEqualTo(Status.Code.OK);
        return Files.readAllLines(out).stream()
                .filter(l -> l.indexOf('=') > 0)
                .collect(Collectors.toMap(
                        l -> l.substring(0, l.indexOf('=')), l -> l.substring(l.indexOf('=') + 1), (a, b) -> a));
    }

    @Test
    void onlyTheMinimalSetThePassedNamesAndTheConfiguredValuesReachTheDriver() throws Exception {
        Set<String> others = new TreeSet<>(System.getenv().keySet());
        others.removeAll(ExecDriver.DEFAULT_PASSED_ENVIRONMENT);
        others.removeAll(SHELL_OWN);
        assumeThat(others)
                .as("the test's own environment has variables outside the minimal set")
                .isNotEmpty();
        String passed = others.iterator().next();

        Map<String, String> seen =
                driversEnvironment(ExecDriver.builder().environment("MY_DRIVER_CONFIG", "/etc/my-driver.conf"));

        Set<String> leaked = new HashSet<>(seen.keySet());
        leaked.retainAll(others);
        assertThat(leaked).as("server variables outside the allow-list").isEmpty();
        assertThat(seen).containsEntry("MY_DRIVER_CONFIG", "/etc/my-driver.conf");
        for (String name : ExecDriver.DEFAULT_PASSED_ENVIRONMENT) {
            if (System.getenv(name) != null) {
                assertThat(seen).containsEntry(name, System.getenv(name));
            }
        }
        assertThat(seen).containsKey("PATH");

        Map<String, String> withPassed = driversEnvironment(ExecDriver.builder().passEnvironment(passed));
        assertThat(withPassed).containsEntry(passed, System.getenv(passed));
        assertThat(withPassed.keySet())
                .doesNotContainAnyElementsOf(
                        others.stream().filter(n -> !n.equals(passed)).toList());
    }
}
