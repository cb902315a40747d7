package io.volrep.api.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.api.Secrets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SafeTextTest {

    @Test
    void aForgedLogLineStaysOnOneLine() {
        String forged = "vol-1\n2026-11-23 INFO CallRunner - DisableVolumeReplication volume vol-9 -> OK";
        String escaped = SafeText.escape(forged);
        assertThat(escaped).doesNotContain("\n").startsWith("vol-1\\n2026-11-23 INFO");
        assertThat(SafeText.escape("a\rb\tc")).isEqualTo("a\\rb\\tc");
    }

    @Test
    void terminalEscapesAndBidiControlsAreShownNotInterpreted() {
        assertThat(SafeText.escape("\u001b[2J\u001b[31mred")).isEqualTo("\\u001b[2J\\u001b[31mred");
        assertThat(SafeText.escape("\u0085next\u009bx\u007f")).isEqualTo("\\u0085next\\u009bx\\u007f");
        assertThat(SafeText.escape("abc\u202edcba\u2066")).isEqualTo("abc\\u202edcba\\u2066");
        assertThat(SafeText.escape("line\u2028sep")).isEqualTo("line\\u2028sep");
    }

    @Test
    void backslashesAreDoubledSoTheEscapedFormIsUnambiguous() {
        assertThat(SafeText.escape("a\\nb")).isEqualTo("a\\\\nb");
        assertThat(SafeText.escape("a\nb")).isNotEqualTo(SafeText.escape("a\\nb"));
    }

    @Test
    void printableTextIsReturnedAsIs() {
        String text = "volume pvc-\u00e9\u20ac\uD83D\uDE00 / grp_7";
        assertThat(SafeText.escape(text)).isSameAs(text);
        assertThat(SafeText.isSafe(text)).isTrue();
        assertThat(SafeText.isSafe("x\ny")).isFalse();
        assertThat(SafeText.escape(null)).isNull();
    }

    @Test
    void secretsScrubTheirOwnValuesOfThreeOrMoreCharacters() {
        Secrets secrets = Secrets.of(Map.of("password", "s3cret", "pin", "42"));
        assertThat(secrets.scrub("login failed for s3cret (pin 42)")).isEqualTo("login failed for *** (pin 42)");
        assertThat(secrets.scrub(null)).isNull();
        assertThat(Secrets.empty().scrub("s3cret")).isEqualTo("s3cret");
    }
}
