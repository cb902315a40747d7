package io.volrep.client;

import com.google.protobuf.Message;
import io.volrep.api.CsiLimits;
import io.volrep.api.InvalidArgumentException;
import io.volrep.api.OperationPendingException;
import io.volrep.api.ProtocolViolationException;
import io.volrep.api.Rpc;
import io.volrep.api.VolumeGroup;
import io.volrep.api.internal.wire.AnswerRules;
import io.volrep.api.internal.wire.WireMapping;
import io.volrep.proto.volumegroup.ListVolumeGroupsResponse;
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
 * <pre>{@code
 * try (Stream<VolumeGroup> groups = client.volumeGroups().list().maxEntries(100).stream()) {
 *     groups.filter(g -> g.volumeIds().contains("pvc-1")).forEach(g -> log.info("pvc-1 is in {}", g.id()));
 * }
 * }</pre>
 */
public final class ListVolumeGroupsCall extends TypedCall<ListVolumeGroupsCall, VolumeGroupPage> {
    /** How often a walk starts over after 10 ABORTED before it gives up with that exception. */
    public static final int MAX_RESTARTS = 3;

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

    /** One page of the walk, with this call's settings. */
    private VolumeGroupPage page(String token) {
        ListVolumeGroupsCall page =
                new ListVolumeGroupsCall(engine).maxEntries(maxEntries).startingToken(token);
        page.secretsOverride = secretsOverride;
        page.policy = policy;
        return page.call();
    }

    /** The walk over every page. */
    private final class Walk implements Iterator<VolumeGroup> {
        private final ArrayDeque<VolumeGroup> buffer = new ArrayDeque<>();
        private final Set<String> delivered = new HashSet<>();
        private final Set<String> tokensUsed = new HashSet<>();
        private String token = startingToken;
        private boolean lastPage;
        private int restarts;

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
            delivered.add(next.id());
            return next;
        }

        private void fetch() {
            VolumeGroupPage page;
            try {
                page = page(token);
            } catch (OperationPendingException e) {
                if (token.isEmpty() || restarts >= MAX_RESTARTS || e instanceof CallQueueFullException) {
                    throw e;
                }
                restarts++; // the table: start again with an empty token
                token = "";
                tokensUsed.clear();
                return;
            }
            for (VolumeGroup g : page.groups()) {
                if (!delivered.contains(g.id())) {
                    buffer.add(g);
                }
            }
            tokensUsed.add(token);
            if (page.nextToken().isEmpty()) {
                lastPage = true;
            } else if (tokensUsed.contains(page.nextToken().get())) {
                throw new ProtocolViolationException(
                        "ListVolumeGroups answered a next_token this listing already"
                                + " followed: the listing would never end",
                        rpc,
                        1,
                        "next_token");
            } else {
                token = page.nextToken().get();
            }
        }
    }
}
