package io.volrep.testkit;

import io.volrep.testkit.ExplorationWalker.Call;
import io.volrep.testkit.LifecycleModel.Action;
import io.volrep.testkit.LifecycleModel.History;
import io.volrep.testkit.LifecycleModel.State;
import io.volrep.testkit.LifecycleModel.Variant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Optional;

/**
 * Shrinks a failure the exploration found: has the walker replay, on its own fixture, the failing call after the
 * shortest path to its state, then after each history, then the tour's sequence with single calls left out (at most
 * {@value #MAX_REPLAYS} replays), and keeps the shortest sequence that fails the same check again; when none does, the
 * tour's own sequence once more, to tell a failure the fixture's own calls show from one seen once only (another
 * source's call may have changed the fixture meanwhile). Every replay costs real calls on real storage, so the
 * candidates are the few the model suggests, not hundreds. It reads only what the replays answer.
 */
final class TourShrinker {
    /** At most this many replays to shrink one failure. */
    private static final int MAX_REPLAYS = 8;

    /** Replays a sequence of actions from replication disabled on the walker's fixture. */
    interface Replayer {
        /** What replaying {@code actions} showed of {@code checkId}'s failure. */
        Replay replay(List<Action> actions, String checkId);
    }

    /** How a replay ended. */
    enum Ending {
        /** The check failed again at the last action. */
        REPRODUCED,
        /** Every call answered and every observation held as the model says: the failure did not show again. */
        CLEAN,
        /** Something else went wrong on the way: the replay tells nothing about the failure. */
        INCONCLUSIVE
    }

    /**
     * One replay: how it ended, and its calls.
     *
     * @param ending how it ended
     * @param calls the calls it made
     */
    record Replay(Ending ending, List<Call> calls) {
        Replay {
            calls = List.copyOf(calls);
        }

        boolean reproduced() {
            return ending == Ending.REPRODUCED;
        }
    }

    /**
     * What shrinking found.
     *
     * @param calls the shortest replayed sequence that fails the check again, described, with how it was found;
     *              empty when no shorter one did
     * @param ending {@link Ending#REPRODUCED} when some replay failed the check again; else how the tour's own
     *               sequence, replayed, ended ({@link Ending#CLEAN}: the fixture's own calls do not show the failure)
     */
    /**
     * What the shrinking found.
     *
     * @param calls the calls that show the failure, described, when a replay reproduced it
     * @param ending how the last replay ended
     * @param reproduction the actions of the shortest replay that reproduced it (empty when none did)
     */
    record Shrunk(Optional<List<String>> calls, Ending ending, List<Action> reproduction) {
        Shrunk {
            reproduction = List.copyOf(reproduction);
        }
    }

    private final LifecycleModel model;

    TourShrinker(LifecycleModel model) {
        this.model = model;
    }

    /**
     * The shortest replayed sequence (from replication disabled) that fails {@code checkId} again: the failing call
     * after the shortest path to its state, after each history, then the tour with single calls left out.
     */
    Shrunk shrink(String checkId, List<Call> tour, IdentityHashMap<Call, State> tourBefore, Replayer replayer) {
        int failing = lastActionIndex(tour);
        Action last = tour.get(failing).action();
        State lastState = tourBefore.get(tour.get(failing));
        List<List<Action>> candidates = new ArrayList<>();
        if (lastState != null) {
            List<History> byLength = new ArrayList<>(model.histories());
            byLength.sort(
                    Comparator.comparingInt(h -> model.pathTo(lastState, h).size()));
            for (History h : byLength) {
                List<Action> c = new ArrayList<>(model.pathTo(lastState, h).stream()
                        .map(rpc -> new Action(rpc, Variant.PLAIN))
                        .toList());
                c.add(last);
                if (!candidates.contains(c)) {
                    candidates.add(c);
                }
            }
        }
        List<Action> original =
                tour.subList(0, failing + 1).stream().map(Call::action).toList();
        Optional<List<Call>> best = Optional.empty();
        List<Action> bestActions = List.of();
        int replays = 0;
        for (List<Action> c : candidates) {
            if (replays++ >= MAX_REPLAYS || c.size() >= original.size()) {
                break;
            }
            Replay r = replayer.replay(c, checkId);
            if (r.reproduced()) {
                best = Optional.of(r.calls());
                bestActions = c;
                break;
            }
        }
        if (best.isEmpty()) {
            // Leave single calls out of the tour's own sequence, latest first, keeping each that is not needed.
            List<Action> current = new ArrayList<>(original);
            for (int i = current.size() - 2; i >= 0 && replays < MAX_REPLAYS; i--) {
                List<Action> c = new ArrayList<>(current);
                c.remove(i);
                replays++;
                Replay replayed = replayer.replay(c, checkId);
                if (replayed.reproduced()) {
                    current = c;
                    best = Optional.of(replayed.calls());
                    bestActions = c;
                }
            }
        }
        if (best.isEmpty()) {
            // Only a replay that ran clean says the fixture's own calls do not show the failure.
            replays++;
            return new Shrunk(
                    Optional.empty(), replayer.replay(original, checkId).ending(), List.of());
        }
        List<String> calls =
                new ArrayList<>(best.get().stream().map(Call::describe).toList());
        calls.add("(shrunk from the tour's " + tour.size() + " calls since replication was disabled, " + replays
                + " replays)");
        return new Shrunk(Optional.of(calls), Ending.REPRODUCED, bestActions);
    }

    /** The index of the last call of {@code tour} that is not an observation of the state after it. */
    private int lastActionIndex(List<Call> tour) {
        int i = tour.size() - 1;
        int probes = model.probes().size();
        // A failure found by observing: the probes after the failing call are not part of what caused it.
        while (i > 0
                && tour.size() - i <= probes
                && model.probes().contains(tour.get(i).action().rpc())
                && tour.get(i).action().variant() == Variant.PLAIN) {
            i--;
        }
        return i;
    }
}
