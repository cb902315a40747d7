package io.volrep.spi.exec;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageOrBuilder;
import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import com.google.protobuf.util.JsonFormat;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Secrets;
import io.volrep.proto.csi.VolumeCapability;
import io.volrep.proto.exec.GroupRequest;
import io.volrep.proto.exec.HealRequest;
import io.volrep.proto.exec.InitRequest;
import io.volrep.proto.exec.SourceRequest;
import java.io.UncheckedIOException;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * What the exec bridge sends a driver (docs/exec-drivers.md): each operation's request JSON (argv[2]) and the secrets
 * on stdin, printed by protobuf's {@link JsonFormat} from the schema in {@code src/main/proto/exec/exec.proto}; and
 * the forms those secrets take when a driver prints them back ({@link #asPrinted}), for masking. What it answers is
 * {@link ExecProtocol}'s.
 */
final class ExecRequests {
    private static final JsonFormat.Printer COMPACT = JsonFormat.printer().omittingInsignificantWhitespace();
    private static final JsonFormat.Printer WITH_PARAMETERS = COMPACT.includingDefaultValueFields(
            Set.of(field(SourceRequest.getDescriptor().findFieldByName("parameters"))));
    private static final JsonFormat.Printer HEAL = COMPACT.includingDefaultValueFields(
            Set.of(field(HealRequest.getDescriptor().findFieldByName("volume_context"))));
    /** create-group and modify-group: the membership and the parameters are always there, {@code []} and {} when none. */
    private static final JsonFormat.Printer WITH_MEMBERS = COMPACT.includingDefaultValueFields(Set.of(
            field(GroupRequest.getDescriptor().findFieldByName("volume_ids")),
            field(GroupRequest.getDescriptor().findFieldByName("parameters"))));

    private ExecRequests() {}

    private static FieldDescriptor field(FieldDescriptor f) {
        if (f == null) {
            throw new IllegalStateException("exec.proto and ExecRequests disagree on a field name");
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
    static String sourceRequest(
            ReplicationSource source,
            Map<String, String> parameters,
            Optional<Boolean> force,
            Optional<String> replicationId) {
        SourceRequest.Builder b = SourceRequest.newBuilder()
                .setSource(SourceRequest.Source.newBuilder()
                        .setKind(source.kind().wireName())
                        .setId(source.id()));
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
    static String healRequest(
            String volumeId,
            String volumePath,
            Optional<String> stagingTargetPath,
            VolumeCapability volumeCapability,
            Map<String, String> volumeContext) {
        HealRequest.Builder b = HealRequest.newBuilder()
                .setVolumeId(volumeId)
                .setVolumePath(volumePath)
                .putAllVolumeContext(volumeContext);
        stagingTargetPath.filter(p -> !p.isEmpty()).ifPresent(b::setStagingTargetPath);
        if (volumeCapability != null) {
            b.setVolumeCapability(volumeCapability);
        }
        return print(HEAL, b.build());
    }

    /**
     * argv[2] of the volume group operations.
     *
     * @param name create-group's name, else null
     * @param volumeGroupId the group of modify-group, delete-group and get-group, else null
     * @param volumeIds create-group's and modify-group's membership (printed even when empty), else null
     * @param parameters create-group's and modify-group's parameters (printed even when empty), else null
     */
    static String groupRequest(
            String name, String volumeGroupId, List<String> volumeIds, Map<String, String> parameters) {
        GroupRequest.Builder b = GroupRequest.newBuilder();
        if (name != null) {
            b.setName(name);
        }
        if (volumeGroupId != null) {
            b.setVolumeGroupId(volumeGroupId);
        }
        if (volumeIds != null) {
            b.addAllVolumeIds(volumeIds).putAllParameters(parameters);
        }
        return print(volumeIds != null ? WITH_MEMBERS : COMPACT, b.build());
    }

    /** The driver's stdin: the secrets as one flat JSON object, {@code {}} when there are none. */
    static String secrets(Secrets secrets) {
        Struct.Builder b = Struct.newBuilder();
        secrets.asMap()
                .forEach((k, v) ->
                        b.putFields(k, Value.newBuilder().setStringValue(v).build()));
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
        Set<String> forms = new TreeSet<>(
                Comparator.comparingInt(String::length).reversed().thenComparing(Comparator.naturalOrder()));
        for (String value : secrets.asMap().values()) {
            forms.add(value);
            for (String html : new String[] {"", "<>&", "<>&='"}) {
                for (int nonAscii = 0; nonAscii < 3; nonAscii++) {
                    forms.add(jsonEscaped(value, html, nonAscii));
                }
            }
        }
        // Longest first, so that a form is masked whole before a shorter one could mask a part of it.
        Map<String, String> byForm = new LinkedHashMap<>();
        for (String form : forms) {
            byForm.put("form" + byForm.size(), form);
        }
        return Secrets.of(byForm);
    }

    /** {@code value} as a JSON string's content; {@code nonAscii} 0 keeps it, 1 and 2 escape it in lower/upper hex. */
    private static String jsonEscaped(String value, String htmlChars, int nonAscii) {
        StringBuilder out = new StringBuilder(value.length() + 16);
        String hex = nonAscii == 2 ? "\\u%04X" : "\\u%04x";
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    boolean escape = c < 0x20
                            || htmlChars.indexOf(c) >= 0
                            || (nonAscii > 0 && c > 0x7e)
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
            throw new UncheckedIOException(e); // only Any fields can fail to print; we have none
        }
    }
}
