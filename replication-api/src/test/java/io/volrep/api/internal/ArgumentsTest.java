package io.volrep.api.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.volrep.api.ErrorScheme;
import io.volrep.api.Recovery;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class ArgumentsTest {

    @Test
    void requireNonNullNamesTheFirstNullComponent() {
        assertThatThrownBy(() -> Arguments.requireNonNull("rpc", Rpc.PROMOTE_VOLUME, "condition", null, "code", null))
                .isExactlyInstanceOf(NullPointerException.class)
                .hasMessage("condition");
        Arguments.requireNonNull("rpc", Rpc.PROMOTE_VOLUME, "condition", "x");
    }

    @Test
    void requireNonNullRejectsArgumentsThatAreNotPairs() {
        assertThatThrownBy(() -> Arguments.requireNonNull("rpc", Rpc.PROMOTE_VOLUME, "condition"))
                .isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage("namesAndValues must be pairs of a name and a value: 3 arguments");
        assertThatThrownBy(() -> Arguments.requireNonNull(Rpc.PROMOTE_VOLUME, "rpc"))
                .isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessage("namesAndValues[0] must be a component's name");
    }

    @Test
    void recordsNameTheMissingComponent() {
        assertThatThrownBy(() ->
                        new ErrorScheme.Row(Rpc.PROMOTE_VOLUME, "c", StatusCode.ABORTED, "d", null, Recovery.BACKOFF))
                .isExactlyInstanceOf(NullPointerException.class)
                .hasMessage("recoveryText");
        assertThatThrownBy(() ->
                        new ReplicationInfo(Instant.EPOCH, Optional.of(Duration.ZERO), OptionalLong.empty(), null, ""))
                .isExactlyInstanceOf(NullPointerException.class)
                .hasMessage("status");
    }

    @Test
    void durationChecksNameTheSetting() {
        assertThatThrownBy(() -> Arguments.requirePositive("timeout", Duration.ZERO))
                .hasMessage("timeout must be positive: PT0S");
        assertThat(Arguments.requireNotNegative("delay", Duration.ZERO)).isEqualTo(Duration.ZERO);
    }
}
