package io.volrep.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import picocli.CommandLine;

/**
 * The CLI's one converter for positive durations: ISO-8601 ({@code PT30S}, {@code PT5M}) or the short forms
 * {@code 250ms}, {@code 2s}, {@code 1m} ({@link #parse}).
 */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
        Duration d;
        try {
            d = parse(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(
                    "not a duration: \"" + value + "\" (use 250ms, 30s, 2m or ISO-8601 such as PT30S)");
        }
        if (d.isNegative() || d.isZero()) {
            throw new CommandLine.TypeConversionException("'" + value + "' must be a positive duration");
        }
        return d;
    }

    /**
     * A duration as the command line writes it: {@code 250ms}, {@code 2s}, {@code 1m}, {@code 0}, or ISO-8601
     * ({@code PT0.25S}).
     */
    static Duration parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        try {
            if (t.startsWith("pt") || t.startsWith("p")) {
                return Duration.parse(text.trim());
            }
            if (t.endsWith("ms")) {
                return Duration.ofMillis(
                        Long.parseLong(t.substring(0, t.length() - 2).trim()));
            }
            if (t.endsWith("s")) {
                return Duration.ofMillis(Math.round(
                        Double.parseDouble(t.substring(0, t.length() - 1).trim()) * 1000));
            }
            if (t.endsWith("m")) {
                return Duration.ofSeconds(
                        Long.parseLong(t.substring(0, t.length() - 1).trim()) * 60);
            }
            if (t.equals("0")) {
                return Duration.ZERO;
            }
        } catch (NumberFormatException | DateTimeParseException e) {
            // fall through to the message below
        }
        throw new IllegalArgumentException("not a duration: \"" + text + "\" (use 250ms, 2s, 1m or PT0.25S)");
    }
}
