package io.volrep.ceph;

import io.volrep.api.ReplicationException;
import io.volrep.api.Secrets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * The peer site of the pool, asked directly: the role of an image there, which the local mirror status only knows
 * from a report that can be seconds old. The peer is reached with the credentials that
 * {@code rbd mirror pool peer bootstrap import} stored in the local cluster for rbd-mirror (its mon addresses, its
 * {@code client.rbd-mirror-peer} user and key), through a connection of its own ({@link PeerLookup} keeps it); the key
 * is given to librados in memory and never reaches a file, a log or a message.
 *
 * <pre>{@code
 * PeerSite.Answer there = peer.role("vol-0", budget);  // PRIMARY, NON_PRIMARY, ABSENT, NOT_MIRRORED, UNREACHABLE
 * }</pre>
 */
final class PeerSite {
    /** The longest a side question to the peer may take, within the RPC's budget. */
    static final Duration QUESTION_TIME = Duration.ofSeconds(8);

    /** The image's role at the peer. */
    enum Role {
        PRIMARY,
        NON_PRIMARY,
        NOT_MIRRORED,
        ABSENT,
        UNREACHABLE
    }

    /**
     * What the peer said about an image.
     *
     * @param role its role there
     * @param image what the peer said about the image, when it exists there
     * @param why why the peer could not be asked ({@link Role#UNREACHABLE}), else ""
     */
    record Answer(Role role, Optional<RbdImage> image, String why) {}

    private final String name;
    private final SiteCalls calls;
    /** The peer's key, masked in whatever the peer's answers carry to a message (defence in depth). */
    private final Secrets masked;

    PeerSite(String name, SiteCalls calls, Secrets masked) {
        this.name = name;
        this.calls = calls;
        this.masked = masked;
    }

    /** The peer's site name, e.g. {@code site-b}. */
    String name() {
        return name;
    }

    /** The image's role at the peer, asked within at most {@link #QUESTION_TIME} of the budget (once per RPC). */
    Answer role(String image, CallBudget budget) {
        return budget.read(calls.name() + " role " + image, () -> {
            CallBudget question = budget.capped(QUESTION_TIME);
            try {
                RbdImage there = calls.read(question, "info of " + image, s -> s.image(image));
                Role role = !there.enabled() ? Role.NOT_MIRRORED : there.primary() ? Role.PRIMARY : Role.NON_PRIMARY;
                return new Answer(role, Optional.of(there), "");
            } catch (RbdException e) {
                if (e.imageMissing()) {
                    return new Answer(Role.ABSENT, Optional.empty(), "");
                }
                return new Answer(Role.UNREACHABLE, Optional.empty(), masked.scrub(e.getMessage()));
            } catch (ReplicationException e) {
                // UNAVAILABLE: no answer within the question's time
                return new Answer(Role.UNREACHABLE, Optional.empty(), masked.scrub(e.getMessage()));
            }
        });
    }

    /** The peer's metadata of {@code image} (once per RPC); empty when it has no such image or does not answer. */
    Optional<Map<String, String>> metadata(String image, CallBudget budget) {
        return budget.read(calls.name() + " metadata " + image, () -> {
            try {
                return Optional.of(
                        calls.read(budget.capped(QUESTION_TIME), "metadata of " + image, s -> s.metadata(image)));
            } catch (RbdException | ReplicationException e) {
                return Optional.empty();
            }
        });
    }

    /**
     * The peer's mirror snapshots of {@code image}, asked within at most {@link #QUESTION_TIME} (once per RPC); empty
     * when the peer has no such image or does not answer.
     */
    Optional<MirrorSnapshots> snapshots(String image, CallBudget budget) {
        return budget.read(calls.name() + " snapshots " + image, () -> {
            try {
                return Optional.of(
                        calls.read(budget.capped(QUESTION_TIME), "snapshots of " + image, s -> s.snapshots(image)));
            } catch (RbdException | ReplicationException e) {
                return Optional.empty();
            }
        });
    }
}
