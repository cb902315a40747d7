package io.volrep.cli;

import io.volrep.testkit.reference.ReferencePlugin;
import java.time.Duration;
import picocli.CommandLine;

/**
 * The CLI's one converter for positive durations: ISO-8601 ({@code PT30S}, {@code PT5M}) or the short forms
 * {@code 250ms}, {@code 2s}, {@code 1m} (parsed by {@link ReferencePlugin#parseDuration}).
 */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
        Duration d;
        try {
            d = ReferencePlugin.parseDuration(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException("not a duration: \"" + value
                    + "\" (use 250ms, 30s, 2m or ISO-8601 such as PT30S)");
        }
        if (d.isNegative() || d.isZero()) {
            throw new CommandLine.TypeConversionException("'" + value + "' must be a positive duration");
        }
        return d;
    }
}
