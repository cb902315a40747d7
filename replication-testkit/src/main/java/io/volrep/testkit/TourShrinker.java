package io.volrep.testkit;

import io.volrep.testkit.Exploration.Visit;
import io.volrep.testkit.ExplorationWalker.Call;
import io.volrep.testkit.ExplorationWalker.Problem;
import io.volrep.testkit.LifecycleModel.Action;
import io.volrep.testkit.LifecycleModel.Expectation;
import io.volrep.testkit.LifecycleModel.History;
import io.volrep.testkit.LifecycleModel.State;
import io.volrep.testkit.LifecycleModel.Variant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Shrinks a failure the exploration found: replays, on the walker's own fixture, the failing call after the shortest
 * path to its state, then after each history, then the tour's sequence with single calls left out (at most
 * {@value #MAX_REPLAYS} replays), and keeps the shortest sequence that fails the same check again. Every replay costs
 * real calls on real storage, so the candidates are the few the model suggests, not hundreds.
 */
final class TourShrinker {
    /** At most this many replays to shrink one failure. */
    private static final int MAX_REPLAYS = 8;

    private final ExplorationWalker walker;
    private final LifecycleModel model;
    /** The checks that failed during the replay under way. */
    private final Set<String> failedInReplay = new HashSet<>();

    TourShrinker(ExplorationWalker walker, LifecycleModel model) {
        this.walker = walker;
        this.model = model;
    }

    /** Notes that {@code checkId} failed again in the replay under way. */
    void failedAgain(String checkId) {
        failedInReplay.add(checkId);
    }

    /**
     * The shortest replayed sequence (from replication disabled) that fails {@code checkId} again: the failing
     * call after the shortest path to its state, after each history, then the tour with single calls left out.
     */
    List<String> shrink(String checkId, List<Call> tour, Map<Call, State> tourBefore) {
        walker.replaying = true;
        try {
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
            List<Call> best = null;
            int replays = 0;
            for (List<Action> c : candidates) {
                if (replays++ >= MAX_REPLAYS || c.size() >= original.size()) {
                    break;
                }
                List<Call> replayed = replay(c, checkId);
                if (replayed != null) {
                    best = replayed;
                    break;
                }
            }
            if (best == null) {
                // Leave single calls out of the tour's own sequence, latest first, keeping each that is not needed.
                List<Action> current = new ArrayList<>(original);
                for (int i = current.size() - 2; i >= 0 && replays < MAX_REPLAYS; i--) {
                    List<Action> c = new ArrayList<>(current);
                    c.remove(i);
                    replays++;
                    List<Call> replayed = replay(c, checkId);
                    if (replayed != null) {
                        current = c;
                        best = replayed;
                    }
                }
            }
            if (best == null) {
                return null;
            }
            List<String> calls =
                    new ArrayList<>(best.stream().map(Call::describe).toList());
            calls.add("(shrunk from the tour's " + tour.size() + " calls since replication was disabled, " + replays
                    + " replays)");
            return calls;
        } finally {
            walker.replaying = false;
            // The source is wherever the replays left it: the tour resets it before it goes on.
            walker.believed = null;
            walker.at = null;
        }
    }

    /** The index of the last call of {@code tour} that is not an observation of the state after it. */
    private int lastActionIndex(List<Call> tour) {
        int i = tour.size() - 1;
        int probes = model.probes().size();
        // A failure found by observing: the probes after the failing call are not part of what caused it.
        while (i > 0
                && tour.size() - i <= probes
                && model.probes().contains(tour.get(i).action().rpc())
                && tour.get(i).action().variant() == Variant.PLAIN
                && i - 1 >= 0) {
            i--;
        }
        return i;
    }

    /** Replays {@code actions} from replication disabled; the calls made when {@code checkId} failed again, else null. */
    private List<Call> replay(List<Action> actions, String checkId) {
        failedInReplay.clear();
        walker.reset();
        for (int i = 0; i < actions.size(); i++) {
            Action a = actions.get(i);
            State before = walker.believed;
            if (before == null) {
                return null;
            }
            Expectation e = model.expect(a, before);
            Outcome o = walker.call(a, before);
            Problem p = walker.judgeAnswer(a, before, e, o);
            if (p != null) {
                return p.checkId().equals(checkId) && i == actions.size() - 1 ? List.copyOf(walker.sequence) : null;
            }
            walker.believed = e.after();
            if (i == actions.size() - 1) {
                walker.observe(a, before, o, new Visit(model.histories().get(0), before, List.of()), true);
                return failedInReplay.contains(checkId) ? List.copyOf(walker.sequence) : null;
            }
        }
        return null;
    }
}
