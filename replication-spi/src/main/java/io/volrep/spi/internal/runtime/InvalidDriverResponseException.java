package io.volrep.spi.internal.runtime;

import io.volrep.api.internal.wire.AnswerProblem;
import java.util.List;

/**
 * Thrown by the runtime and the exec bridge (never by drivers) when a driver's answer breaks the spec: no answer
 * at all, or one that breaks the {@linkplain io.volrep.api.internal.wire.AnswerRules answer rules} (a {@code last_sync_time}
 * outside protobuf's range, a destination id over 128 bytes, a NodeHealer answer without its message). Answered
 * UNKNOWN "driver returned an invalid response: ...".
 *
 * <pre>{@code
 * InvalidDriverResponseException.requireNoProblems("", AnswerRules.of(rpc, answer, source.kind()));
 * }</pre>
 */
public final class InvalidDriverResponseException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public InvalidDriverResponseException(String message) {
        super(message);
    }

    /**
     * The runtime's side of the answer rules: a driver's answer with problems is an invalid driver answer.
     *
     * @param prefix put before the problems in the message, e.g. which driver answered; may be empty
     * @throws InvalidDriverResponseException listing every problem, each naming its field
     */
    public static void requireNoProblems(String prefix, List<AnswerProblem> problems) {
        if (!problems.isEmpty()) {
            throw new InvalidDriverResponseException(prefix + AnswerProblem.describe(problems));
        }
    }
}
