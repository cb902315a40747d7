package io.volrep.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ConformanceConfigTest {

    @Test
    void timeoutSettersRejectABadValueAtOnceNamingTheSetting() {
        ConformanceConfig.Builder builder = ConformanceConfig.builder();
        assertThatThrownBy(() -> builder.callTimeout(Duration.ZERO))
                .isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage("callTimeout must be positive: PT0S");
        assertThatThrownBy(() -> builder.resyncTimeout(Duration.ofSeconds(-1)))
                .isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage("resyncTimeout must be positive: PT-1S");
        assertThatThrownBy(() -> builder.callTimeout(null))
                .isExactlyInstanceOf(NullPointerException.class)
                .hasMessage("callTimeout");
    }

    @Test
    void theDefaultsAndAValidSettingAreKept() {
        ConformanceConfig config = ConformanceConfig.builder()
                .endpoint("localhost:1")
                .volumes("vol-0")
                .resyncTimeout(Duration.ofMinutes(2))
                .build();
        assertThat(config.resyncTimeout()).isEqualTo(Duration.ofMinutes(2));
        assertThat(config.callTimeout()).isEqualTo(ConformanceConfig.DEFAULT_CALL_TIMEOUT);
    }
}
