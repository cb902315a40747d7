package io.volrep.testkit;

import com.google.protobuf.Message;
import io.grpc.MethodDescriptor.PrototypeMarshaller;
import io.volrep.api.ErrorScheme;
import io.volrep.api.Rpc;
import io.volrep.api.SpecDialect;
import io.volrep.api.StatusCode;
import io.volrep.api.internal.wire.Transcoder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The replication lifecycle of one source (a volume or a volume group) as the spec's error tables define it: the
 * states a client can tell apart, and for every RPC in every state the code the spec demands and the state after
 * an OK answer. The conformance suite walks this model per source kind, from every reachable state.
 *
 * <pre>
 *                  Enable                   Demote
 *   DISABLED  ------------------&gt;  PRIMARY  -----------&gt;  SECONDARY  (Resync: stays, reports ready)
 *      ^   &lt;--------------------  |   ^    &lt;-----------      |
 *      |         Disable             |        Promote          |
 *      +-------------------------------------------------------+ Disable
 * </pre>
 *
 * <p>Why these states: the tables give 9 FAILED_PRECONDITION exactly for "not replicated" (promote, demote, resync,
 * info), "not demoted" (resync) and "not promoted" (info), so replication disabled, enabled primary and enabled
 * secondary are the states a client can observe; a resync in progress and a completed one answer every call alike
 * (only {@code ready} differs). Enable and disable have no 9 row: they answer OK in every state (idempotent).
 * Adding an RPC to the model is one {@link #rule} entry in {@link #spec()}, e.g. for a read-only call answered
 * only while replication is enabled:
 * <pre>{@code
 * rule(Rpc.GET_REPLICATION_DESTINATION_INFO, refused(), stay(), stay())
 * }</pre>
 *
 * <pre>{@code
 * LifecycleModel model = LifecycleModel.forDialect(SpecDialect.CURRENT);
 * model.expect(Rpc.RESYNC_VOLUME, LifecycleModel.State.PRIMARY);   // 9 FAILED_PRECONDITION, stays PRIMARY
 * model.pathTo(LifecycleModel.State.SECONDARY);                   // [EnableVolumeReplication, DemoteVolume]
 * }</pre>
 */
public final class LifecycleModel {

    /** The states a client can tell apart. Every fixture starts (and must end) in {@link #DISABLED}. */
    public enum State {
        /** Replication disabled: the fixture's starting state. */
        DISABLED("replication disabled"),
        /** Replication enabled, the source is the primary (after enable, or promote). */
        PRIMARY("replication enabled, primary"),
        /** Replication enabled, the source is the secondary (after demote; resync keeps it here). */
        SECONDARY("replication enabled, secondary");

        /** What {@link #label()} says before the role of an enabled source, which {@link #shortLabel()} leaves out. */
        private static final String ENABLED = "replication enabled, ";

        private final String label;

        State(String label) {
            this.label = label;
        }

        /** The label where the context says replication is enabled: {@code "primary"}, {@code "replication disabled"}. */
        public String shortLabel() {
            return label.startsWith(ENABLED) ? label.substring(ENABLED.length()) : label;
        }

        /** How check names write it, e.g. {@code "replication enabled, secondary"}. */
        public String label() {
            return label;
        }

        /** How check ids write it, e.g. {@code "secondary"}. */
        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * What the spec demands of one RPC in one state.
     *
     * @param code 0 OK or the code the spec's table gives for this state (9 FAILED_PRECONDITION)
     * @param after the state after the call: the new state after OK, the same state after a refusal
     */
    public record Expectation(StatusCode code, State after) {
        public Expectation {
            Objects.requireNonNull(code, "code");
        }

        /** True when the spec demands 0 OK. */
        public boolean ok() {
            return code == StatusCode.OK;
        }
    }

    /**
     * One RPC's row of the model: its expectation in each state, in {@link State} order.
     *
     * @param rpc the RPC
     * @param byState what it must answer in each state; {@code after == null} means "stays"
     */
    public record Rule(Rpc rpc, Map<State, Expectation> byState) {}

    private static final List<Rule> SPEC = List.of(
            // in:                                    DISABLED        PRIMARY          SECONDARY
            rule(Rpc.ENABLE_VOLUME_REPLICATION, to(State.PRIMARY), stay(), stay()),
            rule(Rpc.DISABLE_VOLUME_REPLICATION, stay(), to(State.DISABLED), to(State.DISABLED)),
            rule(Rpc.PROMOTE_VOLUME, refused(), stay(), to(State.PRIMARY)),
            rule(Rpc.DEMOTE_VOLUME, refused(), to(State.SECONDARY), stay()),
            rule(Rpc.RESYNC_VOLUME, refused(), refused(), stay()),
            rule(Rpc.GET_VOLUME_REPLICATION_INFO, refused(), stay(), refused()),
            rule(Rpc.GET_REPLICATION_DESTINATION_INFO, refused(), stay(), stay()));

    private static final List<Rpc> ROUND_TRIP = List.of(
            Rpc.ENABLE_VOLUME_REPLICATION,
            Rpc.DEMOTE_VOLUME,
            Rpc.RESYNC_VOLUME,
            Rpc.PROMOTE_VOLUME,
            Rpc.DISABLE_VOLUME_REPLICATION);

    /**
     * The histories by which the exploration reaches every state: the shortest path, and each detour (a loop of OK
     * calls from a state back to it) taken on the way. A source that misbehaves only when reached by a longer
     * history (primary again after a failover, secondary after a resync, enabled again after a disable) shows there.
     */
    private static final List<History> HISTORIES = List.of(
            new History("the shortest path", State.DISABLED, List.of()),
            new History("after a failover round trip", State.PRIMARY, List.of(Rpc.DEMOTE_VOLUME, Rpc.PROMOTE_VOLUME)),
            new History("after a resync", State.SECONDARY, List.of(Rpc.RESYNC_VOLUME)),
            new History(
                    "after disable and re-enable",
                    State.PRIMARY,
                    List.of(Rpc.DISABLE_VOLUME_REPLICATION, Rpc.ENABLE_VOLUME_REPLICATION)));

    /**
     * How an action calls its RPC: with valid secrets and without force (the table's rules), with {@code force}
     * (the same rules: force never makes a refused call allowed, nor an allowed one refused, in one site's model), or
     * with wrong or missing secrets (16 UNAUTHENTICATED in every state, and nothing changes).
     */
    public enum Variant {
        /** Valid secrets, no force. */
        PLAIN,
        /** Valid secrets, {@code force = true} (RPCs whose request has the field: promote, demote, resync). */
        FORCE,
        /** Every configured secret with a wrong value. */
        WRONG_SECRETS,
        /** No secrets at all. */
        MISSING_SECRETS;

        /** How reports write it, its name in words: {@code "force"}, {@code "wrong secrets"}; empty for PLAIN. */
        public String label() {
            return this == PLAIN ? "" : name().toLowerCase(Locale.ROOT).replace('_', ' ');
        }
    }

    /**
     * One thing the exploration can do to a source: an RPC called one way.
     *
     * @param rpc the RPC
     * @param variant how it is called
     */
    public record Action(Rpc rpc, Variant variant) {
        /** {@code "PromoteVolume (force)"}, {@code "DemoteVolume"}. */
        public String label() {
            return rpc.methodName() + (variant == Variant.PLAIN ? "" : " (" + variant.label() + ")");
        }

        @Override
        public String toString() {
            return label();
        }
    }

    /**
     * A way to reach a state: the shortest path to {@code at}, the {@code detour} (OK calls from {@code at} back to
     * it), then the shortest path on. The shortest path itself has no detour.
     *
     * @param name how reports say it, e.g. {@code "after a failover round trip"}
     * @param at where the detour starts and ends
     * @param detour the loop
     */
    public record History(String name, State at, List<Rpc> detour) {
        public History {
            detour = List.copyOf(detour);
        }
    }

    private final List<Rule> rules;
    private final Map<Rpc, Rule> byRpc = new LinkedHashMap<>();
    private final List<History> histories;

    private LifecycleModel(List<Rule> rules) {
        this.rules = List.copyOf(rules);
        for (Rule r : this.rules) {
            byRpc.put(r.rpc(), r);
        }
        this.histories = HISTORIES.stream()
                .filter(h -> h.detour().stream().allMatch(byRpc::containsKey))
                .toList();
        State at = State.DISABLED;
        for (Rpc step : ROUND_TRIP) {
            Expectation e = expect(step, at);
            if (!e.ok()) {
                throw new IllegalStateException("round trip: " + step + " is refused in " + at);
            }
            at = e.after();
        }
        if (at != State.DISABLED) {
            throw new IllegalStateException("round trip ends in " + at);
        }
        for (History h : histories) {
            for (State target : reachable()) {
                State s = State.DISABLED;
                for (Rpc step : pathTo(target, h)) {
                    Expectation e = expect(step, s);
                    if (!e.ok()) {
                        throw new IllegalStateException("history " + h.name() + ": " + step + " is refused in " + s);
                    }
                    s = e.after();
                }
                if (s != target) {
                    throw new IllegalStateException("history " + h.name() + " to " + target + " ends in " + s);
                }
            }
        }
    }

    /** The model of the current spec (every RPC of seed 001). */
    public static LifecycleModel spec() {
        return new LifecycleModel(SPEC);
    }

    /** The model restricted to the RPCs {@code dialect} has (v0.1.0: no GetVolumeReplicationInfo). */
    public static LifecycleModel forDialect(SpecDialect dialect) {
        return new LifecycleModel(
                SPEC.stream().filter(r -> dialect.supports(r.rpc())).toList());
    }

    /**
     * One model entry: {@code rpc}'s expectation in DISABLED, PRIMARY and SECONDARY, in that order.
     * A refusal's code comes from the RPC's table, so the model cannot demand a code the table lacks.
     */
    static Rule rule(Rpc rpc, Expectation disabled, Expectation primary, Expectation secondary) {
        Map<State, Expectation> byState = new EnumMap<>(State.class);
        byState.put(State.DISABLED, settle(disabled, State.DISABLED));
        byState.put(State.PRIMARY, settle(primary, State.PRIMARY));
        byState.put(State.SECONDARY, settle(secondary, State.SECONDARY));
        for (Expectation e : byState.values()) {
            if (!e.ok() && !ErrorScheme.spec().lists(rpc, e.code())) {
                throw new IllegalStateException(rpc + ": the model demands " + e.code() + ", not a row of its table");
            }
        }
        return new Rule(rpc, Collections.unmodifiableMap(byState));
    }

    private static Expectation settle(Expectation e, State current) {
        return e.after() == null ? new Expectation(e.code(), current) : e;
    }

    /** 0 OK, then {@code after}. */
    static Expectation to(State after) {
        return new Expectation(StatusCode.OK, after);
    }

    /** 0 OK, and the state stays. */
    static Expectation stay() {
        return new Expectation(StatusCode.OK, null);
    }

    /** 9 FAILED_PRECONDITION, and the state stays. */
    static Expectation refused() {
        return new Expectation(StatusCode.FAILED_PRECONDITION, null);
    }

    /** The RPCs of the model, in spec order. */
    public List<Rpc> rpcs() {
        return List.copyOf(byRpc.keySet());
    }

    /** The model's entries. */
    public List<Rule> rules() {
        return rules;
    }

    /** What {@code rpc} must answer in {@code state}, and the state after. */
    public Expectation expect(Rpc rpc, State state) {
        Rule rule = byRpc.get(rpc);
        if (rule == null) {
            throw new IllegalArgumentException(rpc + " is not in the lifecycle model");
        }
        return rule.byState().get(state);
    }

    /** The states reachable from {@link State#DISABLED} through OK answers, breadth first. */
    public List<State> reachable() {
        return List.copyOf(paths(State.DISABLED).keySet());
    }

    /** The shortest sequence of OK calls from {@link State#DISABLED} to {@code state}. */
    public List<Rpc> pathTo(State state) {
        return path(State.DISABLED, state);
    }

    /** The sequence of OK calls from {@link State#DISABLED} to {@code state} by {@code history}. */
    public List<Rpc> pathTo(State state, History history) {
        if (history.detour().isEmpty()) {
            return pathTo(state);
        }
        List<Rpc> path = new ArrayList<>(path(State.DISABLED, history.at()));
        path.addAll(history.detour());
        path.addAll(path(history.at(), state));
        return List.copyOf(path);
    }

    /** The histories by which the exploration reaches each state (those whose RPCs this model has). */
    public List<History> histories() {
        return histories;
    }

    /**
     * Every action of the model: each RPC plainly, with force where its request has the field, and (when the run has
     * secrets to get wrong) with wrong and with missing secrets.
     */
    public List<Action> actions(boolean secrets) {
        List<Action> actions = new ArrayList<>();
        for (Rule r : rules) {
            actions.add(new Action(r.rpc(), Variant.PLAIN));
            if (forceable(r.rpc())) {
                actions.add(new Action(r.rpc(), Variant.FORCE));
            }
        }
        if (secrets) {
            for (Rule r : rules) {
                actions.add(new Action(r.rpc(), Variant.WRONG_SECRETS));
                actions.add(new Action(r.rpc(), Variant.MISSING_SECRETS));
            }
        }
        return actions;
    }

    /** True when {@code rpc}'s request has a {@code force} field (read from the spec's message, not listed here). */
    static boolean forceable(Rpc rpc) {
        return Transcoder.of(SpecDialect.CURRENT).method(rpc).getRequestMarshaller() instanceof PrototypeMarshaller<?> m
                && ((Message) m.getMessagePrototype()).getDescriptorForType().findFieldByName("force") != null;
    }

    /** What {@code action} must answer in {@code state}: the RPC's rule, or 16 UNAUTHENTICATED (state stays). */
    public Expectation expect(Action action, State state) {
        return switch (action.variant()) {
            case PLAIN, FORCE -> expect(action.rpc(), state);
            case WRONG_SECRETS, MISSING_SECRETS -> new Expectation(StatusCode.UNAUTHENTICATED, state);
        };
    }

    /** The shortest sequence of OK calls from {@code from} to {@code to}. */
    public List<Rpc> path(State from, State to) {
        List<Rpc> path = paths(from).get(to);
        if (path == null) {
            throw new IllegalArgumentException(to + " is not reachable from " + from + " in this model");
        }
        return path;
    }

    private Map<State, List<Rpc>> paths(State start) {
        Map<State, List<Rpc>> paths = new LinkedHashMap<>();
        paths.put(start, List.of());
        Deque<State> queue = new ArrayDeque<>(List.of(start));
        while (!queue.isEmpty()) {
            State from = queue.poll();
            for (Rule r : rules) {
                Expectation e = r.byState().get(from);
                if (e.ok() && !paths.containsKey(e.after())) {
                    List<Rpc> path = new ArrayList<>(paths.get(from));
                    path.add(r.rpc());
                    paths.put(e.after(), List.copyOf(path));
                    queue.add(e.after());
                }
            }
        }
        return paths;
    }

    /**
     * The probes: RPCs that never change the state (every expectation stays). Their codes tell the states apart
     * without moving the source, so the suite observes a state through them instead of taking it on trust.
     */
    public List<Rpc> probes() {
        return rules.stream()
                .filter(r -> r.byState().entrySet().stream()
                        .allMatch(e -> e.getValue().after() == e.getKey()))
                .map(Rule::rpc)
                .toList();
    }

    /**
     * The failover round trip from {@link State#DISABLED} back to it through every state: enable, demote, resync,
     * promote, disable. Each step is an OK transition of the model (checked when the model is built).
     */
    public List<Rpc> roundTrip() {
        return ROUND_TRIP;
    }

    /** {@code "3 states, 6 RPCs"}. */
    public String size() {
        return reachable().size() + " states, " + rules.size() + " RPCs";
    }
}
