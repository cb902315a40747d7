package io.volrep.spi.exec;

import com.google.gson.JsonElement;
import com.google.gson.JsonParseException;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.Strictness;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageOrBuilder;
import com.google.protobuf.Struct;
import com.google.protobuf.Timestamp;
import com.google.protobuf.Value;
import com.google.protobuf.util.JsonFormat;
import io.volrep.api.ReplicationDestination;
import io.volrep.api.ReplicationException;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.SafeText;
import io.volrep.api.Secrets;
import io.volrep.api.StatusCode;
import io.volrep.api.UnimplementedException;
import io.volrep.api.UnknownErrorException;
import io.volrep.api.wire.AnswerProblem;
import io.volrep.api.wire.AnswerRules;
import io.volrep.api.wire.WireMapping;
import io.volrep.proto.csi.VolumeCapability;
import io.volrep.proto.exec.HealRequest;
import io.volrep.proto.exec.InitRequest;
import io.volrep.proto.exec.Response;
import io.volrep.proto.exec.SourceRequest;
import io.volrep.proto.healer.NodeHealerResponse;
import io.volrep.proto.replication.GetVolumeReplicationInfoResponse;
import io.volrep.spi.runtime.InvalidDriverResponseException;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The exec protocol's JSON (docs/exec-drivers.md), through protobuf's {@link JsonFormat} on the schema in
 * {@code src/main/proto/exec/exec.proto}: requests printed, answers parsed and judged. No JSON is written or
 * read by hand here.
 *
 * <p>{@link #healRequest} and {@link #healResult} map NodeHealer.
 */
final class ExecProtocol {
    /** The statuses a driver may print. */
    static final String SUCCESS = "Success";
    static final String FAILURE = "Failure";
    static final String NOT_SUPPORTED = "Not supported";
    /** Longest driver message passed on to the caller; the rest is cut (drivers sometimes dump whole logs). */
    static final int MAX_MESSAGE_CHARS = 4096;

    private static final JsonFormat.Printer COMPACT = JsonFormat.printer().omittingInsignificantWhitespace();
    private static final JsonFormat.Printer WITH_PARAMETERS = COMPACT.includingDefaultValueFields(
            Set.of(field(SourceRequest.getDescriptor().findFieldByName("parameters"))));
    private static final JsonFormat.Printer HEAL = COMPACT.includingDefaultValueFields(
            Set.of(field(HealRequest.getDescriptor().findFieldByName("volume_context"))));
    private static final JsonFormat.Parser PARSER = JsonFormat.parser().ignoringUnknownFields();
    /** The answer's fields of type Timestamp, checked strictly before JsonFormat reads them. */
    private static final List<FieldDescriptor> TIME_FIELDS = Response.getDescriptor().getFields().stream()
            .filter(f -> f.getType() == FieldDescriptor.Type.MESSAGE
                    && f.getMessageType().getFullName().equals(Timestamp.getDescriptor().getFullName()))
            .toList();

    private ExecProtocol() {
    }

    private static FieldDescriptor field(FieldDescriptor f) {
        if (f == null) {
            throw new IllegalStateException("exec.proto and ExecProtocol disagree on a field name");
        }
        return f;
    }

    /** argv[2] of {@code init}: {@code {}}. */
    static String initRequest() {
        return print(COMPACT, InitRequest.getDefaultInstance());
    }

    /**
     * argv[2] of the six replication operations.
     *
     * @param parameters null for {@code info} (its request has none)
     * @param force empty for operations without {@code force}
     */
    static String sourceRequest(ReplicationSource source, Map<String, String> parameters, Optional<Boolean> force,
                                Optional<String> replicationId) {
        SourceRequest.Builder b = SourceRequest.newBuilder().setSource(SourceRequest.Source.newBuilder()
                .setKind(source.kind().wireName()).setId(source.id()));
        if (parameters != null) {
            b.putAllParameters(parameters);
        }
        force.ifPresent(b::setForce);
        replicationId.ifPresent(b::setReplicationId);
        return print(parameters != null ? WITH_PARAMETERS : COMPACT, b.build());
    }

    /**
     * argv[2] of {@code heal}.
     *
     * @param stagingTargetPath empty when not sent
     * @param volumeCapability null when not sent
     */
    static String healRequest(String volumeId, String volumePath, Optional<String> stagingTargetPath,
                              VolumeCapability volumeCapability, Map<String, String> volumeContext) {
        HealRequest.Builder b = HealRequest.newBuilder().setVolumeId(volumeId).setVolumePath(volumePath)
                .putAllVolumeContext(volumeContext);
        stagingTargetPath.filter(p -> !p.isEmpty()).ifPresent(b::setStagingTargetPath);
        if (volumeCapability != null) {
            b.setVolumeCapability(volumeCapability);
        }
        return print(HEAL, b.build());
    }

    /** The driver's stdin: the secrets as one flat JSON object, {@code {}} when there are none. */
    static String secrets(Secrets secrets) {
        Struct.Builder b = Struct.newBuilder();
        secrets.asMap().forEach((k, v) -> b.putFields(k, Value.newBuilder().setStringValue(v).build()));
        return print(COMPACT, b.build());
    }

    /**
     * The call's secrets in every form they can take in a driver's output, for {@link Secrets#scrub}: as they
     * are, and JSON-escaped the ways common JSON libraries write them (protobuf and Gson, the form of the
     * driver's stdin, escape {@code <>&='}; Go escapes {@code <>&}; Python and Jackson may escape non-ASCII in
     * lower or upper case hex). A driver that echoes its input or logs its JSON must not unmask a secret.
     */
    static Secrets asPrinted(Secrets secrets) {
        if (secrets.isEmpty()) {
            return secrets;
        }
        Set<String> forms = new java.util.TreeSet<>(java.util.Comparator.comparingInt(String::length).reversed()
                .thenComparing(java.util.Comparator.naturalOrder()));
        for (String value : secrets.asMap().values()) {
            forms.add(value);
            for (String html : new String[] {"", "<>&", "<>&='"}) {
                for (int nonAscii = 0; nonAscii < 3; nonAscii++) {
                    forms.add(jsonEscaped(value, html, nonAscii));
                }
            }
        }
        // Longest first, so that a form is masked whole before a shorter one could mask a part of it.
        Map<String, String> byForm = new java.util.LinkedHashMap<>();
        for (String form : forms) {
            byForm.put("form" + byForm.size(), form);
        }
        return Secrets.of(byForm);
    }

    /** {@code value} as a JSON string's content; {@code nonAscii} 0 keeps it, 1 and 2 escape it in lower/upper hex. */
    private static String jsonEscaped(String value, String htmlChars, int nonAscii) {
        StringBuilder out = new StringBuilder(value.length() + 16);
        String hex = nonAscii == 2 ? "\\u%04X" : "\\u%04x";
        for (char c : value.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    boolean escape = c < 0x20 || htmlChars.indexOf(c) >= 0 || (nonAscii > 0 && c > 0x7e)
                            || (!htmlChars.isEmpty() && (c == '\u2028' || c == '\u2029'));
                    out.append(escape ? String.format(hex, (int) c) : String.valueOf(c));
                }
            }
        }
        return out.toString();
    }

    private static String print(JsonFormat.Printer printer, MessageOrBuilder message) {
        try {
            return printer.print(message);
        } catch (InvalidProtocolBufferException e) {
            throw new UncheckedIOException(e);   // only Any fields can fail to print; we have none
        }
    }

    /**
     * Parses stdout: exactly one JSON object (strict JSON, nothing after it), read into {@link Response}
     * ignoring fields it does not know.
     *
     * @throws IllegalArgumentException saying what is wrong with the output
     */
    static Response parse(byte[] stdout) {
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(stdout)).toString().strip();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("stdout is not UTF-8");
        }
        if (text.isEmpty()) {
            throw new IllegalArgumentException("printed nothing on stdout");
        }
        JsonElement element;
        try {
            JsonReader reader = new JsonReader(new StringReader(text));
            reader.setStrictness(Strictness.STRICT);
            element = JsonParser.parseReader(reader);
            if (!element.isJsonObject()) {
                throw new IllegalArgumentException("stdout is not a JSON object");
            }
            if (reader.peek() != JsonToken.END_DOCUMENT) {
                throw new IllegalArgumentException("stdout has more after the JSON object");
            }
        } catch (JsonParseException | IOException e) {
            throw new IllegalArgumentException(notJson(e));
        }
        checkTimes(element.getAsJsonObject());
        Response.Builder b = Response.newBuilder();
        try {
            PARSER.merge(text, b);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalArgumentException("stdout does not follow the exec protocol: " + rootMessage(e));
        }
        return b.build();
    }

    /**
     * Every time in the answer must be a real RFC 3339 time. protobuf's parser alone is lenient: it rolls
     * {@code 2026-13-45T25:61:61Z} over into 2027, so a driver bug would become a plausible but wrong answer.
     */
    private static void checkTimes(JsonObject answer) {
        for (FieldDescriptor f : TIME_FIELDS) {
            for (String name : new String[] {f.getJsonName(), f.getName()}) {
                JsonElement value = answer.get(name);
                if (value == null || !value.isJsonPrimitive() || !value.getAsJsonPrimitive().isString()) {
                    continue;   // absent, or a wrong type that JsonFormat reports below
                }
                String time = value.getAsString();
                int year;
                try {
                    year = OffsetDateTime.parse(time, DateTimeFormatter.ISO_OFFSET_DATE_TIME)
                            .atZoneSameInstant(ZoneOffset.UTC).getYear();
                } catch (DateTimeParseException e) {
                    throw new IllegalArgumentException("stdout does not follow the exec protocol: \"" + name
                            + "\" is not a valid RFC 3339 time: \"" + untrusted(time, 64) + "\" ("
                            + reason(e) + ")");
                }
                if (year < 1 || year > 9999) {
                    throw new IllegalArgumentException("stdout does not follow the exec protocol: \"" + name
                            + "\" is out of range: \"" + untrusted(time, 64) + "\" (years 0001 to 9999 in UTC)");
                }
            }
        }
    }

    /** Why a time did not parse, e.g. "Invalid value for MonthOfYear (valid values 1 - 12): 13". */
    private static String reason(DateTimeParseException e) {
        return e.getCause() != null && e.getCause().getMessage() != null ? e.getCause().getMessage()
                : "expected e.g. 2026-01-02T03:04:05.123Z";
    }

    /** Where the JSON parser stopped, from its message ("... at line 1 column 7 path $.status ..."). */
    private static final Pattern PARSER_POSITION = Pattern.compile("at line (\\d+) column (\\d+)");

    /**
     * One line saying where stdout stops being JSON. The parser's own message is advice to its programmers
     * ("Use JsonReader.setStrictness(...)", a troubleshooting link on a second line), not to a driver's author.
     */
    private static String notJson(Exception e) {
        Matcher at = PARSER_POSITION.matcher(String.valueOf(rootMessage(e)));
        String where = at.find() ? " (at line " + at.group(1) + ", column " + at.group(2) + ")" : "";
        return "stdout is not JSON" + where + ": the exec protocol expects one JSON object, e.g. {\"status\":\"Success\"}";
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        return untrusted(m, 200);     // parser messages may quote the driver's output
    }

    /**
     * Judges a parsed answer: returns it when it is a consistent Success, else throws what the caller must see.
     *
     * @param who names the driver and the operation in messages, e.g. {@code "exec driver /x (promote)"}
     * @param printed the call's secrets {@linkplain #asPrinted as printed}, masked in the driver's message
     * @throws UnimplementedException for "Not supported"
     * @throws ReplicationException with the driver's code for a Failure, UNKNOWN without one or when the
     *                              answer is inconsistent (unknown status or code, Success with a non-zero exit)
     */
    static Response judge(String who, Response r, int exitCode, Secrets printed) {
        switch (r.getStatus()) {
            case SUCCESS:
                if (exitCode != 0) {
                    throw new UnknownErrorException(who + ": inconsistent answer: status Success with exit code "
                            + exitCode);
                }
                if (!r.getCode().isEmpty() && !r.getCode().equals(StatusCode.OK.name())) {
                    throw new UnknownErrorException(who + ": inconsistent answer: status Success with code "
                            + untrusted(r.getCode(), 40));
                }
                return r;
            case NOT_SUPPORTED:
                throw new UnimplementedException(message(r, who + ": not supported by the driver", printed));
            case FAILURE:
                if (r.getCode().isEmpty()) {
                    throw new UnknownErrorException(message(r, who + ": failed (exit code " + exitCode + ")", printed));
                }
                StatusCode code = statusCode(r.getCode());
                if (code == null) {
                    throw new UnknownErrorException(who + ": unknown code \"" + untrusted(r.getCode(), 40)
                            + "\" (expected a gRPC code name such as NOT_FOUND)");
                }
                if (code == StatusCode.OK) {
                    throw new UnknownErrorException(who + ": inconsistent answer: status Failure with code OK");
                }
                throw ReplicationException.of(code, message(r, who + ": failed with " + code.name(), printed), null,
                        0, null);
            default:
                throw new UnknownErrorException(who + ": unknown status \"" + untrusted(r.getStatus(), 40)
                        + "\" (expected Success, Failure or Not supported)");
        }
    }

    private static StatusCode statusCode(String name) {
        try {
            return StatusCode.valueOf(name);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static String message(Response r, String fallback, Secrets printed) {
        return r.getMessage().isBlank() ? fallback : driverText(r.getMessage(), printed);
    }

    /** Text a driver wrote for the caller: secrets masked ({@code printed}), then escaped and cut. */
    private static String driverText(String text, Secrets printed) {
        return untrusted(printed.scrub(text), MAX_MESSAGE_CHARS);
    }

    static String shorten(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max) + "...";
    }

    /**
     * Text the driver wrote, fit for a log line or a status message: control characters escaped
     * ({@link SafeText}), then cut at {@code max} characters. Scrub secrets before: escaping changes their form.
     */
    static String untrusted(String text, int max) {
        return shorten(SafeText.escape(text), max);
    }

    /** An answer that breaks the exec protocol or the spec: the runtime answers it as an invalid driver answer. */
    private static InvalidDriverResponseException invalid(String who, String detail) {
        return new InvalidDriverResponseException(who + ": invalid answer: " + detail);
    }

    /**
     * The spec's {@link AnswerRules} on what the driver answered: each problem names the answer's field as the driver
     * prints it and as the spec names it, e.g. {@code "lastSyncBytes" (last_sync_bytes: MUST NOT be negative, got -1)}.
     */
    private static void requireNoProblems(String who, List<AnswerProblem> problems) {
        if (!problems.isEmpty()) {
            throw invalid(who, problems.stream().map(p -> "\"" + jsonName(p.field()) + "\" (" + p + ")")
                    .collect(java.util.stream.Collectors.joining("; ")));
        }
    }

    /** The name in the driver's JSON of an answer's field. */
    private static String jsonName(String field) {
        String top = field.contains(".") && !field.startsWith("replication_destination")
                ? field.substring(0, field.indexOf('.')) : field;
        return switch (top) {
            case "last_sync_time" -> "lastSyncTime";
            case "last_sync_duration" -> "lastSyncDurationSeconds";
            case "last_sync_bytes" -> "lastSyncBytes";
            case "status" -> "replicationStatus";
            case "replication_destination.volumegroup.volume_ids" -> "destinationVolumeIds";
            case "replication_destination", "replication_destination.volume.volume_id",
                    "replication_destination.volumegroup.volume_group_id" -> "destinationId";
            default -> top;
        };
    }

    /** resync's answer: {@code ready} is required. */
    static boolean resyncReady(String who, Response r) {
        if (!r.hasReady()) {
            throw invalid(who, "Success without \"ready\"");
        }
        return r.getReady();
    }

    /**
     * info's answer: {@code lastSyncTime} required, duration and bytes optional and not negative,
     * {@code replicationStatus} one of the health names (absent: UNKNOWN), {@code replicationStatusMessage} masked
     * ({@code printed}) and escaped; judged by the spec's {@link AnswerRules#info} as the wire answer it becomes.
     */
    static ReplicationInfo info(String who, Response r, Secrets printed) {
        GetVolumeReplicationInfoResponse.Builder b = GetVolumeReplicationInfoResponse.newBuilder();
        if (r.hasLastSyncTime()) {
            b.setLastSyncTime(r.getLastSyncTime());
        }
        if (r.hasLastSyncDurationSeconds()) {
            b.setLastSyncDuration(duration(who, r.getLastSyncDurationSeconds()));
        }
        if (r.hasLastSyncBytes()) {
            b.setLastSyncBytes(r.getLastSyncBytes());
        }
        if (!r.getReplicationStatus().isEmpty()) {
            try {
                b.setStatusValue(ReplicationInfo.Status.valueOf(r.getReplicationStatus()).wireNumber());
            } catch (IllegalArgumentException e) {
                throw invalid(who, "\"replicationStatus\" is \"" + untrusted(r.getReplicationStatus(), 40)
                        + "\" (expected HEALTHY, DEGRADED, ERROR or UNKNOWN)");
            }
        }
        GetVolumeReplicationInfoResponse answer = b.setStatusMessage(driverText(r.getReplicationStatusMessage(),
                printed)).build();
        requireNoProblems(who, AnswerRules.info(answer));
        ReplicationInfo info = WireMapping.fromProto(answer, 0);
        // The driver's JSON says whether it reported bytes; the proto3 field it passed through cannot.
        return r.hasLastSyncBytes() ? info : new ReplicationInfo(info.lastSyncTime(), info.lastSyncDuration(),
                java.util.OptionalLong.empty(), info.status(), info.statusMessage());
    }

    /**
     * {@code lastSyncDurationSeconds} as a Duration, to the nanosecond (a double holds more than a long's nanoseconds
     * can: 10,000 years do not fit). Whether it is a valid one is the answer rules' to say.
     */
    private static com.google.protobuf.Duration duration(String who, double seconds) {
        if (!Double.isFinite(seconds) || Math.abs(seconds) >= 0x1p62) {
            throw invalid(who, "\"lastSyncDurationSeconds\" must be a number of seconds, at most about 10,000"
                    + " years");
        }
        BigDecimal[] parts = new BigDecimal(seconds).setScale(9, RoundingMode.HALF_EVEN)
                .divideAndRemainder(BigDecimal.ONE);
        return com.google.protobuf.Duration.newBuilder().setSeconds(parts[0].longValueExact())
                .setNanos(parts[1].movePointRight(9).intValueExact()).build();
    }

    /**
     * destination's answer: {@code destinationId} required; {@code destinationVolumeIds} only for a group (every
     * member or none). The destination has the source's kind; judged by the spec's {@link AnswerRules#destination}
     * as the wire answer it becomes (ids at most 128 bytes, the member map at most 4 KiB).
     */
    static ReplicationDestination destination(String who, ReplicationSource source, Response r) {
        if (source.kind() != ReplicationSource.Kind.VOLUME_GROUP && r.getDestinationVolumeIdsCount() > 0) {
            throw invalid(who, "\"destinationVolumeIds\" belongs to a volume group's destination, not to a "
                    + source.kind().wireName() + "'s");
        }
        ReplicationDestination destination = source.kind() == ReplicationSource.Kind.VOLUME_GROUP
                ? ReplicationDestination.volumeGroup(r.getDestinationId(), r.getDestinationVolumeIdsMap())
                : ReplicationDestination.volume(r.getDestinationId());
        requireNoProblems(who, AnswerRules.destination(WireMapping.toProto(destination), source.kind()));
        return destination;
    }

    /**
     * heal's answer (NodeHealer): {@code abnormal} required, {@code message} as the driver wrote it.
     *
     * @param abnormal whether the volume is in an abnormal state
     * @param message the driver's description
     */
    record HealResult(boolean abnormal, String message) {
    }

    /**
     * heal's answer: {@code abnormal} is required; the message, REQUIRED by the spec ({@link AnswerRules#healer}), is
     * masked ({@code printed}) and escaped.
     */
    static HealResult healResult(String who, Response r, Secrets printed) {
        if (!r.hasAbnormal()) {
            throw invalid(who, "Success without \"abnormal\"");
        }
        requireNoProblems(who, AnswerRules.healer(NodeHealerResponse.newBuilder().setAbnormal(r.getAbnormal())
                .setMessage(r.getMessage()).build()));
        return new HealResult(r.getAbnormal(), driverText(r.getMessage(), printed));
    }
}
