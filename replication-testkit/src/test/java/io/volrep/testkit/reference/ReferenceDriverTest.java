package io.volrep.testkit.reference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.volrep.api.PreconditionFailedException;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.Secrets;
import io.volrep.api.SourceNotFoundException;
import io.volrep.api.UnauthenticatedException;
import io.volrep.spi.DemoteRequest;
import io.volrep.spi.DisableRequest;
import io.volrep.spi.EnableRequest;
import io.volrep.spi.InfoRequest;
import io.volrep.spi.PromoteRequest;
import io.volrep.spi.ReplicationDriver;
import io.volrep.spi.ReplicationDriverProvider;
import io.volrep.spi.ResyncRequest;
import io.volrep.testkit.reference.ReferenceDriver.Change;
import io.volrep.testkit.reference.ReferenceDriver.Role;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** The reference driver's spec semantics, called directly. */
class ReferenceDriverTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private final ReplicationSource vol = ReplicationSource.volume("vol-0");
    private final ReferenceDriver driver = ReferenceDriver.builder()
            .volumes(2)
            .groups(1)
            .volume("extra")
            .clock(Clock.fixed(T0, ZoneOffset.UTC))
            .build();

    @Test
    void fixtures() {
        assertThat(driver.sources())
                .containsExactly(
                        ReplicationSource.volume("vol-0"),
                        ReplicationSource.volume("vol-1"),
                        ReplicationSource.volumeGroup("grp-0"),
                        ReplicationSource.volume("extra"));
        for (ReplicationSource s : driver.sources()) {
            assertThat(driver.state(s).enabled()).isFalse();
            assertThat(driver.state(s).role()).isEqualTo(Role.PRIMARY);
        }
        assertThatThrownBy(() -> driver.enable(EnableRequest.of(ReplicationSource.volume("vol-2"))))
                .isInstanceOf(SourceNotFoundException.class)
                .hasMessageContaining("vol-2");
        assertThatThrownBy(() -> driver.enable(EnableRequest.of(ReplicationSource.volumeGroup("vol-0"))))
                .isInstanceOf(SourceNotFoundException.class);
    }

    @Test
    void lifecycleWithEveryCallRepeated() {
        driver.enable(EnableRequest.of(vol));
        driver.enable(EnableRequest.of(vol));
        assertThat(driver.state(vol).enabled()).isTrue();
        ReplicationInfo info = driver.info(InfoRequest.of(vol));
        assertThat(info.lastSyncTime()).isEqualTo(T0);
        assertThat(info.lastSyncBytes()).isPresent();
        assertThat(info.lastSyncDuration()).isPresent();
        // a replicating primary that has synced is healthy (was UNKNOWN: "reconcile" showed "Replicating: Unknown")
        assertThat(info.status()).isEqualTo(ReplicationInfo.Status.HEALTHY);

        driver.demote(DemoteRequest.of(vol));
        driver.demote(DemoteRequest.of(vol));
        assertThat(driver.state(vol).role()).isEqualTo(Role.SECONDARY);
        assertThatThrownBy(() -> driver.info(InfoRequest.of(vol)))
                .isInstanceOf(PreconditionFailedException.class)
                .hasMessageContaining("not promoted");

        assertThat(driver.resync(ResyncRequest.of(vol)).ready())
                .as("never ready on the first call")
                .isFalse();
        assertThat(driver.resync(ResyncRequest.of(vol)).ready()).isTrue();
        assertThat(driver.resync(ResyncRequest.of(vol)).ready()).isTrue();

        driver.promote(PromoteRequest.of(vol));
        driver.promote(PromoteRequest.of(vol));
        assertThat(driver.state(vol).role()).isEqualTo(Role.PRIMARY);
        assertThatThrownBy(() -> driver.resync(ResyncRequest.of(vol)))
                .isInstanceOf(PreconditionFailedException.class)
                .hasMessageContaining("not demoted");

        driver.disable(DisableRequest.of(vol));
        driver.disable(DisableRequest.of(vol));
        assertThat(driver.state(vol).enabled()).isFalse();

        assertThat(driver.effects(vol))
                .extracting(ReferenceDriver.Effect::change)
                .containsExactly(
                        Change.ENABLED,
                        Change.DEMOTED,
                        Change.RESYNC_PROGRESSED,
                        Change.RESYNC_COMPLETED,
                        Change.PROMOTED,
                        Change.DISABLED);
        assertThat(driver.effects(vol))
                .extracting(ReferenceDriver.Effect::sourceSequence)
                .containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
    }

    @Test
    void everythingButEnableAndDisableNeedsReplicationEnabled() {
        assertThatThrownBy(() -> driver.promote(PromoteRequest.of(vol)))
                .isInstanceOf(PreconditionFailedException.class)
                .hasMessageContaining("not enabled");
        assertThatThrownBy(() -> driver.demote(DemoteRequest.of(vol))).isInstanceOf(PreconditionFailedException.class);
        assertThatThrownBy(() -> driver.resync(ResyncRequest.of(vol))).isInstanceOf(PreconditionFailedException.class);
        assertThatThrownBy(() -> driver.info(InfoRequest.of(vol))).isInstanceOf(PreconditionFailedException.class);
        driver.disable(DisableRequest.of(vol)); // idempotent from the start
        assertThat(driver.effects()).isEmpty();
    }

    @Test
    void requiredSecrets() {
        ReferenceDriver guarded = ReferenceDriver.builder()
                .volumes(1)
                .requiredSecret("user", "admin")
                .build();
        assertThatThrownBy(() -> guarded.enable(EnableRequest.of(vol)))
                .isInstanceOf(UnauthenticatedException.class)
                .hasMessageNotContaining("admin");
        assertThatThrownBy(() -> guarded.enable(EnableRequest.builder()
                        .source(vol)
                        .secrets(Secrets.of(Map.of("user", "root")))
                        .build()))
                .isInstanceOf(UnauthenticatedException.class);
        // Authentication comes first: an unknown source with wrong secrets is UNAUTHENTICATED, not NOT_FOUND.
        assertThatThrownBy(() -> guarded.info(InfoRequest.of(ReplicationSource.volume("nope"))))
                .isInstanceOf(UnauthenticatedException.class);
        guarded.enable(EnableRequest.builder()
                .source(vol)
                .parameters(Map.of("k", "v"))
                .secrets(Secrets.of(Map.of("user", "admin", "extra", "x")))
                .build());
        assertThat(guarded.state(vol).parameters()).containsEntry("k", "v");
    }

    @Test
    void resyncThreshold() {
        ReferenceDriver slow =
                ReferenceDriver.builder().volumes(1).resyncCallsUntilReady(4).build();
        slow.enable(EnableRequest.of(vol));
        slow.demote(DemoteRequest.of(vol));
        List<Boolean> ready = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ready.add(slow.resync(ResyncRequest.of(vol)).ready());
        }
        assertThat(ready).containsExactly(false, false, false, true, true);
        // A new demotion starts a new resync.
        slow.promote(PromoteRequest.of(vol));
        slow.demote(DemoteRequest.of(vol));
        assertThat(slow.resync(ResyncRequest.of(vol)).ready()).isFalse();
    }

    @Test
    void latency() {
        ReferenceDriver slow = ReferenceDriver.builder()
                .volumes(1)
                .latency(Duration.ofMillis(100))
                .build();
        long start = System.nanoTime();
        slow.enable(EnableRequest.of(vol));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(100));
    }

    @Test
    void resetReturnsEveryFixtureToItsStart() {
        driver.enable(EnableRequest.of(vol));
        driver.demote(DemoteRequest.of(vol));
        driver.reset();
        assertThat(driver.state(vol)).isEqualTo(ReferenceDriver.SourceState.initial(vol));
        assertThat(driver.effects()).isEmpty();
        driver.enable(EnableRequest.of(vol));
        assertThat(driver.effects()).singleElement().satisfies(e -> {
            assertThat(e.sequence()).isEqualTo(1);
            assertThat(e.sourceSequence()).isEqualTo(1);
        });
        assertThatThrownBy(() -> driver.state(ReplicationSource.volume("nope")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theEffectLogLosesAndDuplicatesNothingUnderConcurrency() throws Exception {
        ReferenceDriver big = ReferenceDriver.builder().volumes(8).build();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (ReplicationSource s : big.sources()) {
                done.add(pool.submit(() -> {
                    for (int i = 0; i < 50; i++) {
                        big.enable(EnableRequest.of(s));
                        big.demote(DemoteRequest.of(s));
                        big.promote(PromoteRequest.of(s));
                        big.disable(DisableRequest.of(s));
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        List<ReferenceDriver.Effect> effects = big.effects();
        assertThat(effects).hasSize(8 * 50 * 4);
        assertThat(effects)
                .extracting(ReferenceDriver.Effect::sequence)
                .containsExactlyElementsOf(
                        LongStream.rangeClosed(1, effects.size()).boxed().toList());
        Map<ReplicationSource, Long> last = new HashMap<>();
        for (ReferenceDriver.Effect e : effects) {
            long expected = last.merge(e.source(), 1L, Long::sum);
            assertThat(e.sourceSequence()).isEqualTo(expected);
        }
    }

    @Test
    void discoverableThroughServiceLoader() {
        ReplicationDriver d = ReplicationDriverProvider.find("reference")
                .orElseThrow()
                .create(Map.of("volumes", "3", "groups", "0", "secret.user", "admin", "latency", "PT0.001S"));
        assertThat(d).isInstanceOf(ReferenceDriver.class);
        assertThat(((ReferenceDriver) d).sources()).hasSize(3);
        assertThatThrownBy(() -> d.enable(EnableRequest.of(vol))).isInstanceOf(UnauthenticatedException.class);
        assertThat(((ReferenceDriver) ReplicationDriverProvider.find("reference")
                                .orElseThrow()
                                .create())
                        .sources())
                .hasSize(ReferencePlugin.DEFAULT_VOLUMES + ReferencePlugin.DEFAULT_GROUPS);
    }
}
