package io.volrep.client;

import com.google.protobuf.Message;
import io.volrep.api.CsiLimits;
import io.volrep.api.DeadlineExceededException;
import io.volrep.api.InvalidArgumentException;
import io.volrep.api.OperationPendingException;
import io.volrep.api.ProtocolViolationException;
import io.volrep.api.Rpc;
import io.volrep.api.VolumeGroup;
import io.volrep.api.internal.wire.AnswerRules;
import io.volrep.api.internal.wire.WireMapping;
import io.volrep.proto.volumegroup.ListVolumeGroupsResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * ListVolumeGroups. {@link #call()} fetches one page ({@link #maxEntries}, {@link #startingToken}); {@link #stream()}
 * and {@link #iterator()} walk every page lazily, a page fetched when the previous one is used up, each an ordinary
 * call (retries, secrets, observation). A plugin answering 10 ABORTED to a page's token (the table's "invalid
 * {@code starting_token}": the plugin forgot where the listing was) makes the walk start over from the first page, as
 * the table says, at most {@value #MAX_RESTARTS} times; groups already delivered are not delivered again, so a walk
 * never repeats a group (the spec lets a listing miss groups created or deleted meanwhile). Offered when the plugin
 * advertises {@code VolumeGroup.LIST_VOLUME_GROUPS}; sends the {@linkplain SecretsProvider#pluginSecrets() plugin's
 * secrets} unless {@link #secrets} overrides them.
 *
 * <p>A walk is bounded whatever the plugin answers: the retry policy's total timeout covers the whole listing, from
 * its first page ({@link DeadlineExceededException} when it does not end in time; the caller's time between pages
 * counts too), {@value #MAX_EMPTY_PAGES} empty pages in a row or a {@code next_token} met again within the last
 * {@value #TOKENS_REMEMBERED} pages are a {@link ProtocolViolationException}, and it holds one page at a time, so
 * memory stays bounded while a caller streams (past {@value #MAX_REMEMBERED_GROUPS} groups it no longer remembers
 * what it gave, and a 10 then ends the walk instead of starting it over).
 *
 * <pre>{@code
 * try (Stream<VolumeGroup> groups = client.volumeGroups().list().maxEntries(100).stream()) {
 *     groups.filter(g -> g.volumeIds().contains("pvc-1")).forEach(g -> log.info("pvc-1 is in {}", g.id()));
 * }
 * }</pre>
 */
public final class ListVolumeGroupsCall extends TypedCall<ListVolumeGroupsCall, VolumeGroupPage> {
    /** How often a walk starts over after 10 ABORTED before it gives up with that exception. */
    public static final int MAX_RESTARTS = 3;
    /** How many empty pages in a row, each with a {@code next_token}, end a walk as a protocol violation. */
    public static final int MAX_EMPTY_PAGES = 100;
    /**
     * How many delivered groups a walk remembers, so as to start over without repeating one; a walk that delivered
     * more ends with the plugin's 10 ABORTED instead of starting over.
     */
    public static final int MAX_REMEMBERED_GROUPS = 10_000;
    /** How many of the tokens it followed last a walk remembers, to tell a {@code next_token} met again. */
    public static final int TOKENS_REMEMBERED = 1_000;

    private int maxEntries;
    private String startingToken = "";

    ListVolumeGroupsCall(CallEngine engine) {
        super(engine, Rpc.LIST_VOLUME_GROUPS);
    }

    /** At most this many groups per page (0, the default: as many as the plugin answers at once). */
    public ListVolumeGroupsCall maxEntries(int maxEntries) {
        this.maxEntries = CsiLimits.requireNotNegative("max_entries", maxEntries);
        return this;
    }

    /** Where {@link #call()} and a walk start: a page's {@link VolumeGroupPage#nextToken()}; "" for the first page. */
    public ListVolumeGroupsCall startingToken(String token) {
        if (token == null) {
            throw InvalidArgumentException.ofField("starting_token", "must not be null", rpc, 0);
        }
        this.startingToken = token;
        return this;
    }

    /** Every group from {@link #startingToken}, lazily, page by page; a failed page throws its exception. */
    public Stream<VolumeGroup> stream() {
        return StreamSupport.stream(
                Spliterators.spliteratorUnknownSize(
                        iterator(), Spliterator.ORDERED | Spliterator.NONNULL | Spliterator.DISTINCT),
                false);
    }

    /** {@link #stream()} as an iterator: {@code hasNext()} fetches the next page when needed (blocking). */
    public Iterator<VolumeGroup> iterator() {
        return new Walk();
    }

    @Override
    VolumeGroupSpec spec() {
        return VolumeGroupSpec.list(maxEntries, startingToken, secretsOverride, policy);
    }

    @Override
    VolumeGroupPage result(Message response, int attempts) {
        ListVolumeGroupsResponse r = (ListVolumeGroupsResponse) response;
        WireMapping.requireNoProblems(AnswerRules.volumeGroups(r, maxEntries), rpc, attempts);
        return new VolumeGroupPage(
                r.getEntriesList().stream()
                        .map(e -> WireMapping.fromProto(e.getVolumeGroup()))
                        .toList(),
                r.getNextToken().isEmpty() ? Optional.empty() : Optional.of(r.getNextToken()));
    }

    /** One page of the walk, with this call's settings, within {@code left} of the walk's total timeout. */
    private VolumeGroupPage page(String token, RetryPolicy walkPolicy, Duration left) {
        ListVolumeGroupsCall page =
                new ListVolumeGroupsCall(engine).maxEntries(maxEntries).startingToken(token);
        page.secretsOverride = secretsOverride;
        page.policy = walkPolicy.toBuilder()
                .totalTimeout(left)
                .perAttemptTimeout(
                        left.compareTo(walkPolicy.perAttemptTimeout()) < 0 ? left : walkPolicy.perAttemptTimeout())
                .build();
        return page.call();
    }

    /**
     * The walk over every page, bounded: the policy's total timeout covers all of it, {@value #MAX_EMPTY_PAGES} empty
     * pages in a row or a {@code next_token} met again within the last {@value #TOKENS_REMEMBERED} pages end it as a
     * protocol violation, and it holds one page, the fingerprints of its recent tokens and at most
     * {@value #MAX_REMEMBERED_GROUPS} delivered ids: memory stays bounded however long the listing.
     */
    private final class Walk implements Iterator<VolumeGroup> {
        private final RetryPolicy walkPolicy =
                policy != null ? policy : engine.settings().defaultPolicy();
        private final Instant deadline = walkPolicy.clock().instant().plus(walkPolicy.totalTimeout());
        private final ArrayDeque<VolumeGroup> buffer = new ArrayDeque<>();
        /** What was delivered, to skip it after starting over; null once more was delivered than it may hold. */
        private Set<String> delivered = new HashSet<>();

        private final RecentTokens tokens = new RecentTokens();
        private String token = startingToken;
        private boolean lastPage;
        private int restarts;
        private int pages;
        private int emptyInARow;

        @Override
        public boolean hasNext() {
            while (buffer.isEmpty() && !lastPage) {
                fetch();
            }
            return !buffer.isEmpty();
        }

        @Override
        public VolumeGroup next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            VolumeGroup next = buffer.poll();
            if (delivered != null) {
                delivered.add(next.id());
                if (delivered.size() > MAX_REMEMBERED_GROUPS) {
                    delivered = null; // from now on a 10 ends the walk instead of starting it over
                }
            }
            return next;
        }

        private void fetch() {
            if (timeIsUp()) {
                throw tooLong(null);
            }
            VolumeGroupPage page;
            try {
                page = page(
                        token, walkPolicy, Duration.between(walkPolicy.clock().instant(), deadline));
            } catch (DeadlineExceededException e) {
                // A page that ran out of the walk's time: the listing's deadline, not the page's, is what ended it.
                throw timeIsUp() ? tooLong(e) : e;
            } catch (OperationPendingException e) {
                if (token.isEmpty()
                        || restarts >= MAX_RESTARTS
                        || delivered == null
                        || e instanceof CallQueueFullException) {
                    throw e;
                }
                restarts++; // the table: start again with an empty token
                token = "";
                tokens.clear();
                emptyInARow = 0;
                return;
            }
            pages++;
            emptyInARow = page.groups().isEmpty() ? emptyInARow + 1 : 0;
            for (VolumeGroup g : page.groups()) {
                if (delivered == null || !delivered.contains(g.id())) {
                    buffer.add(g);
                }
            }
            tokens.add(token);
            if (page.nextToken().isEmpty()) {
                lastPage = true;
            } else if (tokens.contains(page.nextToken().get())) {
                throw neverEnds("answered a next_token this listing already followed");
            } else if (emptyInARow >= MAX_EMPTY_PAGES) {
                throw neverEnds("answered " + MAX_EMPTY_PAGES + " empty pages in a row, each with a next_token");
            } else {
                token = page.nextToken().get();
            }
        }

        private boolean timeIsUp() {
            return !walkPolicy.clock().instant().isBefore(deadline);
        }

        private DeadlineExceededException tooLong(Throwable cause) {
            return new DeadlineExceededException(
                    "ListVolumeGroups: the listing did not end within the call's total timeout of "
                            + walkPolicy.totalTimeout() + " (" + pages + " page(s) read)",
                    rpc,
                    pages,
                    cause);
        }

        private ProtocolViolationException neverEnds(String what) {
            return new ProtocolViolationException(
                    "ListVolumeGroups " + what + ": the listing would never end", rpc, 1, "next_token");
        }
    }

    /**
     * The last {@value #TOKENS_REMEMBERED} tokens a walk followed, as fingerprints (a token may be as long as an
     * answer): what "a token seen twice" is judged by, in bounded memory.
     */
    private static final class RecentTokens {
        private final ArrayDeque<Long> order = new ArrayDeque<>();
        private final Set<Long> seen = new HashSet<>();

        void add(String token) {
            long print = fingerprint(token);
            if (seen.add(print)) {
                order.add(print);
                if (order.size() > TOKENS_REMEMBERED) {
                    seen.remove(order.poll());
                }
            }
        }

        boolean contains(String token) {
            return seen.contains(fingerprint(token));
        }

        void clear() {
            order.clear();
            seen.clear();
        }

        /** The first 64 bits of the token's SHA-256: a false match is about 1 in 10^13 for a full window. */
        private static long fingerprint(String token) {
            try {
                byte[] digest = MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
                return ByteBuffer.wrap(digest).getLong();
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("every Java platform has SHA-256", e);
            }
        }
    }
}
