package io.volrep.spi.runtime;

import io.volrep.api.Secrets;

/**
 * Removes the request's own secret values from text the runtime is about to write (status messages, log lines,
 * stack traces): a driver that puts a password into an exception message does not leak it through volrep.
 * Values shorter than {@link #MIN_SCRUBBED_LENGTH} characters are left alone, since replacing them would mangle
 * ordinary words; such short secrets are not secrets anyway.
 *
 * <pre>{@code
 * SecretScrubber.scrub("login failed for s3cret", Secrets.of(Map.of("password", "s3cret")));  // "login failed for ***"
 * }</pre>
 */
public final class SecretScrubber {
    /** The shortest secret value that is scrubbed. */
    public static final int MIN_SCRUBBED_LENGTH = 3;

    private SecretScrubber() {
    }

    /** {@code text} with every occurrence of a secret value replaced by {@link Secrets#MASK}. */
    public static String scrub(String text, Secrets secrets) {
        if (text == null || secrets == null || secrets.isEmpty()) {
            return text;
        }
        String result = text;
        for (String value : secrets.asMap().values()) {
            if (value.length() >= MIN_SCRUBBED_LENGTH && result.contains(value)) {
                result = result.replace(value, Secrets.MASK);
            }
        }
        return result;
    }
}
