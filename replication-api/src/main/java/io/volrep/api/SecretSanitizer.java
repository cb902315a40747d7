package io.volrep.api;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import com.google.protobuf.MessageOrBuilder;
import com.google.protobuf.TextFormat;
import com.google.protobuf.UnknownFieldSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Printable and sanitized forms of any protobuf message, with every field marked secret masked: CSI's
 * {@code (csi.v1.csi_secret)} (option 1059) and the legacy {@code (replication.replication_secret)}
 * (option 1099), through nested messages, repeated fields and maps.
 *
 * <pre>{@code
 * log.debug("request {}", SecretSanitizer.lazy(request));   // formats only when DEBUG is on
 * String line = SecretSanitizer.toString(request);           // secrets { key: "user" value: "***" }
 * }</pre>
 * Unknown fields are dropped from the sanitized form: nothing says they are not secrets.
 */
public final class SecretSanitizer {
    /** CSI v1's {@code csi_secret} field option number. */
    public static final int CSI_SECRET_OPTION = 1059;
    /** The legacy {@code replication.replication_secret} field option number (spec revisions before CSI's option). */
    public static final int LEGACY_REPLICATION_SECRET_OPTION = 1099;

    private static final Map<FieldDescriptor, Boolean> SECRET_FIELDS = new ConcurrentHashMap<>();
    private static final TextFormat.Printer PRINTER = TextFormat.printer();

    private SecretSanitizer() {}

    /** True when the field's options mark it secret, by either option, known or unknown to this runtime. */
    public static boolean isSecret(FieldDescriptor field) {
        return SECRET_FIELDS.computeIfAbsent(field, SecretSanitizer::readSecretOption);
    }

    private static boolean readSecretOption(FieldDescriptor field) {
        var options = field.getOptions();
        for (Map.Entry<FieldDescriptor, Object> e : options.getAllFields().entrySet()) {
            int number = e.getKey().getNumber();
            if (e.getKey().isExtension()
                    && (number == CSI_SECRET_OPTION || number == LEGACY_REPLICATION_SECRET_OPTION)
                    && Boolean.TRUE.equals(e.getValue())) {
                return true;
            }
        }
        // An option whose extension is not linked into this runtime stays an unknown varint field.
        UnknownFieldSet unknown = options.getUnknownFields();
        return isTrueVarint(unknown, CSI_SECRET_OPTION) || isTrueVarint(unknown, LEGACY_REPLICATION_SECRET_OPTION);
    }

    private static boolean isTrueVarint(UnknownFieldSet unknown, int number) {
        return unknown.hasField(number)
                && unknown.getField(number).getVarintList().contains(1L);
    }

    /**
     * A copy of {@code message} in which every secret string (and every value of a secret map) reads
     * {@link Secrets#MASK}, other secret fields are cleared, and unknown fields are dropped.
     */
    @SuppressWarnings("unchecked")
    public static <T extends Message> T sanitize(T message) {
        return (T) sanitizeMessage(message);
    }

    private static Message sanitizeMessage(MessageOrBuilder message) {
        Message.Builder builder = message instanceof Message m ? m.toBuilder() : ((Message.Builder) message).clone();
        builder.setUnknownFields(UnknownFieldSet.getDefaultInstance());
        for (Map.Entry<FieldDescriptor, Object> e : message.getAllFields().entrySet()) {
            FieldDescriptor field = e.getKey();
            if (field.getJavaType() != FieldDescriptor.JavaType.MESSAGE && !isSecret(field)) {
                continue;
            }
            builder.clearField(field);
            if (field.isRepeated()) {
                for (Object element : (List<?>) e.getValue()) {
                    Object replaced = replace(field, element);
                    if (replaced != null) {
                        builder.addRepeatedField(field, replaced);
                    }
                }
            } else {
                Object replaced = replace(field, e.getValue());
                if (replaced != null) {
                    builder.setField(field, replaced);
                }
            }
        }
        return builder.build();
    }

    /** The sanitized form of one value (a map entry is a message with key and value), or null to drop it. */
    private static Object replace(FieldDescriptor field, Object value) {
        boolean secret = isSecret(field);
        if (field.isMapField()) {
            Message entry = (Message) value;
            FieldDescriptor valueField = entry.getDescriptorForType().findFieldByName("value");
            Message.Builder b = entry.toBuilder();
            if (secret) {
                if (valueField.getJavaType() == FieldDescriptor.JavaType.STRING) {
                    b.setField(valueField, Secrets.MASK);
                } else {
                    b.clearField(valueField);
                }
            } else if (valueField.getJavaType() == FieldDescriptor.JavaType.MESSAGE && entry.hasField(valueField)) {
                b.setField(valueField, sanitizeMessage((Message) entry.getField(valueField)));
            }
            return b.build();
        }
        if (secret) {
            return field.getJavaType() == FieldDescriptor.JavaType.STRING ? Secrets.MASK : null;
        }
        return sanitizeMessage((Message) value);
    }

    /** The sanitized message on one line, in protobuf text format. */
    public static String toString(MessageOrBuilder message) {
        if (message == null) {
            return "null";
        }
        return message.getDescriptorForType().getName() + "{" + PRINTER.shortDebugString(sanitizeMessage(message))
                + "}";
    }

    /** An object whose {@code toString()} is {@link #toString(MessageOrBuilder)}, computed only when called. */
    public static Object lazy(MessageOrBuilder message) {
        return new Object() {
            @Override
            public String toString() {
                return SecretSanitizer.toString(message);
            }
        };
    }
}
