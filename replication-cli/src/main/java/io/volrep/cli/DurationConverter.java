package io.volrep.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import picocli.CommandLine;

/** Parses ISO-8601 durations such as {@code PT30S} or {@code PT5M} for picocli options. */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
        try {
            Duration d = Duration.parse(value);
            if (d.isNegative() || d.isZero()) {
                throw new CommandLine.TypeConversionException("'" + value + "' must be a positive duration");
            }
            return d;
        } catch (DateTimeParseException e) {
            throw new CommandLine.TypeConversionException(
                    "'" + value + "' is not an ISO-8601 duration (examples: PT30S, PT5M, PT1H)");
        }
    }
}
