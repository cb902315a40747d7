package io.volrep.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.api.OperationPendingException;
import io.volrep.spi.DemoteRequest;
import io.volrep.spi.EnableRequest;
import io.volrep.spi.PromoteRequest;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The concurrent isolation check ({@link LifecycleChecks#CONCURRENT}) against a plugin whose every source draws 10
 * ABORTED of its own (like Ceph: a promote right after a demote meets the demotion still on its way), beside the others
 * and alone: it passes, and one source tried alone tells for every source of its kind that drew 10 at the same steps
 * (on Ceph each alone round trip costs ~10 s of real mirroring). A lock spanning sources draws 10 only beside the
 * others, never alone: {@link StateDefect#LOCK_SPANS_SOURCES} is still caught ({@link StateDefectSelfTest}).
 */
class ConcurrentIsolationTest {
    private static final String[] VOLUMES = {"vol-0", "vol-1", "vol-2", "vol-3"};

    /**
     * The first promote after the source's own demote answers 10: the demotion is still pending (counted in calls, not
     * time, so that a loaded machine cannot make it pass or fail).
     */
    static final class OwnPendingAfterDemote extends SpecDriver {
        final Set<String> demotionPending = ConcurrentHashMap.newKeySet();
        final AtomicInteger enables = new AtomicInteger();

        OwnPendingAfterDemote() {
            super(Map.of(), VOLUMES);
        }

        @Override
        public void enable(EnableRequest r) {
            enables.incrementAndGet();
            super.enable(r);
        }

        @Override
        public void demote(DemoteRequest r) {
            super.demote(r);
            demotionPending.add(r.source().id());
        }

        @Override
        public void promote(PromoteRequest r) {
            if (demotionPending.remove(r.source().id())) {
                throw new OperationPendingException(
                        "the demotion of " + r.source().id() + " is still pending");
            }
            super.promote(r);
        }
    }

    @Test
    void sourcesDrawingTheirOwn10AtTheSameStepPassWithOneOfThemTriedAlone() throws Throwable {
        OwnPendingAfterDemote plugin = new OwnPendingAfterDemote();
        ConformanceConfig config =
                ConformanceConfig.builder().driver(plugin).volumes(VOLUMES).build();
        Check concurrent = LifecycleChecks.isolation(config).stream()
                .filter(c -> c.name().equals(LifecycleChecks.CONCURRENT))
                .findFirst()
                .orElseThrow();

        try (ConformanceSession session = ConformanceSession.open(config)) {
            session.run(concurrent); // throws when the check fails
        }

        // One round trip each beside the others, then one source alone: it draws its 10 at the promote too.
        assertThat(plugin.enables.get()).isEqualTo(VOLUMES.length + 1);
    }
}
