package io.volrep.client;

import io.volrep.api.Secrets;

/** Removes secret values from text that came from elsewhere (a plugin's error description). */
final class Masking {
    /** Values shorter than this are not replaced: masking "a" everywhere would garble the text for nothing. */
    private static final int MIN_MASKED_LENGTH = 3;

    private Masking() {
    }

    static String scrub(String text, Secrets... secretSets) {
        if (text == null) {
            return null;
        }
        String result = text;
        for (Secrets secrets : secretSets) {
            if (secrets == null) {
                continue;
            }
            for (String value : secrets.asMap().values()) {
                if (value.length() >= MIN_MASKED_LENGTH) {
                    result = result.replace(value, Secrets.MASK);
                }
            }
        }
        return result;
    }
}
