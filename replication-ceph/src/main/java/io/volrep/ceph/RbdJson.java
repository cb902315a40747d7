package io.volrep.ceph;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

/**
 * Reading rbd's JSON output leniently: rbd leaves out the fields that do not apply (no {@code mirroring} on an image
 * that is not mirrored, no {@code primary_mirror_uuid} on a snapshot taken by the primary), so an absent field is a
 * value here, not an error.
 *
 * <pre>{@code
 * String state = RbdJson.string(mirroring, "state");     // "" when rbd printed no state
 * }</pre>
 */
final class RbdJson {
    private RbdJson() {}

    /** The field as text, "" when it is absent or null. */
    static String string(JsonObject o, String key) {
        JsonElement e = o.get(key);
        return e == null || e.isJsonNull() ? "" : e.getAsString();
    }

    /** The field when it is an object, else null. */
    static JsonObject objectOrNull(JsonObject o, String key) {
        return o.has(key) && o.get(key).isJsonObject() ? o.getAsJsonObject(key) : null;
    }

    /** The element when it is an object, else an empty object (rbd printed nothing, or something else). */
    static JsonObject objectOrEmpty(JsonElement e) {
        return e != null && e.isJsonObject() ? e.getAsJsonObject() : new JsonObject();
    }
}
