package io.volrep.api.internal.wire;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * One way a plugin's answer breaks the spec, naming the field: what {@link AnswerRules} lists, and what every layer
 * turns into its own error (the client's {@code ProtocolViolationException}, the runtime's invalid driver answer,
 * the conformance kit's failed check).
 *
 * <pre>{@code
 * for (AnswerProblem p : AnswerRules.info(response)) {
 *     log.warn("{} ({})", p, p.kind());    // "last_sync_bytes: MUST NOT be negative, got -1 (OUT_OF_RANGE)"
 * }
 * }</pre>
 *
 * @param field the field's path in the answer, e.g. {@code replication_destination.volume.volume_id}; the answer's
 *              own name ({@code GetVolumeReplicationInfoResponse}) is left out
 * @param kind what kind of rule it breaks
 * @param detail what is wrong, free of secrets and safe to log (answered text is quoted escaped and shortened)
 */
public record AnswerProblem(String field, Kind kind, String detail) {

    /** What kind of rule an answer breaks. */
    public enum Kind {
        /** A REQUIRED field is missing or empty. */
        MISSING,
        /** A value outside what its type or the spec allows: a Timestamp after 9999, a negative count, an enum number outside the enum. */
        OUT_OF_RANGE,
        /** Over one of CSI's size limits: 128 bytes per identifier, 4 KiB per map. */
        OVER_LIMIT,
        /** Not of the form the spec requires: a name outside domain-name notation, a destination of another kind than its source. */
        MALFORMED
    }

    public AnswerProblem {
        Objects.requireNonNull(field, "field");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(detail, "detail");
    }

    /** {@code "field: detail"}. */
    @Override
    public String toString() {
        return field + ": " + detail;
    }

    /** The problems as one line, {@code "; "} between them, e.g. for an exception's message. */
    public static String describe(List<AnswerProblem> problems) {
        return problems.stream().map(AnswerProblem::toString).collect(Collectors.joining("; "));
    }
}
