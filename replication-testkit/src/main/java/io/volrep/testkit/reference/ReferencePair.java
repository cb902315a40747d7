package io.volrep.testkit.reference;

import java.util.Objects;

/**
 * Two in-memory sites holding one replication pair per source: what {@code volrep serve-reference --listen A
 * --peer-listen B} serves, and what the conformance kit's two-site checks and {@code volrep failover} are tested
 * against without real storage. Both sites have the same sources (same ids: each source's destination on the other
 * site is itself); a call on either site changes the pair:
 * <ul>
 *   <li>enable on a site makes it the primary and the other site's copy the secondary; disable (on either site)
 *       removes the replication on both;</li>
 *   <li>promote without force is refused (9 FAILED_PRECONDITION, "cannot be promoted without force") while the
 *       other site holds the primary, and within {@link ReferenceDriver.Builder#demotionWindow the demotion window}
 *       after the other site's demote; with force it promotes, leaving a still-primary peer in split-brain (its Info
 *       reports status ERROR until it is demoted and resynced);</li>
 *   <li>resync of a secondary becomes ready only while the other site holds the primary (something to copy
 *       from);</li>
 *   <li>Info answers 5 NOT_FOUND for {@link ReferenceDriver.Builder#firstSyncDelay the first-sync delay} after an
 *       enable or a promote.</li>
 * </ul>
 *
 * <pre>{@code
 * ReferencePair pair = ReferenceDriver.builder().volumes(8).groups(1).requiredSecret("user", "admin")
 *         .demotionWindow(Duration.ofSeconds(2)).firstSyncDelay(Duration.ofSeconds(3)).buildPair();
 * try (ReplicationServer a = ReferencePlugin.start(pair.siteA(), "unix:///tmp/a.sock");
 *      ReplicationServer b = ReferencePlugin.start(pair.siteB(), "unix:///tmp/b.sock")) {
 *     ... enable and demote vol-0 on A, promote it on B: refused for 2 s, then done ...
 * }
 * }</pre>
 */
public final class ReferencePair {
    private final ReferenceDriver siteA;
    private final ReferenceDriver siteB;

    ReferencePair(ReferenceDriver siteA, ReferenceDriver siteB) {
        this.siteA = Objects.requireNonNull(siteA, "siteA");
        this.siteB = Objects.requireNonNull(siteB, "siteB");
        ReferenceDriver.pair(siteA, siteB);
    }

    /** Site A: where the fixtures are enabled first. */
    public ReferenceDriver siteA() {
        return siteA;
    }

    /** Site B: the peer site. */
    public ReferenceDriver siteB() {
        return siteB;
    }

    /** Both sites back to the start: every source disabled and primary, the effect logs cleared. */
    public void reset() {
        siteA.reset();
        siteB.reset();
    }
}
