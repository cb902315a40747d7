package io.volrep.testkit.fake;

import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import java.time.Duration;
import java.time.Instant;

/**
 * One call a {@link FakePlugin} answered.
 *
 * <pre>{@code
 * RecordedCall last = fake.calls(Rpc.PROMOTE_VOLUME).get(0);
 * assertThat(last.code()).isEqualTo(StatusCode.ABORTED);
 * assertThat(last.request()).contains("volume_id: \"pvc-1\"").doesNotContain("admin");
 * }</pre>
 *
 * @param rpc the method
 * @param request the request in protobuf text format, every secret masked ({@code ***}); empty if none arrived
 * @param code the status the caller received
 * @param message the status description
 * @param injected true when the fake's script produced the status (a {@code failNext} or a refusal window), not the
 *                 driver
 * @param started when the call arrived
 * @param finished when it was answered
 */
public record RecordedCall(
        Rpc rpc, String request, StatusCode code, String message, boolean injected, Instant started, Instant finished) {

    /** How long the call took, including injected latency. */
    public Duration duration() {
        return Duration.between(started, finished);
    }
}
