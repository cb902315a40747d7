package io.volrep.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.volrep.api.Rpc;
import io.volrep.api.SpecDialect;
import io.volrep.api.StatusCode;
import io.volrep.testkit.LifecycleModel.Expectation;
import io.volrep.testkit.LifecycleModel.State;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class LifecycleModelTest {
    private final LifecycleModel model = LifecycleModel.spec();

    @Test
    void theSpecsStatesPathsAndProbes() {
        assertThat(model.reachable()).containsExactly(State.DISABLED, State.PRIMARY, State.SECONDARY);
        assertThat(model.pathTo(State.SECONDARY)).containsExactly(Rpc.ENABLE_VOLUME_REPLICATION, Rpc.DEMOTE_VOLUME);
        // The seventh RPC changes nothing, so it is a probe too: 9 while disabled, OK when enabled in either role.
        assertThat(model.probes())
                .containsExactly(
                        Rpc.RESYNC_VOLUME, Rpc.GET_VOLUME_REPLICATION_INFO, Rpc.GET_REPLICATION_DESTINATION_INFO);
        assertThat(model.expect(Rpc.RESYNC_VOLUME, State.PRIMARY))
                .isEqualTo(new Expectation(StatusCode.FAILED_PRECONDITION, State.PRIMARY));
        assertThat(model.expect(Rpc.PROMOTE_VOLUME, State.SECONDARY))
                .isEqualTo(new Expectation(StatusCode.OK, State.PRIMARY));
        assertThat(model.roundTrip())
                .containsExactly(
                        Rpc.ENABLE_VOLUME_REPLICATION,
                        Rpc.DEMOTE_VOLUME,
                        Rpc.RESYNC_VOLUME,
                        Rpc.PROMOTE_VOLUME,
                        Rpc.DISABLE_VOLUME_REPLICATION);
        assertThat(model.size()).isEqualTo("3 states, 7 RPCs");
    }

    @Test
    void theProbesTellEveryStateApart() {
        for (State a : model.reachable()) {
            for (State b : model.reachable()) {
                if (a != b) {
                    assertThat(model.probes())
                            .as("%s vs %s", a, b)
                            .anyMatch(p -> model.expect(p, a).code()
                                    != model.expect(p, b).code());
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(SpecDialect.class)
    void everyOkIsIdempotentInItsStateAndEveryRefusalIsARowOfTheDialectsTable(SpecDialect dialect) {
        LifecycleModel m = LifecycleModel.forDialect(dialect);
        for (Rpc rpc : m.rpcs()) {
            for (State s : m.reachable()) {
                Expectation e = m.expect(rpc, s);
                if (e.ok()) {
                    assertThat(m.expect(rpc, e.after()))
                            .as("%s repeated in %s", rpc, e.after())
                            .isEqualTo(new Expectation(StatusCode.OK, e.after()));
                } else {
                    assertThat(dialect.errorScheme().lists(rpc, e.code()))
                            .as("%s %s in %s", rpc, e.code(), dialect)
                            .isTrue();
                }
            }
        }
        assertThat(m.rpcs()).allMatch(dialect::supports);
    }

    @Test
    void theExplorationsActionsAndHistoriesAreTheModelsData() {
        // Each RPC plainly; promote, demote and resync also with force (their requests have the field); every RPC
        // with wrong and with missing secrets.
        assertThat(model.actions(true)).hasSize(24);
        assertThat(model.actions(false)).hasSize(10);
        assertThat(model.actions(false).stream()
                        .filter(a -> a.variant() == LifecycleModel.Variant.FORCE)
                        .map(LifecycleModel.Action::rpc))
                .containsExactly(Rpc.PROMOTE_VOLUME, Rpc.DEMOTE_VOLUME, Rpc.RESYNC_VOLUME);
        assertThat(model.expect(
                        new LifecycleModel.Action(Rpc.DEMOTE_VOLUME, LifecycleModel.Variant.WRONG_SECRETS),
                        State.PRIMARY))
                .isEqualTo(new Expectation(StatusCode.UNAUTHENTICATED, State.PRIMARY));
        assertThat(model.histories())
                .extracting(LifecycleModel.History::name)
                .containsExactly(
                        "the shortest path",
                        "after a failover round trip",
                        "after a resync",
                        "after disable and re-enable");
        LifecycleModel.History failover = model.histories().get(1);
        LifecycleModel.History resync = model.histories().get(2);
        LifecycleModel.History reenable = model.histories().get(3);
        assertThat(model.pathTo(State.PRIMARY, failover))
                .containsExactly(Rpc.ENABLE_VOLUME_REPLICATION, Rpc.DEMOTE_VOLUME, Rpc.PROMOTE_VOLUME);
        assertThat(model.pathTo(State.SECONDARY, resync))
                .containsExactly(Rpc.ENABLE_VOLUME_REPLICATION, Rpc.DEMOTE_VOLUME, Rpc.RESYNC_VOLUME);
        assertThat(model.pathTo(State.PRIMARY, reenable))
                .containsExactly(
                        Rpc.ENABLE_VOLUME_REPLICATION, Rpc.DISABLE_VOLUME_REPLICATION, Rpc.ENABLE_VOLUME_REPLICATION);
        assertThat(model.pathTo(State.DISABLED, failover))
                .containsExactly(
                        Rpc.ENABLE_VOLUME_REPLICATION,
                        Rpc.DEMOTE_VOLUME,
                        Rpc.PROMOTE_VOLUME,
                        Rpc.DISABLE_VOLUME_REPLICATION);
    }
}
