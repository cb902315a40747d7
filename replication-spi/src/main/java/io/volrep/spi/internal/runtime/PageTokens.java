package io.volrep.spi.internal.runtime;

import io.volrep.api.CsiLimits;
import io.volrep.api.OperationPendingException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;

/**
 * The runtime's ListVolumeGroups tokens: a page ends after a group id, and its {@code next_token} names that id, so the
 * next page starts with the first id after it in sorted order. A group deleted between two pages leaves the token
 * valid (the order still says where to go on); a group created meanwhile before the token's id is not seen by this
 * listing, as the spec allows. A token is {@value #PREFIX} and the id in base64url: opaque to a client, and anything
 * else is not a token this runtime issued, answered 10 ABORTED as the table says ("start again with an empty token").
 *
 * <pre>{@code
 * String token = PageTokens.after("vg-17");            // "vg1.dmctMTc"
 * PageTokens.position(token);                          // Optional[vg-17]
 * PageTokens.position("");                             // Optional.empty(): from the start
 * }</pre>
 */
final class PageTokens {
    static final String PREFIX = "vg1.";

    private PageTokens() {}

    /** The token of the page that starts after {@code lastId}. */
    static String after(String lastId) {
        return PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(lastId.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The id a page starts after; empty for an empty token (the first page).
     *
     * @throws OperationPendingException (10 ABORTED, the table's "Invalid starting_token") for a token this runtime
     *                                   did not issue
     */
    static Optional<String> position(String token) {
        if (token.isEmpty()) {
            return Optional.empty();
        }
        if (!token.startsWith(PREFIX)) {
            throw invalid();
        }
        try {
            byte[] bytes = Base64.getUrlDecoder().decode(token.substring(PREFIX.length()));
            String id = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
            if (id.isEmpty() || CsiLimits.utf8Length(id) > CsiLimits.MAX_STRING_BYTES) {
                throw invalid();
            }
            return Optional.of(id);
        } catch (IllegalArgumentException | CharacterCodingException e) {
            throw invalid();
        }
    }

    private static OperationPendingException invalid() {
        // The caller's text is not quoted: a token may be anything, of any length.
        return new OperationPendingException("starting_token: not a token of this plugin; start the listing again"
                + " with an empty starting_token");
    }
}
