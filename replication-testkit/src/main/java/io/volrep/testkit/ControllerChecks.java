package io.volrep.testkit;

import com.google.protobuf.Message;
import io.volrep.api.CsiLimits;
import io.volrep.api.ErrorScheme;
import io.volrep.api.ReplicationSource.Kind;
import io.volrep.api.Rpc;
import io.volrep.api.SpecDialect;
import io.volrep.api.StatusCode;
import io.volrep.proto.replication.GetReplicationDestinationInfoResponse;
import io.volrep.proto.replication.ReplicationSource.VolumeSource;
import io.volrep.testkit.LifecycleModel.State;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The built-in checks of {@code replication.Controller}. Expected codes come from the tables of the plugin's
 * spec revision ({@link ErrorScheme#forDialect}), and each error check is named after its row
 * ({@link ErrorScheme.Row#displayName()}) plus, in brackets, the case it provokes. Under a legacy dialect the
 * RPCs and forms that revision lacks are left out (v0.1.0: no GetVolumeReplicationInfo, no replication_source).
 *
 * <p>Fixture assumption: every configured volume and group starts with replication disabled (the spec has
 * no "get state" RPC; the Fixtures checks probe it with GetVolumeReplicationInfo). A freshly enabled source
 * is promoted before anything that needs a primary.
 */
final class ControllerChecks {
    /** An id no fixture uses; the plugin must answer 5 NOT_FOUND for it. */
    static final String MISSING_VOLUME = "volrep-conformance-no-such-volume";

    static final String MISSING_GROUP = "volrep-conformance-no-such-group";
    static final int SIMULTANEOUS_CALLS = 6;
    /** The bracketed cases of the (optional) CSI size-limit checks, after each RPC's missing-field row. */
    static final String ID_OVER_LIMIT = "volume_id of " + (CsiLimits.MAX_STRING_BYTES + 1) + " bytes";

    static final String PARAMETERS_OVER_LIMIT = "parameters over 4 KiB";
    static final String SECRETS_OVER_LIMIT = "secrets over 4 KiB";

    /** The replication RPCs: those of the lifecycle model, so an RPC added there gets its group here. */
    static final List<Rpc> RPCS = LifecycleModel.spec().rpcs();

    static final String LIFECYCLE = "Lifecycle: enable, promote, demote, resync until ready, promote, disable -> 0 OK";
    static final String LAST_SYNC_TIME = "GetVolumeReplicationInfo: last_sync_time is REQUIRED";
    static final String LAST_SYNC_BYTES = "GetVolumeReplicationInfo: last_sync_bytes MUST NOT be negative";
    static final String LAST_SYNC_DURATION = "GetVolumeReplicationInfo: last_sync_duration is not negative";
    static final String RESYNC_READY = "ResyncVolume: ready becomes true within the resync timeout";
    static final String DISTINCT_DESTINATIONS = "GetReplicationDestinationInfo: distinct sources have distinct"
            + " destinations, and a group's member map is one to one [every fixture, enabled at once]";
    static final String SECRETS_NOT_ECHOED =
            "Response validity: no answer repeats a secret of its request (error details, messages) [every call of the"
                    + " run]";
    static final String HEALTH_STATUS = "GetVolumeReplicationInfo: status is one of UNKNOWN, HEALTHY, DEGRADED, ERROR";
    static final String DESTINATION_VOLUME =
            "GetReplicationDestinationInfo: a volume's destination is a volume with" + " a non-empty id";
    static final String DESTINATION_GROUP = "GetReplicationDestinationInfo: a volume group's destination is a volume"
            + " group with a non-empty id and no empty member id";
    static final String FORM_SOURCE = "Request form: replication_source alone -> 0 OK on every RPC";
    static final String FORM_DEPRECATED = "Request form: deprecated volume_id alone -> 0 OK on every RPC";
    static final String FORM_VOLUME_ID = "Request form: volume_id alone -> 0 OK on every RPC";
    static final String FORM_RESERVED_ALONE =
            "Request form: reserved field 1 (volume_id) alone names no source -> 3" + " INVALID_ARGUMENT on every RPC";
    static final String FORM_RESERVED_BESIDE = "Request form: reserved field 1 (volume_id) beside replication_source"
            + " is ignored -> 0 OK on every RPC [field 1 names a volume that does not exist]";

    private static final ErrorScheme SCHEME = ErrorScheme.spec();

    private ControllerChecks() {}

    /** The row's display name, e.g. {@code "PromoteVolume: Replication Source is not replicated -> 9 FAILED_PRECONDITION"}. */
    static String row(Rpc rpc, StatusCode code) {
        return row(SCHEME, rpc, code);
    }

    /**
     * The display name of a row of {@code scheme}, its condition quoted as the spec words it: where the spec's words
     * hold a typo, the name says it is the spec's ({@link #SIC}), e.g. {@code "DemoteVolume: Replication Source in
     * [sic, the spec's words] not replicated -> 9 FAILED_PRECONDITION"}.
     */
    static String row(ErrorScheme scheme, Rpc rpc, StatusCode code) {
        return quoted(scheme.find(rpc, code)
                .orElseThrow(() -> new IllegalStateException("the spec's table for " + rpc + " has no " + code))
                .displayName());
    }

    /** What follows a typo the spec's own words hold, in the check names that quote them. */
    static final String SIC = "[sic, the spec's words]";

    /** The spec's typos, each with the word it misspells: the spec's tables say "in" for "is" in DemoteVolume's row. */
    private static final List<String> TYPOS = List.of(" in not replicated");

    /** {@code name} with every typo of the spec it quotes marked {@link #SIC}. */
    static String quoted(String name) {
        String marked = name;
        for (String typo : TYPOS) {
            int at = marked.indexOf(typo);
            if (at >= 0) {
                int end = at + " in".length();
                marked = marked.substring(0, end) + " " + SIC + marked.substring(end);
            }
        }
        return marked;
    }

    /** Name of the check for a row and a case: {@code "<row> [<case>]"}. */
    static String rowCase(Rpc rpc, StatusCode code, String variant) {
        return rowCase(SCHEME, rpc, code, variant);
    }

    static String rowCase(ErrorScheme scheme, Rpc rpc, StatusCode code, String variant) {
        return row(scheme, rpc, code) + " [" + variant + "]";
    }

    static List<CheckGroup> groups() {
        List<CheckGroup> groups = new ArrayList<>();
        groups.add(CheckGroup.of("Fixtures", ControllerChecks::fixtures));
        for (Rpc rpc : RPCS) {
            groups.add(CheckGroup.of(
                    rpc.methodName(),
                    config -> config.dialect().supports(rpc) ? rpcChecks(config.dialect(), rpc) : List.of()));
        }
        groups.add(CheckGroup.of("Lifecycle", ControllerChecks::lifecycle));
        groups.add(CheckGroup.of(LifecycleChecks.ISOLATION, LifecycleChecks::isolation));
        groups.add(CheckGroup.of("Response validity", config -> {
            List<Check> checks = new ArrayList<>(responseValidity(config.dialect()));
            checks.addAll(LifecycleChecks.roundTripValidity(config));
            return checks;
        }));
        groups.add(CheckGroup.of("Request forms", config -> requestForms(config.dialect())));
        groups.add(CheckGroup.of(TwoSiteChecks.GROUP, TwoSiteChecks::checks));
        groups.add(CheckGroup.of("Fixtures restored", LifecycleChecks::fixturesRestored));
        return groups;
    }

    // ---------------------------------------------------------------- fixtures

    private static List<Check> fixtures(ConformanceConfig config) {
        List<Check> checks = new ArrayList<>();
        for (String id : config.volumes()) {
            checks.add(Check.required(
                            "Fixtures: volume " + id + " exists with replication disabled",
                            ctx -> probeFixture(ctx, Addressing.volume(id)))
                    .withId("fixtures/volume/" + id)
                    .withNeeds(Needs.fixture(io.volrep.api.ReplicationSource.volume(id))
                            .at(Needs.Order.FIRST)));
        }
        for (String id : config.volumeGroups()) {
            checks.add(Check.required("Fixtures: volume group " + id + " exists with replication disabled", ctx -> {
                        ctx.volumeGroup(); // skips where the dialect has no groups
                        probeFixture(ctx, Addressing.volumeGroup(id));
                    })
                    .withId("fixtures/group/" + id)
                    .withNeeds(Needs.fixture(io.volrep.api.ReplicationSource.volumeGroup(id))
                            .at(Needs.Order.FIRST)));
        }
        return checks;
    }

    private static void probeFixture(ConformanceContext ctx, Addressing target) {
        // Read-only probe: a source with replication disabled cannot report replication info (nor, in v0.1.0,
        // which has no info, be promoted).
        Rpc probe = ctx.dialect().supports(Rpc.GET_VOLUME_REPLICATION_INFO)
                ? Rpc.GET_VOLUME_REPLICATION_INFO
                : Rpc.PROMOTE_VOLUME;
        Outcome info = ctx.call(probe, target);
        switch (info.code()) {
            case FAILED_PRECONDITION -> {
                return;
            }
            case UNIMPLEMENTED -> {
                ctx.skip(probe.methodName() + " is not implemented: cannot probe " + target);
                return;
            }
            case OK -> {
                ctx.fail(target + " has replication enabled (" + probe.methodName() + " -> 0 OK): fixtures must start"
                        + " with replication disabled");
                return;
            }
            case NOT_FOUND -> {
                ctx.fail(target + " does not exist (" + probe.methodName() + " -> " + info.describe() + ")");
                return;
            }
            default ->
                ctx.fail("probing " + target + ": " + probe.methodName() + " -> " + info.describe()
                        + "; expected 9 FAILED_PRECONDITION for a source with replication disabled");
        }
    }

    // ---------------------------------------------------------------- per RPC

    /** Puts {@code target} (replication disabled) in a state where {@code rpc} with valid secrets succeeds. */
    static void prepare(ConformanceContext ctx, Rpc rpc, Addressing target) {
        LifecycleModel model = LifecycleModel.forDialect(ctx.dialect());
        LifecycleChecks.reach(ctx, model, target, LifecycleChecks.stateWhereAllowed(model, rpc));
    }

    private static List<Check> rpcChecks(SpecDialect dialect, Rpc rpc) {
        ErrorScheme scheme = dialect.errorScheme();
        List<Check> checks = new ArrayList<>();
        StatusCode invalid = StatusCode.INVALID_ARGUMENT;
        // The case each malformed form provokes, as the id's subject and condition.
        Map<Addressing, String> malformedForms = new LinkedHashMap<>();
        malformedForms.put(Addressing.none(), "request/no-source");
        boolean hasSource = Wire.requestHas(dialect, rpc, "replication_source");
        if (hasSource) {
            malformedForms.put(Addressing.sourceWithoutType(), "request/source-without-type");
            malformedForms.put(Addressing.emptyVolumeId(), "volume/empty-id");
        }
        malformedForms.forEach((malformed, idTail) ->
                checks.add(Check.required(rowCase(scheme, rpc, invalid, malformed.label()), ctx -> {
                            Outcome o = ctx.call(rpc, malformed);
                            unchanged(ctx, o, ctx.volume(), LifecycleModel.State.DISABLED);
                            ctx.expect(o, invalid);
                        })
                        .withId(rpc.methodName() + "/" + idTail)
                        .withNeeds(Needs.volume())));
        if (hasSource) {
            checks.add(Check.required(
                            rowCase(
                                    scheme,
                                    rpc,
                                    invalid,
                                    Addressing.emptyVolumeGroupId().label()),
                            ctx -> {
                                ctx.volumeGroup();
                                Outcome o = ctx.call(rpc, Addressing.emptyVolumeGroupId());
                                unchanged(ctx, o, ctx.volume(), LifecycleModel.State.DISABLED);
                                ctx.expect(o, invalid);
                            })
                    .withId(rpc.methodName() + "/group/empty-id")
                    .withNeeds(Needs.volume()));
        }
        if (hasSource && dialect.volumeIdRequired()) {
            checks.add(Check.required(
                            rowCase(
                                    scheme,
                                    rpc,
                                    invalid,
                                    "volume_id missing (REQUIRED in v0.1.3), replication_source.volume set"),
                            ctx -> ctx.expect(ctx.callExact(rpc, ctx.volume()), invalid, rpc + " without volume_id"))
                    .withId(rpc.methodName() + "/volume/no-volume-id")
                    .withNeeds(Needs.volume()));
        }
        checks.add(Check.required(rowCase(scheme, rpc, StatusCode.NOT_FOUND, "volume " + MISSING_VOLUME), ctx -> {
                    Outcome o = ctx.call(rpc, Addressing.volume(MISSING_VOLUME));
                    stillMissing(ctx, o, Addressing.volume(MISSING_VOLUME));
                    ctx.expect(o, StatusCode.NOT_FOUND);
                })
                .withId(rpc.methodName() + "/volume/not-found")
                .withNeeds(Needs.none()));
        checks.add(Check.required(rowCase(scheme, rpc, StatusCode.NOT_FOUND, "volume group " + MISSING_GROUP), ctx -> {
                    ctx.volumeGroup();
                    Outcome o = ctx.call(rpc, Addressing.volumeGroup(MISSING_GROUP));
                    stillMissing(ctx, o, Addressing.volumeGroup(MISSING_GROUP));
                    ctx.expect(o, StatusCode.NOT_FOUND);
                })
                .withId(rpc.methodName() + "/group/not-found")
                .withNeeds(Needs.none()));
        checks.addAll(sizeLimitChecks(scheme, rpc));
        checks.addAll(LifecycleChecks.walk(dialect, rpc));
        checks.addAll(LifecycleChecks.authentication(dialect, rpc));
        if (rpc == Rpc.GET_REPLICATION_DESTINATION_INFO) {
            checks.addAll(LifecycleChecks.consistency(dialect));
        }
        if (rpc == Rpc.GET_VOLUME_REPLICATION_INFO) {
            checks.addAll(LifecycleChecks.overTime(dialect));
        }
        checks.add(repeated(dialect, rpc));
        checks.add(Check.optional(
                        rowCase(
                                scheme,
                                rpc,
                                StatusCode.ABORTED,
                                SIMULTANEOUS_CALLS + " simultaneous calls answer only 0 OK or 10 ABORTED"),
                        ctx -> simultaneousCalls(ctx, rpc))
                .withId(rpc.methodName() + "/volume/simultaneous-calls")
                .withNeeds(Needs.volume()));
        return checks;
    }

    /** How many times the repeat checks send the same call in a row: more than the walk's twice. */
    static final int REPEATS = 5;

    /**
     * The same call {@value #REPEATS} times in a row, one after the other, in the state the first leads to: every call
     * the answer the model gives there, and the state unchanged after each, observed (a call that breaks only the
     * third time, a counter that runs out, is seen here).
     */
    private static Check repeated(SpecDialect dialect, Rpc rpc) {
        LifecycleModel model = LifecycleModel.forDialect(dialect);
        LifecycleModel.State start = LifecycleChecks.stateWhereAllowed(model, rpc);
        LifecycleModel.State then = model.expect(rpc, start).after();
        return Check.builder()
                .id(rpc.methodName() + "/volume/repeated")
                .name(rpc.methodName() + ": the same call " + REPEATS + " times in a row -> 0 OK each time, "
                        + then.shortLabel() + " after each [volume, " + start.label() + "]")
                .hint("every call is idempotent: the same call again answers as the first did and changes nothing,"
                        + " however often it comes (look for counters, caches or marks that run out)")
                .needs(Needs.volume().calls(3 * REPEATS))
                .body(ctx -> {
                    ctx.sequential();
                    Addressing vol = ctx.volume();
                    LifecycleChecks.reach(ctx, model, vol, start);
                    for (int i = 1; i <= REPEATS; i++) {
                        LifecycleModel.State before = ctx.believed(vol);
                        Outcome o = ctx.call(rpc, vol);
                        LifecycleChecks.judge(
                                ctx,
                                o,
                                StatusCode.OK,
                                vol,
                                before,
                                rpc.methodName() + " on " + vol + ", call " + i + " of " + REPEATS + " in a row");
                        LifecycleChecks.observe(
                                ctx,
                                model,
                                vol,
                                then,
                                rpc.methodName() + " call " + i + " of " + REPEATS + " in a row");
                    }
                })
                .build();
    }

    /**
     * {@value #SIMULTANEOUS_CALLS} identical calls at once on a volume where {@code rpc} is allowed: only 0 OK and 10
     * ABORTED, at least one served. An answer that is no row of the table is a MUST broken; a wrong answer that the
     * exploration's check of the same call in the same state shows is that check's failure.
     */
    private static void simultaneousCalls(ConformanceContext ctx, Rpc rpc) {
        Addressing vol = ctx.volume();
        prepare(ctx, rpc, vol);
        ctx.call(rpc, vol); // past any transient answer first (settled): this check is about concurrency
        LifecycleModel model = LifecycleModel.forDialect(ctx.dialect());
        List<String> sameCall = new ArrayList<>();
        sameCall.add(LifecycleChecks.walkId(rpc, ResponseRules.kindOf(vol), ctx.believed(vol)));
        sameCall.addAll(ctx.calls(vol));
        List<Outcome> outcomes = ctx.callSimultaneously(rpc, vol, SIMULTANEOUS_CALLS);
        long ok = outcomes.stream().filter(Outcome::ok).count();
        for (Outcome o : outcomes) {
            if (o.code() == StatusCode.UNIMPLEMENTED && ctx.scheme().lists(rpc, StatusCode.UNIMPLEMENTED)) {
                ctx.notImplemented(rpc);
            }
            if (!o.ok() && o.code() != StatusCode.ABORTED) {
                String what = SIMULTANEOUS_CALLS + " simultaneous " + rpc + " calls on " + vol + ": one answered "
                        + o.describe() + "; only 0 OK and 10 ABORTED are allowed";
                if (!ctx.scheme().lists(rpc, o.code()) && !ErrorScheme.TRANSPORT_BACKOFF_CODES.contains(o.code())) {
                    // A MUST, whatever this check's level: unless the same call alone shows it already.
                    ctx.failBecause(
                            sameCall,
                            ConformanceContext.MUST_PREFIX + what + " ("
                                    + o.code().display() + " is not a row of " + rpc.methodName()
                                    + "'s table: any code outside the table breaks a MUST)");
                }
                ctx.failBecause(sameCall, what);
            }
        }
        if (ok == 0) {
            ctx.failBecause(
                    sameCall,
                    SIMULTANEOUS_CALLS + " simultaneous " + rpc + " calls on " + vol
                            + ": all answered 10 ABORTED; at least one should be served");
        }
        // The calls refused with 10 must have changed nothing: the state is the one the served calls lead to.
        LifecycleModel.State expected = model.expect(rpc, ctx.believed(vol)).after();
        Runnable observation = () -> LifecycleChecks.observe(
                ctx, model, vol, expected, outcomes.size() + " simultaneous " + rpc.methodName() + " calls");
        if (ok < outcomes.size()) {
            ctx.mustHold(observation, (outcomes.size() - ok) + " of them refused with 10 ABORTED, a refusal changed");
        } else {
            observation.run();
        }
    }

    /**
     * After a refused call ({@code refusal} not 0 OK), {@code observed} must still answer as in {@code expected}: a
     * refusal changes nothing, a MUST whatever the check's level. Nothing to observe after an OK answer (the check
     * judges the code itself).
     */
    static void unchanged(ConformanceContext ctx, Outcome refusal, Addressing observed, LifecycleModel.State expected) {
        if (refusal.ok()) {
            return;
        }
        LifecycleModel model = LifecycleModel.forDialect(ctx.dialect());
        ctx.mustHold(
                () -> LifecycleChecks.observe(
                        ctx,
                        model,
                        observed,
                        expected,
                        refusal.rpc().methodName() + " answered "
                                + refusal.code().display()),
                "the refused " + refusal.rpc().methodName() + " ("
                        + refusal.code().display() + ") changed " + observed);
    }

    /**
     * After a refused call on a source that does not exist, the source must still not exist: every probe answers 5
     * NOT_FOUND (a refusal that created or enabled it changed something, a MUST whatever the check's level).
     */
    static void stillMissing(ConformanceContext ctx, Outcome refusal, Addressing missing) {
        if (refusal.ok()) {
            return;
        }
        Rpc probe = LifecycleModel.forDialect(ctx.dialect()).probes().get(0);
        Outcome o = ctx.call(probe, missing);
        if (o.code() != StatusCode.NOT_FOUND && o.code() != StatusCode.UNIMPLEMENTED) {
            ctx.failMust("the refused " + refusal.rpc().methodName() + " ("
                    + refusal.code().display() + ") on "
                    + missing + ", which does not exist, changed it: " + probe.methodName() + " then answers "
                    + o.describe() + " (a refusal changes nothing)");
        }
    }

    /** A string of exactly {@code bytes} UTF-8 bytes. */
    static String bytes(String prefix, int bytes) {
        return prefix + "x".repeat(bytes - prefix.length());
    }

    /** A map of {@code extra} plus one padding entry, over 4 KiB in all (CSI: keys and values together). */
    static Map<String, String> overMapLimit(Map<String, String> extra) {
        Map<String, String> map = new LinkedHashMap<>(extra);
        map.put("volrep-conformance-padding", "p".repeat(CsiLimits.MAX_MAP_BYTES));
        return map;
    }

    /**
     * The CSI size limits (an id over 128 bytes, a map over 4 KiB): optional, since the replication spec inherits
     * them from CSI without restating them; the right answer is 3 INVALID_ARGUMENT (the request is malformed),
     * not NOT_FOUND for the id nor UNAUTHENTICATED for the secrets.
     */
    private static List<Check> sizeLimitChecks(ErrorScheme scheme, Rpc rpc) {
        StatusCode invalid = StatusCode.INVALID_ARGUMENT;
        int overId = CsiLimits.MAX_STRING_BYTES + 1;
        List<Check> checks = new ArrayList<>();
        checks.add(Check.optional(rowCase(scheme, rpc, invalid, ID_OVER_LIMIT), ctx -> {
                    Addressing oversized = new Addressing(
                            io.volrep.proto.replication.ReplicationSource.newBuilder()
                                    .setVolume(
                                            VolumeSource.newBuilder().setVolumeId(bytes("volrep-conformance-", overId)))
                                    .build(),
                            "",
                            "volume id of " + overId + " bytes");
                    Outcome o = ctx.call(rpc, oversized);
                    unchanged(ctx, o, ctx.volume(), LifecycleModel.State.DISABLED);
                    ctx.expect(
                            o,
                            invalid,
                            rpc + " naming a volume id of " + overId + " bytes (CSI: at most "
                                    + CsiLimits.MAX_STRING_BYTES + ")");
                })
                .withId(rpc.methodName() + "/volume/id-over-limit")
                .withNeeds(Needs.volume()));
        // GetVolumeReplicationInfo and GetReplicationDestinationInfo carry no parameters map.
        if (rpc != Rpc.GET_VOLUME_REPLICATION_INFO && rpc != Rpc.GET_REPLICATION_DESTINATION_INFO) {
            checks.add(Check.optional(rowCase(scheme, rpc, invalid, PARAMETERS_OVER_LIMIT), ctx -> {
                        Addressing vol = ctx.volume();
                        prepare(ctx, rpc, vol);
                        LifecycleModel.State before = ctx.believed(vol);
                        Outcome o = ctx.call(
                                rpc,
                                vol,
                                ctx.config().secrets().asMap(),
                                overMapLimit(ctx.config().enableParameters()));
                        unchanged(ctx, o, vol, before);
                        ctx.expect(
                                o, invalid, rpc + " with a parameters map over " + CsiLimits.MAX_MAP_BYTES + " bytes");
                    })
                    .withId(rpc.methodName() + "/volume/parameters-over-limit")
                    .withNeeds(Needs.volume()));
        }
        checks.add(Check.optional(rowCase(scheme, rpc, invalid, SECRETS_OVER_LIMIT), ctx -> {
                    Addressing vol = ctx.volume();
                    prepare(ctx, rpc, vol);
                    LifecycleModel.State before = ctx.believed(vol);
                    Outcome o = ctx.call(
                            rpc, vol, overMapLimit(ctx.config().secrets().asMap()));
                    unchanged(ctx, o, vol, before);
                    ctx.expect(
                            o,
                            invalid,
                            rpc + " with a secrets map over " + CsiLimits.MAX_MAP_BYTES
                                    + " bytes (not 16 UNAUTHENTICATED:" + " the request is malformed)");
                })
                .withId(rpc.methodName() + "/volume/secrets-over-limit")
                .withNeeds(Needs.volume()));
        return checks;
    }

    // ---------------------------------------------------------------- lifecycle

    private static List<Check> lifecycle(ConformanceConfig config) {
        List<Check> checks = new ArrayList<>();
        for (String id : config.volumes()) {
            checks.add(
                    Check.required(LIFECYCLE + " [volume " + id + "]", ctx -> runLifecycle(ctx, Addressing.volume(id)))
                            .withId("lifecycle/volume/" + id)
                            .withNeeds(Needs.fixture(io.volrep.api.ReplicationSource.volume(id))
                                    .calls(40))
                            .withHint(TWO_SITES_HINT));
        }
        if (config.volumeGroups().isEmpty()) {
            // Only without group fixtures, so "none" never clashes with a fixture's name.
            checks.add(Check.required(LIFECYCLE + " [volume group]", ctx -> ctx.volumeGroup())
                    .withId("lifecycle/group/none")
                    .withNeeds(Needs.none()));
        }
        for (String id : config.volumeGroups()) {
            checks.add(Check.required(LIFECYCLE + " [volume group " + id + "]", ctx -> {
                        ctx.volumeGroup(); // skips where the dialect has no groups
                        runLifecycle(ctx, Addressing.volumeGroup(id));
                    })
                    .withId("lifecycle/group/" + id)
                    .withNeeds(Needs.fixture(io.volrep.api.ReplicationSource.volumeGroup(id))
                            .calls(40))
                    .withHint(TWO_SITES_HINT));
        }
        return checks;
    }

    /** Why the checks that resync until ready need the peer site. */
    static final String TWO_SITES_HINT =
            "a resync copies from the primary on the peer site: it runs on a demoted site A"
                    + " while site B is primary (the spec promises no readiness with no primary to copy from)";

    /**
     * Enable, promote, demote, resync until ready, promote, disable on site A; the resync runs while the replica on
     * the peer site is primary (promoted without force once A's demotion has arrived, and demoted again before A is
     * promoted back). Needs the peer: NOT RUN without one.
     */
    static void runLifecycle(ConformanceContext ctx, Addressing target) {
        ctx.requirePeer();
        ctx.sequential();
        LifecycleModel model = LifecycleModel.forDialect(ctx.dialect());
        ctx.step(Rpc.ENABLE_VOLUME_REPLICATION, target);
        String twoSites = TwoSiteChecks.roundTripId(target);
        Addressing replica = twoSitesPart(ctx, twoSites, () -> ctx.replicaOf(target));
        ctx.step(Rpc.PROMOTE_VOLUME, target);
        ctx.partOf(
                twoSites, () -> PeerSite.observe(ctx, model, target, replica, State.SECONDARY, "PromoteVolume on A"));
        resyncWhilePeerPrimary(ctx, model, target, replica);
        ctx.partOf(twoSites, () -> {
            TwoSiteChecks.promoteAfterDemotion(ctx, model, target, replica, false);
            TwoSiteChecks.observeBoth(ctx, model, target, State.PRIMARY, replica, State.SECONDARY, "the failback to A");
        });
        ctx.step(Rpc.DISABLE_VOLUME_REPLICATION, target);
        ctx.partOf(
                twoSites, () -> TwoSiteChecks.requireNoReplica(ctx, model, replica, "DisableVolumeReplication on A"));
    }

    /** {@code part} (answering a value) as a part of the two-site check {@code twoSites} ({@link ConformanceContext#partOf}). */
    static <T> T twoSitesPart(ConformanceContext ctx, String twoSites, Supplier<T> part) {
        List<T> answer = new ArrayList<>();
        ctx.partOf(twoSites, () -> answer.add(part.get()));
        return answer.get(0);
    }

    /** The id of the check whose own subject a resync until ready is. */
    static final String RESYNC_READY_ID = "response-validity/volume/resync-ready";

    /**
     * Waits until A reports a completed sync (Info answers, within the settle timeout), then demotes A, promotes its
     * replica on B, resyncs A until ready, demotes B again; every action on one site followed by an observation of
     * the other. A failover needs the data on B, and A's Info with its REQUIRED last_sync_time is the spec's sign that
     * B holds it: demoted before any sync, real storage has no copy on B to promote (and creates none while no site
     * is primary).
     */
    private static void resyncWhilePeerPrimary(
            ConformanceContext ctx, LifecycleModel model, Addressing target, Addressing replica) {
        if (ctx.dialect().supports(Rpc.GET_VOLUME_REPLICATION_INFO)) {
            Outcome synced = ctx.call(Rpc.GET_VOLUME_REPLICATION_INFO, target);
            if (synced.code() != StatusCode.UNIMPLEMENTED) {
                ctx.expect(
                        synced,
                        StatusCode.OK,
                        "GetVolumeReplicationInfo on " + target + " before the failover to"
                                + " B (a completed sync: B holds the data)");
            }
        }
        ctx.step(Rpc.DEMOTE_VOLUME, target);
        String twoSites = TwoSiteChecks.roundTripId(target);
        ctx.partOf(twoSites, () -> {
            TwoSiteChecks.promoteAfterDemotion(ctx, model, target, replica, true);
            TwoSiteChecks.observeBoth(ctx, model, target, State.SECONDARY, replica, State.PRIMARY, "the failover to B");
        });
        ctx.partOf(
                RESYNC_READY_ID,
                () -> resyncUntilReady(
                        ctx,
                        target,
                        () -> PeerSite.observe(ctx, model, target, replica, State.PRIMARY, "ResyncVolume on A")));
        ctx.partOf(twoSites, () -> {
            ctx.expect(ctx.callPeer(Rpc.DEMOTE_VOLUME, replica), StatusCode.OK, "DemoteVolume on B's " + replica);
            TwoSiteChecks.observeBoth(
                    ctx, model, target, State.SECONDARY, replica, State.SECONDARY, "DemoteVolume on B");
        });
    }

    /** Calls ResyncVolume until it answers {@code ready = true}; fails after the configured resync timeout. */
    static void resyncUntilReady(ConformanceContext ctx, Addressing target) {
        resyncUntilReady(ctx, target, () -> {});
    }

    /**
     * Calls ResyncVolume until it answers {@code ready = true}, running {@code afterEach} after every call (the
     * observation of the other site); fails after the configured resync timeout.
     */
    static void resyncUntilReady(ConformanceContext ctx, Addressing target, Runnable afterEach) {
        Duration timeout = ctx.resyncTimeout();
        long deadline = System.nanoTime() + timeout.toNanos();
        long pause = 5;
        int calls = 0;
        while (true) {
            Outcome resync = ctx.step(Rpc.RESYNC_VOLUME, target);
            calls++;
            afterEach.run();
            if (ready(resync.response())) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                ctx.fail("ResyncVolume on " + target + " did not answer ready = true within " + timeout + " (" + calls
                        + " calls); raise --resync-timeout if the storage needs longer");
            }
            ctx.sleep(Math.min(pause, Math.max(1, (deadline - System.nanoTime()) / 1_000_000)));
            pause = Math.min(pause * 2, 500);
        }
    }

    /** ResyncVolumeResponse.ready in any dialect's message. */
    static boolean ready(Message response) {
        return (Boolean) response.getField(response.getDescriptorForType().findFieldByName("ready"));
    }

    // ---------------------------------------------------------------- responses

    /**
     * Enables and promotes the main volume and judges its info by the rules of {@code fields}
     * ({@link ResponseRules}).
     */
    private static void primaryInfoIsValid(ConformanceContext ctx, String... fields) {
        Addressing vol = ctx.volume();
        ctx.step(Rpc.ENABLE_VOLUME_REPLICATION, vol);
        ctx.step(Rpc.PROMOTE_VOLUME, vol);
        ResponseRules.requireValid(ctx, ctx.step(Rpc.GET_VOLUME_REPLICATION_INFO, vol), vol, fields);
    }

    /**
     * Every fixture enabled at once, each asked its destination: no two sources may name one destination (a failover
     * would promote one source's copy for another), and a group's member map must map no two members to one volume.
     */
    private static void distinctDestinations(ConformanceContext ctx) throws Exception {
        List<Addressing> sources = new ArrayList<>();
        ctx.config().volumes().forEach(v -> sources.add(Addressing.volume(v)));
        if (ctx.dialect().supports(Kind.VOLUME_GROUP)) {
            ctx.config().volumeGroups().forEach(g -> sources.add(Addressing.volumeGroup(g)));
        }
        if (sources.size() < 2 && ctx.config().volumeGroups().isEmpty()) {
            ctx.skip("needs two fixtures (--volume, --volume-group)");
        }
        ctx.sequential();
        Map<Addressing, Outcome> answers = new ConcurrentHashMap<>();
        try {
            AtOnce.each(sources, source -> {
                ctx.step(Rpc.ENABLE_VOLUME_REPLICATION, source);
                answers.put(source, ctx.call(Rpc.GET_REPLICATION_DESTINATION_INFO, source));
            });
        } finally {
            // Disabled at once, not one after the other by the restore: every fixture is this check's.
            AtOnce.each(sources, source -> {
                if (ctx.call(Rpc.DISABLE_VOLUME_REPLICATION, source).ok()) {
                    ctx.forget(source);
                }
            });
        }
        Map<String, List<String>> byDestination = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        for (Addressing source : sources) {
            Outcome o = answers.get(source);
            if (o.code() == StatusCode.UNIMPLEMENTED && ctx.scheme().lists(o.rpc(), StatusCode.UNIMPLEMENTED)) {
                ctx.notImplemented(o.rpc());
            }
            if (!o.ok()) {
                // Refused right after an OK enable: the destination check's failure, or the enable's (no effect).
                ctx.failBecause(
                        List.of(
                                "response-validity/" + (source.isGroup() ? "group" : "volume") + "/destination",
                                LifecycleChecks.walkId(
                                        Rpc.ENABLE_VOLUME_REPLICATION, ResponseRules.kindOf(source), State.DISABLED)),
                        "GetReplicationDestinationInfo on " + source + " -> " + o.describe() + ctx.note(o));
            }
            var d = ((GetReplicationDestinationInfoResponse) o.response()).getReplicationDestination();
            String named = d.hasVolume()
                    ? "volume " + d.getVolume().getVolumeId()
                    : "volume group " + d.getVolumegroup().getVolumeGroupId();
            byDestination.computeIfAbsent(named, k -> new ArrayList<>()).add(source.toString());
            if (d.hasVolumegroup()) {
                Map<String, List<String>> members = new LinkedHashMap<>();
                d.getVolumegroup()
                        .getVolumeIdsMap()
                        .forEach((member, to) -> members.computeIfAbsent(to, k -> new ArrayList<>())
                                .add(member));
                members.forEach((to, from) -> {
                    if (from.size() > 1) {
                        problems.add("the member map of " + source + " maps " + from + " all to volume " + to);
                    }
                });
            }
        }
        byDestination.forEach((to, from) -> {
            if (from.size() > 1) {
                problems.add(from + " all answer " + to + " as their destination");
            }
        });
        if (!problems.isEmpty()) {
            ctx.fail(String.join("; ", problems) + ": two sources cannot replicate to one destination (a failover"
                    + " would promote one source's copy for another's)");
        }
    }

    /** Enables {@code target} and checks its destination (after any transient 14 UNAVAILABLE, as every call). */
    private static void destinationIsValid(ConformanceContext ctx, Addressing target) {
        ctx.step(Rpc.ENABLE_VOLUME_REPLICATION, target);
        ResponseRules.requireValid(ctx, ctx.step(Rpc.GET_REPLICATION_DESTINATION_INFO, target), target);
    }

    private static List<Check> responseValidity(SpecDialect dialect) {
        List<Check> checks = new ArrayList<>();
        if (dialect.supports(Rpc.GET_VOLUME_REPLICATION_INFO)) {
            checks.add(Check.required(LAST_SYNC_TIME, ctx -> primaryInfoIsValid(ctx, "last_sync_time"))
                    .withId("response-validity/volume/last-sync-time")
                    .withNeeds(Needs.volume())
                    .withHint("answer a Timestamp between the years 0001 and 9999, nanos in [0, 999999999]"));
        }
        // The revision's own info answer says which fields it has (v0.1.3: last_sync_time only).
        if (dialect.supports(Rpc.GET_VOLUME_REPLICATION_INFO)
                && Wire.responseHas(dialect, Rpc.GET_VOLUME_REPLICATION_INFO, "last_sync_bytes")) {
            checks.add(Check.required(LAST_SYNC_BYTES, ctx -> primaryInfoIsValid(ctx, "last_sync_bytes"))
                    .withId("response-validity/volume/last-sync-bytes")
                    .withNeeds(Needs.volume()));
            // Required as the client rejects it: a negative duration, or none a Duration can hold, is no sync time.
            checks.add(Check.required(LAST_SYNC_DURATION, ctx -> primaryInfoIsValid(ctx, "last_sync_duration"))
                    .withId("response-validity/volume/last-sync-duration")
                    .withNeeds(Needs.volume())
                    .withHint("answer the time the last sync took: not negative, seconds and nanos of one sign"));
        }
        if (dialect.supports(Rpc.GET_REPLICATION_DESTINATION_INFO)) {
            checks.add(Check.required(HEALTH_STATUS, ctx -> primaryInfoIsValid(ctx, "status"))
                    .withId("response-validity/volume/health-status")
                    .withNeeds(Needs.volume())
                    .withHint("report the replication's health as one of the enum's values; UNKNOWN when unsure"));
            checks.add(Check.required(DESTINATION_VOLUME, ctx -> destinationIsValid(ctx, ctx.volume()))
                    .withId("response-validity/volume/destination")
                    .withNeeds(Needs.volume())
                    .withHint("answer a VolumeDestination with the destination volume's id (at most 128 bytes);"
                            + " answer 14 UNAVAILABLE only while it is not known yet"));
            checks.add(Check.builder()
                    .id("response-validity/all-fixtures/distinct-destinations")
                    .name(DISTINCT_DESTINATIONS)
                    .hint("each source replicates to a destination of its own: answer each one's own, and map each"
                            + " member of a group to its own")
                    .body(ControllerChecks::distinctDestinations)
                    .build());
            checks.add(Check.required(DESTINATION_GROUP, ctx -> destinationIsValid(ctx, ctx.volumeGroup()))
                    .withId("response-validity/group/destination")
                    .withNeeds(Needs.group())
                    .withHint("answer a VolumeGroupDestination for a group, with its id and either every member's"
                            + " destination or none (ids at most 128 bytes, the map at most 4 KiB); answer 14"
                            + " UNAVAILABLE only while it is not known yet"));
        }
        checks.add(Check.builder()
                .id("response-validity/plugin/secrets-not-echoed")
                .name(SECRETS_NOT_ECHOED)
                .hint("error details and answers must not quote the request's secrets (they end up in orchestrators'"
                        + " logs and events): say which key is wrong, never its value")
                .needs(Needs.none().at(Needs.Order.LAST))
                .body(ctx -> {
                    ctx.requireSecrets();
                    EchoWatch watch = ctx.echoes();
                    if (watch.echoes() > 0) {
                        ctx.fail(watch.echoes() + " of the run's " + watch.answers() + " answers repeated a secret of"
                                + " their request, first " + watch.first() + " (masked here: the kit masks secrets in"
                                + " its reports, but they left the plugin)");
                    }
                })
                .build());
        checks.add(Check.required(RESYNC_READY, ctx -> {
                    ctx.requirePeer();
                    ctx.sequential();
                    Addressing vol = ctx.volume();
                    LifecycleModel model = LifecycleModel.forDialect(ctx.dialect());
                    ctx.step(Rpc.ENABLE_VOLUME_REPLICATION, vol);
                    String twoSites = TwoSiteChecks.roundTripId(vol);
                    Addressing replica = twoSitesPart(ctx, twoSites, () -> ctx.replicaOf(vol));
                    ctx.step(Rpc.PROMOTE_VOLUME, vol);
                    ctx.partOf(
                            twoSites,
                            () -> PeerSite.observe(ctx, model, vol, replica, State.SECONDARY, "PromoteVolume on A"));
                    resyncWhilePeerPrimary(ctx, model, vol, replica);
                })
                .withId(RESYNC_READY_ID)
                // About a lifecycle's calls (a resync until ready among them): started early, not left to run alone.
                .withNeeds(Needs.volume().calls(40))
                .withHint(TWO_SITES_HINT));
        return checks;
    }

    // ---------------------------------------------------------------- request forms

    private static void everyRpc(ConformanceContext ctx, Addressing target) {
        ctx.step(Rpc.ENABLE_VOLUME_REPLICATION, target);
        ctx.step(Rpc.PROMOTE_VOLUME, target);
        if (ctx.dialect().supports(Rpc.GET_VOLUME_REPLICATION_INFO)) {
            ctx.step(Rpc.GET_VOLUME_REPLICATION_INFO, target);
        }
        ctx.step(Rpc.DEMOTE_VOLUME, target);
        ctx.step(Rpc.RESYNC_VOLUME, target);
        ctx.step(Rpc.PROMOTE_VOLUME, target);
        ctx.step(Rpc.DISABLE_VOLUME_REPLICATION, target);
    }

    /**
     * Upstream HEAD reserves field 1: a request naming its source only there names none, so every RPC that had the
     * field answers the missing-field row.
     */
    private static void reservedVolumeIdAlone(ConformanceContext ctx) {
        String volumeId = ctx.volume().source().getVolume().getVolumeId();
        Addressing fieldOneOnly = Addressing.deprecatedVolumeId(volumeId);
        for (Rpc rpc : LifecycleModel.forDialect(ctx.dialect()).rpcs()) {
            if (!Wire.requestHas(ctx.dialect(), rpc, "volume_id")) {
                continue; // never had it (GetReplicationDestinationInfo: its field 1 is secrets)
            }
            Outcome o = ctx.call(rpc, fieldOneOnly);
            if (o.code() == StatusCode.UNIMPLEMENTED && ctx.scheme().lists(rpc, StatusCode.UNIMPLEMENTED)) {
                continue; // a plugin without the RPC says nothing about its fields
            }
            ctx.expect(
                    o,
                    StatusCode.INVALID_ARGUMENT,
                    rpc.methodName() + " naming " + volumeId + " only in the reserved field 1 (volume_id): no source");
        }
    }

    /** Field 1 naming a volume that does not exist, beside the real source: a plugin that ignores it serves the source. */
    private static Addressing besideReservedVolumeId(ConformanceContext ctx) {
        Addressing volume = ctx.volume();
        return new Addressing(
                volume.source(),
                MISSING_VOLUME,
                volume.label() + " (reserved field 1 volume_id: " + MISSING_VOLUME + ")");
    }

    private static List<Check> requestForms(SpecDialect dialect) {
        Check.Body volumeIdAlone = ctx -> everyRpc(
                ctx,
                Addressing.deprecatedVolumeId(ctx.volume().source().getVolume().getVolumeId()));
        String sourceId = "request-forms/volume/replication-source";
        String volumeIdId = "request-forms/volume/volume-id";
        List<Check> checks = switch (dialect) {
            case CURRENT ->
                List.of(
                        Check.required(FORM_SOURCE, ctx -> everyRpc(ctx, ctx.volume()))
                                .withId(sourceId),
                        Check.optional(FORM_DEPRECATED, volumeIdAlone).withId(volumeIdId));
            // Field 1 is reserved upstream: the same id, the opposite expectation (0.1's check expected it to work).
            case UPSTREAM_2026 ->
                List.of(
                        Check.required(FORM_SOURCE, ctx -> everyRpc(ctx, ctx.volume()))
                                .withId(sourceId),
                        Check.required(FORM_RESERVED_ALONE, ControllerChecks::reservedVolumeIdAlone)
                                .withId(volumeIdId)
                                .withHint(
                                        "upstream HEAD reserves field 1: a plugin built on it never reads volume_id; one"
                                                + " that does speaks the current revision (--dialect current)"),
                        Check.required(FORM_RESERVED_BESIDE, ctx -> everyRpc(ctx, besideReservedVolumeId(ctx)))
                                .withId("request-forms/volume/volume-id-beside-source")
                                .withHint("clients that predate upstream HEAD (volrep's by default) still send field 1:"
                                        + " it must change nothing, replication_source names the source"));
            // volume_id is the revision's own (REQUIRED) field, not a deprecated one: a plugin must accept it alone.
            case V0_1_3 ->
                List.of(
                        Check.required(FORM_SOURCE, ctx -> everyRpc(ctx, ctx.volume()))
                                .withId(sourceId),
                        Check.required(FORM_VOLUME_ID, volumeIdAlone).withId(volumeIdId));
            case V0_1_0 -> List.of(Check.required(FORM_VOLUME_ID, volumeIdAlone).withId(volumeIdId));
        };
        return checks.stream().map(c -> c.withNeeds(Needs.volume())).toList();
    }
}
