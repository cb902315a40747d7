package io.volrep.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.volrep.api.ReplicationSource;
import io.volrep.api.Rpc;
import io.volrep.api.StatusCode;
import io.volrep.api.UnknownErrorException;
import io.volrep.spi.DisableRequest;
import io.volrep.spi.EnableRequest;
import io.volrep.spi.PromoteRequest;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * A fixture a passing check leaves enabled and primary stays so for the next check on it (on real storage each enable
 * and disable waits for the replication it starts or stops): the next check's step that enables it takes it as it
 * is, and any other first call meets it disabled, as every check begins. Nothing else is carried.
 */
class CarriedFixturesTest {

    /** A spec-correct plugin that records its mutating calls, and refuses to disable one volume when told. */
    static final class Recording extends SpecDriver {
        final List<String> calls = new CopyOnWriteArrayList<>();
        volatile String refuseDisableOf = "";

        Recording(String... volumes) {
            super(Map.of(), volumes);
        }

        @Override
        public void enable(EnableRequest r) {
            calls.add("enable");
            super.enable(r);
        }

        @Override
        public void disable(DisableRequest r) {
            calls.add("disable");
            if (r.source().id().equals(refuseDisableOf)) {
                throw new UnknownErrorException("refused on purpose");
            }
            super.disable(r);
        }

        @Override
        public void promote(PromoteRequest r) {
            calls.add("promote");
            super.promote(r);
        }
    }

    private final Recording plugin = new Recording("vol-0");
    private final ConformanceConfig config =
            ConformanceConfig.builder().driver(plugin).volumes("vol-0").build();

    private static Check check(String id, Check.Body body) {
        return Check.required(id, body).withId(id).withNeeds(Needs.volume());
    }

    /** Enables the volume (a setup step) and reads its info: ends enabled and primary. */
    private static final Check.Body ENABLES = ctx -> {
        ctx.step(Rpc.ENABLE_VOLUME_REPLICATION, ctx.volume());
        ctx.expect(ctx.call(Rpc.GET_VOLUME_REPLICATION_INFO, ctx.volume()), StatusCode.OK);
    };

    @Test
    void theNextChecksEnablingStepTakesTheFixtureAsTheCheckBeforeLeftIt() throws Throwable {
        try (ConformanceSession session = ConformanceSession.open(config)) {
            session.run(check("first", ENABLES));
            assertThat(plugin.calls).as("left enabled and primary").containsExactly("enable");
            session.run(check("second", ENABLES));
            assertThat(plugin.calls).as("enabled again, idempotently").containsExactly("enable", "enable");
        }
        assertThat(plugin.calls).as("the run leaves it disabled").containsExactly("enable", "enable", "disable");
        assertThat(plugin.sources.get("vol-0").enabled).isFalse();
    }

    @Test
    void aFixtureDemotedAndPromotedBackIsNotCarriedForItsPeerReplaysThatForSecondsOnRealStorage() throws Throwable {
        try (ConformanceSession session = ConformanceSession.open(config)) {
            session.run(check("round-trip", ctx -> {
                ctx.step(Rpc.ENABLE_VOLUME_REPLICATION, ctx.volume());
                ctx.step(Rpc.DEMOTE_VOLUME, ctx.volume());
                ctx.step(Rpc.PROMOTE_VOLUME, ctx.volume());
            }));
            assertThat(plugin.calls).containsExactly("enable", "promote", "disable");
        }
    }

    @Test
    void aCarriedFixtureThatCannotBeDisabledFailsTheCheckAndEveryOtherCarriedOneIsStillDisabled() throws Throwable {
        Recording two = new Recording("vol-0", "vol-1");
        ConformanceConfig both = ConformanceConfig.builder()
                .driver(two)
                .volumes("vol-0", "vol-1")
                .build();
        try (ConformanceSession session = ConformanceSession.open(both)) {
            session.run(Check.required("enables-both", ctx -> {
                        ctx.step(Rpc.ENABLE_VOLUME_REPLICATION, ctx.volume());
                        ctx.step(Rpc.ENABLE_VOLUME_REPLICATION, ctx.secondVolume());
                    })
                    .withId("enables-both")
                    .withNeeds(Needs.volumes(2, 0)));
            two.refuseDisableOf = "vol-0";
            Check promotes = Check.required("promotes", ctx -> ctx.call(Rpc.PROMOTE_VOLUME, ctx.volume()))
                    .withId("promotes")
                    .withNeeds(Needs.volumes(2, 0));

            assertThatThrownBy(() -> session.run(promotes))
                    .hasMessageContaining("could not disable volume vol-0, which check enables-both left enabled");
            assertThat(two.sources.get("vol-1").enabled)
                    .as("the other carried fixture is disabled all the same")
                    .isFalse();
        }
    }

    @Test
    void anyOtherFirstCallMeetsTheFixtureDisabled() throws Throwable {
        try (ConformanceSession session = ConformanceSession.open(config)) {
            session.run(check("first", ENABLES));
            session.run(check(
                    "promote-disabled",
                    ctx -> ctx.expect(ctx.call(Rpc.PROMOTE_VOLUME, ctx.volume()), StatusCode.FAILED_PRECONDITION)));
            assertThat(plugin.calls).containsExactly("enable", "disable", "promote");
        }
    }

    @Test
    void aFailedCheckAChecksOfGivenFixturesAndTheDirectChannelMeetItDisabled() throws Throwable {
        try (ConformanceSession session = ConformanceSession.open(config)) {
            Check fails = check("fails", ctx -> {
                ENABLES.run(ctx);
                ctx.fail("on purpose");
            });
            assertThatThrownBy(() -> session.run(fails)).hasMessageContaining("on purpose");
            assertThat(plugin.calls).as("a failed check is restored").containsExactly("enable", "disable");

            session.run(check("first", ENABLES));
            Check exact = Check.required("exact", ctx -> ctx.step(Rpc.ENABLE_VOLUME_REPLICATION, ctx.volume()))
                    .withId("exact")
                    .withNeeds(Needs.fixture(ReplicationSource.volume("vol-0")));
            session.run(exact);
            assertThat(plugin.calls.subList(2, plugin.calls.size()))
                    .as("a check of given fixtures meets them disabled")
                    .containsExactly("enable", "disable", "enable", "disable");

            session.run(check("first-again", ENABLES));
            session.run(check("direct", ctx -> ctx.channel()));
            assertThat(plugin.calls.subList(6, plugin.calls.size()))
                    .as("the channel is handed over with the fixture disabled")
                    .containsExactly("enable", "disable");
        }
    }
}
