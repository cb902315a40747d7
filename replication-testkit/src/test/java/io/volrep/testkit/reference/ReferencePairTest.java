package io.volrep.testkit.reference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.volrep.api.PreconditionFailedException;
import io.volrep.api.ReplicationInfo;
import io.volrep.api.ReplicationSource;
import io.volrep.api.SourceNotFoundException;
import io.volrep.spi.DemoteRequest;
import io.volrep.spi.DisableRequest;
import io.volrep.spi.EnableRequest;
import io.volrep.spi.InfoRequest;
import io.volrep.spi.PromoteRequest;
import io.volrep.spi.ResyncRequest;
import io.volrep.testkit.reference.ReferenceDriver.Role;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import org.junit.jupiter.api.Test;

/** Two in-memory sites of one replication pair, with real storage's windows on a clock the test moves. */
class ReferencePairTest {
    private final ReplicationSource vol = ReplicationSource.volume("vol-0");
    private final MovingClock clock = new MovingClock();
    private final ReferencePair pair = ReferenceDriver.builder()
            .volumes(1)
            .clock(clock)
            .demotionWindow(Duration.ofSeconds(3))
            .firstSyncDelay(Duration.ofSeconds(5))
            .buildPair();
    private final ReferenceDriver a = pair.siteA();
    private final ReferenceDriver b = pair.siteB();

    @Test
    void enableOnASiteMakesItPrimaryAndThePeersCopySecondaryDisableRemovesBoth() {
        a.enable(EnableRequest.of(vol));
        assertThat(a.state(vol).role()).isEqualTo(Role.PRIMARY);
        assertThat(b.state(vol).enabled()).isTrue();
        assertThat(b.state(vol).role()).isEqualTo(Role.SECONDARY);

        b.disable(DisableRequest.of(vol));
        assertThat(a.state(vol).enabled()).isFalse();
        assertThat(b.state(vol).enabled()).isFalse();
    }

    @Test
    void aPromoteWithoutForceIsRefusedWhileThePeerIsPrimaryAndWithinTheDemotionWindow() {
        a.enable(EnableRequest.of(vol));
        assertThatThrownBy(() -> b.promote(PromoteRequest.of(vol)))
                .isInstanceOf(PreconditionFailedException.class)
                .hasMessageContaining("cannot be promoted without force: the peer site holds the primary");

        a.demote(DemoteRequest.of(vol));
        clock.advance(Duration.ofSeconds(2));
        assertThatThrownBy(() -> b.promote(PromoteRequest.of(vol)))
                .isInstanceOf(PreconditionFailedException.class)
                .hasMessageContaining("demotion has not arrived");
        clock.advance(Duration.ofSeconds(2));
        b.promote(PromoteRequest.of(vol));
        assertThat(b.state(vol).role()).isEqualTo(Role.PRIMARY);
    }

    @Test
    void infoAnswersNotFoundForTheFirstSyncDelayAfterAnEnableAndAfterAPromote() {
        a.enable(EnableRequest.of(vol));
        assertThatThrownBy(() -> a.info(InfoRequest.of(vol)))
                .isInstanceOf(SourceNotFoundException.class)
                .hasMessageContaining("not available at the moment");
        clock.advance(Duration.ofSeconds(6));
        assertThat(a.info(InfoRequest.of(vol)).status()).isEqualTo(ReplicationInfo.Status.HEALTHY);

        a.demote(DemoteRequest.of(vol));
        a.promote(PromoteRequest.of(vol));
        assertThatThrownBy(() -> a.info(InfoRequest.of(vol))).isInstanceOf(SourceNotFoundException.class);
    }

    @Test
    void aResyncIsReadyOnlyWhileThePeerHoldsThePrimary() {
        a.enable(EnableRequest.of(vol));
        a.demote(DemoteRequest.of(vol));
        for (int i = 0; i < 5; i++) {
            assertThat(a.resync(ResyncRequest.of(vol)).ready())
                    .as("nothing to copy from")
                    .isFalse();
        }
        clock.advance(Duration.ofSeconds(4));
        b.promote(PromoteRequest.of(vol));
        assertThat(a.resync(ResyncRequest.of(vol)).ready()).isFalse();
        assertThat(a.resync(ResyncRequest.of(vol)).ready()).isTrue();
    }

    @Test
    void aForcedPromoteWhileThePeerIsPrimaryLeavesItInSplitBrainUntilItResyncs() {
        a.enable(EnableRequest.of(vol));
        clock.advance(Duration.ofSeconds(6));
        b.promote(PromoteRequest.builder().source(vol).force(true).build());
        assertThat(a.info(InfoRequest.of(vol)).status()).isEqualTo(ReplicationInfo.Status.ERROR);

        a.demote(DemoteRequest.of(vol));
        a.resync(ResyncRequest.of(vol));
        a.resync(ResyncRequest.of(vol));
        clock.advance(Duration.ofSeconds(6));
        assertThat(b.info(InfoRequest.of(vol)).status()).isEqualTo(ReplicationInfo.Status.HEALTHY);
    }

    /** A clock the test moves by hand. */
    private static final class MovingClock extends Clock {
        private Instant now = Instant.parse("2026-01-01T00:00:00Z");

        void advance(Duration d) {
            now = now.plus(d);
        }

        @Override
        public ZoneId getZone() {
            return ZoneId.of("UTC");
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
