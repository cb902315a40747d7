package io.volrep.cli;

import java.time.Duration;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The options every {@link DriverServeCommand} has: {@code --grace-period} and {@code --metrics-listen}. A picocli
 * mixin, declared last by each command so that the help lists it after the command's own options.
 *
 * <pre>{@code
 * @Mixin
 * ServeOptions serveOptions = serve;      // DriverServeCommand's instance
 * }</pre>
 */
final class ServeOptions {
    @Option(
            names = "--grace-period",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            description = "How long shutdown lets calls in flight finish (default ${DEFAULT-VALUE}).")
    Duration gracePeriod = Duration.ofSeconds(10);

    @Mixin
    MetricsOptions metrics = new MetricsOptions();
}
