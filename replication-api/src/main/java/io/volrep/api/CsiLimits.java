package io.volrep.api;

import io.volrep.api.internal.SafeText;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * CSI's general size limits, which the CSI-Addons specs inherit: a string field holds at most 128 bytes
 * (UTF-8) and a map field at most 4 KiB in total (keys plus values), unless a field overrides them.
 *
 * <p>Client and server validate with the same checks, so both give the same message naming the field:
 * <pre>{@code
 * CsiLimits.requireId("replication_source.volume.volume_id", id);
 * CsiLimits.requireMapWithinLimit("parameters", parameters);
 * }</pre>
 */
public final class CsiLimits {
    /** The largest string field, in UTF-8 bytes. */
    public static final int MAX_STRING_BYTES = 128;
    /** The largest map field, keys and values together, in UTF-8 bytes. */
    public static final int MAX_MAP_BYTES = 4096;

    private CsiLimits() {}

    /** The value's size in UTF-8 bytes. */
    public static int utf8Length(CharSequence value) {
        int bytes = 0;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c)
                    && i + 1 < value.length()
                    && Character.isLowSurrogate(value.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }

    /** The map's size as CSI counts it: every key and value in UTF-8 bytes. */
    public static int mapBytes(Map<String, String> map) {
        int bytes = 0;
        for (Map.Entry<String, String> e : map.entrySet()) {
            bytes += utf8Length(e.getKey()) + utf8Length(e.getValue());
        }
        return bytes;
    }

    /**
     * Checks a REQUIRED identifier: present, not empty, at most 128 bytes.
     *
     * @return the id
     * @throws InvalidArgumentException naming {@code field}
     */
    public static String requireId(String field, String id) {
        if (id == null || id.isEmpty()) {
            throw InvalidArgumentException.ofField(field, "required field is missing or empty");
        }
        return requireStringWithinLimit(field, id);
    }

    /**
     * Checks a list of REQUIRED identifiers ({@code volume_ids}): each present and within 128 bytes, none given twice,
     * a failure naming the element ({@code volume_ids[2]}).
     *
     * <pre>{@code
     * CsiLimits.requireIds("volume_ids", List.of("vol-0", "vol-0"));   // volume_ids[1]: "vol-0" is given twice
     * }</pre>
     *
     * @return an unmodifiable copy of the ids, in order
     * @throws InvalidArgumentException naming the element
     */
    public static List<String> requireIds(String field, List<String> ids) {
        if (ids == null) {
            throw InvalidArgumentException.ofField(field, "must not be null");
        }
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < ids.size(); i++) {
            String id = requireId(field + "[" + i + "]", ids.get(i));
            if (!seen.add(id)) {
                throw InvalidArgumentException.ofField(
                        field + "[" + i + "]", "\"" + SafeText.escape(id) + "\" is given twice");
            }
        }
        return List.copyOf(ids);
    }

    /**
     * Checks a count field the spec says MUST NOT be negative ({@code max_entries}).
     *
     * @throws InvalidArgumentException naming {@code field}
     */
    public static int requireNotNegative(String field, int value) {
        if (value < 0) {
            throw InvalidArgumentException.ofField(field, "MUST NOT be negative, got " + value);
        }
        return value;
    }

    /** Checks an OPTIONAL string against the 128-byte limit; null and empty pass. */
    public static String requireStringWithinLimit(String field, String value) {
        if (value != null) {
            requireWithin(field, utf8Length(value), "bytes", MAX_STRING_BYTES);
        }
        return value;
    }

    /**
     * Checks a map field against the 4 KiB limit. The message names the field and sizes, never a value:
     * the map may hold secrets.
     */
    public static Map<String, String> requireMapWithinLimit(String field, Map<String, String> map) {
        if (map != null) {
            requireWithin(field, mapBytes(map), "bytes in total", MAX_MAP_BYTES);
        }
        return map;
    }

    /** The message names the field and the sizes only, never the value. */
    private static void requireWithin(String field, int bytes, String unit, int limit) {
        if (bytes > limit) {
            throw InvalidArgumentException.ofField(
                    field, bytes + " " + unit + " exceeds the CSI limit of " + limit + " bytes");
        }
    }
}
