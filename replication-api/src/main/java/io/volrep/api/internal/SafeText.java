package io.volrep.api.internal;

/**
 * Text from outside the process (a source id, a driver's message, a plugin's error description) made safe to
 * write into a log line or onto a terminal: control characters cannot start a forged log line, move the
 * cursor or recolour the screen.
 *
 * <pre>{@code
 * log.info("{} {}", rpc, SafeText.escape(sourceId));   // "vol-1\nINFO forged" is logged as "vol-1\\nINFO forged"
 * }</pre>
 *
 * <p>Escaped: every ISO control character (C0, DEL, C1, including CR, LF, TAB and ESC), the Unicode line and
 * paragraph separators and the bidirectional-text controls (which can make a line read differently from what
 * it holds). {@code \n}, {@code \r}, {@code \t} and {@code \\} read as in Java; everything else as
 * {@code \}{@code uXXXX}. A backslash is doubled, so the escaped form is unambiguous. Printable text,
 * non-ASCII letters included, is unchanged.
 */
public final class SafeText {
    private SafeText() {}

    /** {@code text} with control characters escaped; null stays null. */
    public static String escape(CharSequence text) {
        if (text == null) {
            return null;
        }
        int n = text.length();
        int first = 0;
        while (first < n && !needsEscape(text.charAt(first))) {
            first++;
        }
        if (first == n) {
            return text.toString();
        }
        StringBuilder out = new StringBuilder(n + 16).append(text, 0, first);
        for (int i = first; i < n; i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\\' -> out.append("\\\\");
                default -> {
                    if (needsEscape(c)) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.toString();
    }

    /** True when {@code text} holds nothing {@link #escape} would change. */
    public static boolean isSafe(CharSequence text) {
        if (text == null) {
            return true;
        }
        for (int i = 0; i < text.length(); i++) {
            if (needsEscape(text.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    private static boolean needsEscape(char c) {
        return c == '\\'
                || Character.isISOControl(c)
                || c == '\u2028'
                || c == '\u2029'
                || (c >= '\u202a' && c <= '\u202e')
                || (c >= '\u2066' && c <= '\u2069')
                || c == '\u200e'
                || c == '\u200f'
                || c == '\u061c';
    }
}
