package io.volrep.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The CLI's durations: the short forms and ISO-8601, zero where an option allows it, positive for the converter. */
class DurationConverterTest {

    @Test
    void shortFormsAndIso8601() {
        assertThat(DurationConverter.parse("250ms")).isEqualTo(Duration.ofMillis(250));
        assertThat(DurationConverter.parse("2s")).isEqualTo(Duration.ofSeconds(2));
        assertThat(DurationConverter.parse("0.5s")).isEqualTo(Duration.ofMillis(500));
        assertThat(DurationConverter.parse("1m")).isEqualTo(Duration.ofMinutes(1));
        assertThat(DurationConverter.parse("0")).isZero();
        assertThat(DurationConverter.parse("PT0.25S")).isEqualTo(Duration.ofMillis(250));
        assertThatThrownBy(() -> DurationConverter.parse("soon"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("not a duration: \"soon\" (use 250ms, 2s, 1m or PT0.25S)");
    }

    @Test
    void theConverterWantsAPositiveDuration() {
        DurationConverter converter = new DurationConverter();
        assertThat(converter.convert("30s")).isEqualTo(Duration.ofSeconds(30));
        assertThatThrownBy(() -> converter.convert("0"))
                .isInstanceOf(CommandLine.TypeConversionException.class)
                .hasMessage("'0' must be a positive duration");
        assertThatThrownBy(() -> converter.convert("soon"))
                .isInstanceOf(CommandLine.TypeConversionException.class)
                .hasMessageContaining("not a duration: \"soon\"");
    }
}
