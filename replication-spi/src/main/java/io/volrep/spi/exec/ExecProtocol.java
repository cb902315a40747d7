package io.volrep.spi.exec;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import com.google.gson.Strictness;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Duration;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Timestamp;
import com.google.protobuf.util.JsonFormat;
import io.volrep.api.HealReport;
import io.volrep.api.ReplicationDestination;
import io.volrep.api.ReplicationException;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Secrets;
import io.volrep.api.StatusCode;
import io.volrep.api.UnimplementedException;
import io.volrep.api.UnknownErrorException;
import io.volrep.api.VolumeGroup;
import io.volrep.api.internal.SafeText;
import io.volrep.api.internal.wire.AnswerProblem;
import io.volrep.api.internal.wire.AnswerRules;
import io.volrep.api.internal.wire.WireMapping;
import io.volrep.proto.exec.Response;
import io.volrep.proto.healer.NodeHealerResponse;
import io.volrep.proto.replication.GetVolumeReplicationInfoResponse;
import io.volrep.proto.volumegroup.ControllerGetVolumeGroupResponse;
import io.volrep.proto.volumegroup.ListVolumeGroupsResponse;
import io.volrep.spi.internal.runtime.InvalidDriverResponseException;
import java.io.IOException;
import java.io.StringReader;
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
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The exec protocol's answers (docs/exec-drivers.md), through protobuf's {@link JsonFormat} on the schema in
 * {@code src/main/proto/exec/exec.proto}: a driver's stdout parsed and judged, then read as its operation's answer.
 * No JSON is read by hand here; what the bridge sends is {@link ExecRequests}'.
 *
 * <p>{@link #heal} reads NodeHealer's answer; {@link #volumeGroup} and {@link #volumeGroups} the volume group
 * operations'.
 */
final class ExecProtocol {
    /** The statuses a driver may print. */
    static final String SUCCESS = "Success";

    static final String FAILURE = "Failure";
    static final String NOT_SUPPORTED = "Not supported";
    /** Longest driver message passed on to the caller; the rest is cut (drivers sometimes dump whole logs). */
    static final int MAX_MESSAGE_CHARS = 4096;

    private static final JsonFormat.Parser PARSER = JsonFormat.parser().ignoringUnknownFields();
    /** The answer's fields of type Timestamp, checked strictly before JsonFormat reads them. */
    private static final List<FieldDescriptor> TIME_FIELDS = Response.getDescriptor().getFields().stream()
            .filter(f -> f.getType() == FieldDescriptor.Type.MESSAGE
                    && f.getMessageType()
                            .getFullName()
                            .equals(Timestamp.getDescriptor().getFullName()))
            .toList();

    private ExecProtocol() {}

    /**
     * Parses stdout: exactly one JSON object (strict JSON, nothing after it), read into {@link Response}
     * ignoring fields it does not know.
     *
     * @throws IllegalArgumentException saying what is wrong with the output
     */
    static Response parse(byte[] stdout) {
        String text;
        try {
            text = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(stdout))
                    .toString()
                    .strip();
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
                if (value == null
                        || !value.isJsonPrimitive()
                        || !value.getAsJsonPrimitive().isString()) {
                    continue; // absent, or a wrong type that JsonFormat reports below
                }
                String time = value.getAsString();
                int year;
                try {
                    year = OffsetDateTime.parse(time, DateTimeFormatter.ISO_OFFSET_DATE_TIME)
                            .atZoneSameInstant(ZoneOffset.UTC)
                            .getYear();
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
        return e.getCause() != null && e.getCause().getMessage() != null
                ? e.getCause().getMessage()
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
        return "stdout is not JSON" + where
                + ": the exec protocol expects one JSON object, e.g. {\"status\":\"Success\"}";
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        return untrusted(m, 200); // parser messages may quote the driver's output
    }

    /**
     * Judges a parsed answer: returns it when it is a consistent Success, else throws what the caller must see.
     *
     * @param who names the driver and the operation in messages, e.g. {@code "exec driver /x (promote)"}
     * @param printed the call's secrets {@linkplain ExecRequests#asPrinted as printed}, masked in the driver's message
     * @throws UnimplementedException for "Not supported"
     * @throws ReplicationException with the driver's code for a Failure, UNKNOWN without one or when the
     *                              answer is inconsistent (unknown status or code, Success with a non-zero exit)
     */
    static Response judge(String who, Response r, int exitCode, Secrets printed) {
        switch (r.getStatus()) {
            case SUCCESS -> {
                if (exitCode != 0) {
                    throw new UnknownErrorException(
                            who + ": inconsistent answer: status Success with exit code " + exitCode);
                }
                if (!r.getCode().isEmpty() && !r.getCode().equals(StatusCode.OK.name())) {
                    throw new UnknownErrorException(
                            who + ": inconsistent answer: status Success with code " + untrusted(r.getCode(), 40));
                }
                return r;
            }
            case NOT_SUPPORTED ->
                throw new UnimplementedException(message(r, who + ": not supported by the driver", printed));
            case FAILURE -> {
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
                throw ReplicationException.of(
                        code, message(r, who + ": failed with " + code.name(), printed), null, 0, null);
            }
            default ->
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
            throw invalid(
                    who,
                    problems.stream()
                            .map(p -> "\"" + jsonName(p.field()) + "\" (" + p + ")")
                            .collect(Collectors.joining("; ")));
        }
    }

    /** The name in the driver's JSON of an answer's field. */
    private static String jsonName(String field) {
        if (field.startsWith("volume_group")) {
            return "volumeGroup";
        }
        if (field.startsWith("entries")) {
            return "volumeGroups";
        }
        String top = field.contains(".") && !field.startsWith("replication_destination")
                ? field.substring(0, field.indexOf('.'))
                : field;
        return switch (top) {
            case "last_sync_time" -> "lastSyncTime";
            case "last_sync_duration" -> "lastSyncDurationSeconds";
            case "last_sync_bytes" -> "lastSyncBytes";
            case "status" -> "replicationStatus";
            case "replication_destination.volumegroup.volume_ids" -> "destinationVolumeIds";
            case "replication_destination",
                    "replication_destination.volume.volume_id",
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
                b.setStatusValue(
                        ReplicationInfo.Status.valueOf(r.getReplicationStatus()).wireNumber());
            } catch (IllegalArgumentException e) {
                throw invalid(
                        who,
                        "\"replicationStatus\" is \"" + untrusted(r.getReplicationStatus(), 40)
                                + "\" (expected HEALTHY, DEGRADED, ERROR or UNKNOWN)");
            }
        }
        GetVolumeReplicationInfoResponse answer = b.setStatusMessage(
                        driverText(r.getReplicationStatusMessage(), printed))
                .build();
        requireNoProblems(who, AnswerRules.info(answer));
        ReplicationInfo info = WireMapping.fromProto(answer, 0);
        // The driver's JSON says whether it reported bytes; the proto3 field it passed through cannot.
        return r.hasLastSyncBytes()
                ? info
                : new ReplicationInfo(
                        info.lastSyncTime(),
                        info.lastSyncDuration(),
                        OptionalLong.empty(),
                        info.status(),
                        info.statusMessage());
    }

    /**
     * {@code lastSyncDurationSeconds} as a Duration, to the nanosecond (a double holds more than a long's nanoseconds
     * can: 10,000 years do not fit). Whether it is a valid one is the answer rules' to say.
     */
    private static Duration duration(String who, double seconds) {
        if (!Double.isFinite(seconds) || Math.abs(seconds) >= 0x1p62) {
            throw invalid(
                    who, "\"lastSyncDurationSeconds\" must be a number of seconds, at most about 10,000" + " years");
        }
        BigDecimal[] parts =
                new BigDecimal(seconds).setScale(9, RoundingMode.HALF_EVEN).divideAndRemainder(BigDecimal.ONE);
        return Duration.newBuilder()
                .setSeconds(parts[0].longValueExact())
                .setNanos(parts[1].movePointRight(9).intValueExact())
                .build();
    }

    /**
     * destination's answer: {@code destinationId} required; {@code destinationVolumeIds} only for a group (every
     * member or none). The destination has the source's kind; judged by the spec's {@link AnswerRules#destination}
     * as the wire answer it becomes (ids at most 128 bytes, the member map at most 4 KiB).
     */
    static ReplicationDestination destination(String who, ReplicationSource source, Response r) {
        if (source.kind() != ReplicationSource.Kind.VOLUME_GROUP && r.getDestinationVolumeIdsCount() > 0) {
            throw invalid(
                    who,
                    "\"destinationVolumeIds\" belongs to a volume group's destination, not to a "
                            + source.kind().wireName() + "'s");
        }
        ReplicationDestination destination = source.kind() == ReplicationSource.Kind.VOLUME_GROUP
                ? ReplicationDestination.volumeGroup(r.getDestinationId(), r.getDestinationVolumeIdsMap())
                : ReplicationDestination.volume(r.getDestinationId());
        requireNoProblems(who, AnswerRules.destination(WireMapping.toProto(destination), source.kind()));
        return destination;
    }

    /**
     * heal's answer: {@code abnormal} is required; the message, REQUIRED by the spec ({@link AnswerRules#healer}), is
     * masked ({@code printed}) and escaped.
     */
    static HealReport heal(String who, Response r, Secrets printed) {
        if (!r.hasAbnormal()) {
            throw invalid(who, "Success without \"abnormal\"");
        }
        requireNoProblems(
                who,
                AnswerRules.healer(NodeHealerResponse.newBuilder()
                        .setAbnormal(r.getAbnormal())
                        .setMessage(r.getMessage())
                        .build()));
        return new HealReport(r.getAbnormal(), driverText(r.getMessage(), printed));
    }

    /**
     * create-group's, modify-group's and get-group's answer: {@code volumeGroup} required, judged by the spec's
     * {@link AnswerRules} as the wire answer it becomes (the runtime judges it again, against what was asked).
     */
    static VolumeGroup volumeGroup(String who, Response r) {
        if (!r.hasVolumeGroup()) {
            throw invalid(who, "Success without \"volumeGroup\"");
        }
        requireNoProblems(
                who,
                AnswerRules.volumeGroup(ControllerGetVolumeGroupResponse.newBuilder()
                        .setVolumeGroup(r.getVolumeGroup())
                        .build()));
        return WireMapping.fromProto(r.getVolumeGroup());
    }

    /** list-groups' answer: {@code volumeGroups}, every group once, each valid (an empty list is no groups). */
    static List<VolumeGroup> volumeGroups(String who, Response r) {
        ListVolumeGroupsResponse.Builder all = ListVolumeGroupsResponse.newBuilder();
        r.getVolumeGroupsList().forEach(g -> all.addEntriesBuilder().setVolumeGroup(g));
        requireNoProblems(who, AnswerRules.volumeGroups(all.build(), 0));
        return r.getVolumeGroupsList().stream().map(WireMapping::fromProto).toList();
    }
}
