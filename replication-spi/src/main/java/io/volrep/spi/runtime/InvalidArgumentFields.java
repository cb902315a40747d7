package io.volrep.spi.runtime;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The field an INVALID_ARGUMENT message names: the runtime's messages start with the field's path
 * ({@code "replication_source.volume.volume_id: must not be empty"}). Only a path of lower-case names and dots
 * is returned, map keys and indexes cut off ({@code parameters[key]} gives {@code parameters}), so what a caller
 * sends can never become a metric tag.
 */
final class InvalidArgumentFields {
    private static final Pattern FIELD = Pattern.compile("^([a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)*)(?:\\[[^\\]]*])?:");

    private InvalidArgumentFields() {
    }

    static Optional<String> field(String message) {
        if (message == null) {
            return Optional.empty();
        }
        Matcher m = FIELD.matcher(message);
        return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }
}
