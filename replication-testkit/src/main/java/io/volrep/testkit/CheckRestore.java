package io.volrep.testkit;

import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.api.internal.SafeText;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What runs after every check: its sources back to "replication disabled, primary", then what it created removed. */
final class CheckRestore {
    private static final Logger LOG = LoggerFactory.getLogger(ConformanceContext.class);

    private CheckRestore() {}

    /**
     * Returns every source the check enabled to "replication disabled, primary": on the peer site demotes what the
     * check promoted there, promotes (force) what may be demoted, then disables, except what {@code carryOn} leaves
     * enabled and primary for the next check; then runs what the check registered with
     * {@link ConformanceContext#atEnd}, latest first. Returns the problems, empty when all is restored.
     */
    static List<String> restore(
            ConformanceContext ctx, SourceBookkeeping sources, Deque<Runnable> atEnd, Predicate<Addressing> carryOn) {
        List<String> problems = new ArrayList<>();
        // On the peer site, only what the check itself promoted, and only once observed primary still.
        LifecycleModel model = LifecycleModel.forDialect(ctx.dialect());
        for (Addressing replica : sources.promotedOnPeer()) {
            PeerSite.Seen seen = PeerSite.look(ctx, model, replica);
            if (!seen.fits().equals(List.of(LifecycleModel.State.PRIMARY))) {
                problems.add("did not restore the peer site's " + replica + ", which the check promoted: it answers "
                        + seen.said() + seen.asIf() + ", not as the primary the check left, so it was left alone");
                continue;
            }
            Outcome demote = ctx.callPeer(Rpc.DEMOTE_VOLUME, replica);
            if (!demote.ok()) {
                problems.add("could not restore the peer site's " + replica + " (it may stay primary):"
                        + " DemoteVolume -> " + demote.describe());
            }
        }
        for (Addressing target : sources.enabled()) {
            if (carryOn.test(target)) {
                continue; // left enabled and primary for the next check, which disables it unless it enables it
            }
            if (sources.mayBeDemoted(target)) {
                // Leave the source primary, as it was before replication was enabled.
                Outcome promote = ctx.callForce(Rpc.PROMOTE_VOLUME, target);
                if (!promote.ok() && promote.code() != StatusCode.UNIMPLEMENTED) {
                    LOG.warn(
                            "restoring {}: PromoteVolume(force) -> {}",
                            target,
                            SafeText.escape(ctx.config().secrets().scrub(promote.describe())));
                }
            }
            Outcome disable = ctx.call(Rpc.DISABLE_VOLUME_REPLICATION, target);
            if (!disable.ok()) {
                problems.add("could not restore " + target
                        + " (replication may stay enabled): DisableVolumeReplication -> " + disable.describe());
            }
        }
        while (!atEnd.isEmpty()) {
            try {
                atEnd.pop().run();
            } catch (RuntimeException | AssertionError e) {
                problems.add(String.valueOf(e.getMessage()));
            }
        }
        return problems;
    }
}
